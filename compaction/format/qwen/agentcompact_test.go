package qwen

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// compressed is a session Qwen Code 0.24.4 wrote against the real-agent
// suite's model server: three turns, /compress (its chat_compression
// record, trigger manual), and a turn carried on from the summary.
const compressed = "testdata/v0.24.4-compress.jsonl"

// TestAgentCompactions: Qwen Code's own compression is listed with its
// trigger, sizes and summary; the conversation before it comes back as a
// new session holding the three turns it replaced, every record kept with
// the session id renewed.
func TestAgentCompactions(t *testing.T) {
	src := formattest.Read(t, compressed)
	tr := formattest.RoundTrip(t, Codec{}, compressed, src)
	list := Codec{}.AgentCompactions(tr)
	if len(list) != 1 {
		t.Fatalf("agent compactions = %+v, want the one /compress made", list)
	}
	c := list[0]
	if c.Kind != "chat_compression" || c.Trigger != "manual" || c.TokensBefore != 14607 || c.TokensAfter != 12429 || c.Record != 13 {
		t.Fatalf("compaction = %+v", c)
	}
	if !strings.HasPrefix(c.Summary, "<state_snapshot>") || len(c.After) != 2 || c.After[0].Origin != transcript.OriginSummary {
		t.Fatalf("summary %q, after %d messages", c.Summary, len(c.After))
	}
	const renewed = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	out, err := Codec{}.BeforeCompaction(tr, 0, format.ForkOptions{SessionID: renewed})
	if err != nil {
		t.Fatal(err)
	}
	before, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if before.Meta.SessionID != renewed || strings.Contains(string(out), `"sessionId":"`+tr.Meta.SessionID) {
		t.Fatalf("the conversation before the compression keeps the source's session id")
	}
	if got := len(before.Records); got != 13 {
		t.Fatalf("before the compression: %d records, want the 13 lines before it", got)
	}
	texts := formattest.Lines(before.Messages)
	if len(texts) != 6 || !strings.Contains(texts[0], "Look at calc.go") || !strings.Contains(texts[4], "Third: the error") {
		t.Fatalf("before the compression: %q", texts)
	}
	if before.LastUsage() <= 0 {
		t.Fatalf("before the compression: the usage of the time is gone")
	}
	if len(Codec{}.AgentCompactions(before)) != 0 {
		t.Fatalf("the conversation before the compression lists a compression")
	}
	// The session as the model has it now: the summary, then the last turn.
	if tr.Messages[0].Origin != transcript.OriginSummary || len(tr.Messages) != 4 {
		t.Fatalf("after the compression: %q", formattest.Lines(tr.Messages))
	}
	if _, err := (Codec{}).BeforeCompaction(tr, 1, format.ForkOptions{}); err == nil {
		t.Fatalf("BeforeCompaction of a compaction the session does not have: no error")
	}
}

// TestForkIsNoAgentCompaction: a compactd fork opens with a
// chat_compression record at the root of its chain; the history it
// replaced is not in the file, so it is no compaction of the agent's.
func TestForkIsNoAgentCompaction(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "fork", formattest.Fixture(t, "fork-summary.golden.jsonl"))
	if list := (Codec{}).AgentCompactions(tr); len(list) != 0 {
		t.Fatalf("a compactd fork lists agent compactions: %+v", list)
	}
}
