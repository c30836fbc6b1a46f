package claude

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestTurnWindowAnswersTheFirstPrompt: turn-window keeps the protected
// first prompt and the last turns. The fork does not leave that prompt
// unanswered, followed by the next prompt: an assistant stand-in says
// where turns were cut.
func TestTurnWindowAnswersTheFirstPrompt(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "31 turns", formattest.Fixture(t, "31-turns.jsonl"))
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: []string{"turn-window"}, Turns: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, fork := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "5f4e3d2c-1b0a-4987-8654-3210fedcba98"})
	first := -1
	for i, m := range fork.Messages {
		if m.Origin == transcript.OriginHuman {
			first = i
			break
		}
	}
	if first < 0 || !strings.HasPrefix(firstText(&fork.Messages[first]), "Turn 1:") {
		t.Fatalf("the fork lost the first prompt")
	}
	next := fork.Messages[first+1]
	if next.Role != transcript.RoleAssistant || !strings.Contains(firstText(&next), "turns") {
		t.Fatalf("after the first prompt comes %s/%s %q, want an assistant stand-in for the cut turns", next.Role, next.Origin, firstText(&next))
	}
}
