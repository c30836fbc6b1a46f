package codex

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestTurnWindowAnswersTheFirstPrompt: in a Codex fork the protected
// first prompt is followed by an assistant stand-in for the cut turns,
// not by the next prompt.
func TestTurnWindowAnswersTheFirstPrompt(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "v0.169", formattest.Fixture(t, "v0.169-world-state.jsonl"))
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: []string{"turn-window"}, Turns: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, fork := formattest.ForkParse(t, Codec{}, v, forkOpts)
	first := -1
	for i, m := range fork.Messages {
		if m.Origin == transcript.OriginHuman {
			first = i
			break
		}
	}
	if first < 0 || !strings.HasPrefix(fork.Messages[first].Parts[0].Text, "The settlement pass") {
		t.Fatal("the fork lost the first prompt")
	}
	next := fork.Messages[first+1]
	if next.Role != transcript.RoleAssistant || next.Parts[0].Kind != transcript.PartText || !strings.Contains(next.Parts[0].Text, "turn") {
		t.Fatalf("after the first prompt comes %s/%s %+v, want an assistant stand-in for the cut turns", next.Role, next.Origin, next.Parts)
	}
}
