package codex

import (
	"bytes"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// rolledBack is a Codex 0.169 rollout whose third turn the user took back
// (thread_rolled_back, num_turns 1) before asking another third question.
const rolledBack = "testdata/v0.169-rollback.jsonl"

// TestRollbackDropsTheTurnsItTookBack: the history is the one Codex
// rebuilds on resume — the taken-back turn is gone, its replacement
// follows the second turn; read whole or appended in pieces. A fork holds
// the history without the rollback event (which would take back a turn the
// fork kept), and reads back the same.
func TestRollbackDropsTheTurnsItTookBack(t *testing.T) {
	src := formattest.Read(t, rolledBack)
	tr := formattest.RoundTrip(t, Codec{}, rolledBack, src)
	all := strings.Join(formattest.Lines(tr.Messages), "\n")
	for _, gone := range []string{"Run the reconcile tests.", "All reconcile tests pass."} {
		if strings.Contains(all, gone) {
			t.Errorf("the taken-back turn is still read: %q", gone)
		}
	}
	for _, kept := range []string{"The settlement pass posts", "Make the change.", "Run only TestSettle, verbose.", "TestSettle passes"} {
		if !strings.Contains(all, kept) {
			t.Errorf("the history lacks %q", kept)
		}
	}
	orig := formattest.RoundTrip(t, Codec{}, "world state", formattest.Fixture(t, "v0.169-world-state.jsonl"))
	if want := len(orig.Turns) - 1; len(tr.Turns) != want {
		t.Errorf("%d turns, want %d: the first two, and the new third in place of the one taken back", len(tr.Turns), want)
	}
	if i := tr.LastUsage(); i < 0 || !strings.Contains(strings.Join(formattest.Lines(tr.Messages[i:i+1]), ""), "TestSettle passes") {
		t.Errorf("the last usage is not the new third turn's answer's (message %d)", i)
	}
	formattest.AppendInChunks(t, Codec{}, src, 7)

	v := transcript.NewView(tr)
	out, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "019eba70-0000-7000-8000-000000000001"})
	if bytes.Contains(out, []byte(`"thread_rolled_back"`)) || bytes.Contains(out, []byte("Run the reconcile tests.")) || bytes.Contains(out, []byte("019e7f50")) {
		t.Fatalf("the fork carries the rollback event or a line of the turn it took back:\n%s", out)
	}
	if !bytes.Contains(out, []byte(`"type":"user_message","message":"Run only TestSettle, verbose."`)) || !bytes.Contains(out, []byte(`"type":"task_complete","turn_id":"019ea53c`)) {
		t.Fatalf("the fork lost the lines of a turn it keeps:\n%s", out)
	}
	formattest.SameLines(t, formattest.Lines(back.Messages), formattest.Lines(tr.Messages))
}

// TestRollbackBeyondTheTurns: taking back more turns than the user typed
// keeps what came before the first (the instructions and context).
func TestRollbackBeyondTheTurns(t *testing.T) {
	src := formattest.Read(t, rolledBack)
	src = bytes.Replace(src, []byte(`"num_turns":1`), []byte(`"num_turns":9`), 1)
	tr := formattest.RoundTrip(t, Codec{}, "rollback of 9", src)
	var human []string
	for _, m := range tr.Messages {
		if m.Role == transcript.RoleUser && m.Origin == transcript.OriginHuman {
			human = append(human, formattest.Lines([]transcript.Message{m})...)
		}
	}
	if len(human) != 1 || !strings.Contains(human[0], "Run only TestSettle") {
		t.Fatalf("after taking back every turn, the user's messages are %q, want only the new one", human)
	}
	if tr.Messages[0].Role != transcript.RoleSystem && tr.Messages[0].Origin != transcript.OriginInjected {
		t.Fatalf("the context before the first turn is gone: %q", formattest.Lines(tr.Messages[:1]))
	}
}
