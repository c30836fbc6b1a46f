package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
)

// lastRow returns the uuid of the last conversation row of a session: the
// parent Claude Code gives the next line it appends.
func lastRow(t *testing.T, src []byte) string {
	t.Helper()
	id := ""
	for _, line := range bytes.Split(bytes.TrimSpace(src), []byte("\n")) {
		var l struct {
			Type string `json:"type"`
			UUID string `json:"uuid"`
		}
		if json.Unmarshal(line, &l) == nil && l.UUID != "" && (l.Type == "user" || l.Type == "assistant" || l.Type == "system" || l.Type == "attachment") {
			id = l.UUID
		}
	}
	return id
}

// TestInPlaceKeepsIDsForRunningAgent: compacting a 31-turn session in
// place while Claude Code still runs it. The agent's next line names the
// last row it wrote as its parent; the compacted file keeps the uuids of
// what it keeps (that row included), so after the append the session still
// parses as the compacted conversation plus the new prompt, not one turn.
func TestInPlaceKeepsIDsForRunningAgent(t *testing.T) {
	src := formattest.Fixture(t, "31-turns.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "31 turns", src)
	if len(tr.Turns) != 31 {
		t.Fatalf("fixture: %d turns", len(tr.Turns))
	}
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, strategies := range [][]string{{"turn-window"}, {"auto"}, {"extractive"}} {
		t.Run(strategies[0], func(t *testing.T) {
			v, _, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: strategies, Turns: 5, KeepLast: new(2), Window: 30_000})
			if err != nil {
				t.Fatal(err)
			}
			out, compacted := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: tr.Meta.SessionID, InPlace: true, Timestamp: "2026-05-14T12:00:00.000Z"})
			next := fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":"/home/dev/src/ledger","sessionId":%q,"version":"2.1.143","gitBranch":"main","type":"user","message":{"role":"user","content":"Turn 32: one more thing."},"uuid":"0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a","timestamp":"2026-05-14T12:01:00.000Z"}`+"\n", lastRow(t, src), tr.Meta.SessionID)
			after, err := Codec{}.Parse(append(bytes.Clone(out), next...))
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Turns) != len(compacted.Turns)+1 {
				t.Fatalf("after the agent's append: %d turns, want the compacted %d plus the new prompt", len(after.Turns), len(compacted.Turns))
			}
			if last := after.Messages[len(after.Messages)-1]; firstText(&last) != "Turn 32: one more thing." {
				t.Fatalf("last message %q", firstText(&last))
			}
			if i, ok := formattest.SameContent(after.Messages[:len(compacted.Messages)], compacted.Messages); !ok {
				t.Fatalf("the compacted conversation changed after the append (message %d)", i)
			}
		})
	}
}
