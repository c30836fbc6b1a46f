package gemini

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
)

// compressed is a recording the real Gemini CLI 0.61.0 compressed in its
// third turn (see testdata/SOURCES.md).
const compressed = "testdata/v0.61.0-compress.jsonl"

// TestAgentCompactions: the $set that brought the <state_snapshot> in is
// Gemini CLI's compression; the next resume's $set, holding the same
// snapshot, is not another. The conversation before it comes back as a new
// session whose last message is the tool call the compression interrupted.
func TestAgentCompactions(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, compressed, formattest.Read(t, compressed))
	list := Codec{}.AgentCompactions(tr)
	if len(list) != 1 {
		t.Fatalf("agent compactions = %d, want the one compression (the later resume's $set holds the same snapshot)", len(list))
	}
	c := list[0]
	if c.Kind != "chat_compression" || c.Record != 24 || !strings.HasPrefix(c.Summary, "<state_snapshot>") || c.Timestamp.IsZero() {
		t.Fatalf("compaction = %+v", c)
	}
	if c.TokensBefore < 14000 || c.TokensBefore > 16000 {
		t.Fatalf("tokens before = %d, want the usage of the request before it (~15k)", c.TokensBefore)
	}
	if len(c.After) < 3 || !strings.HasPrefix(c.After[0].Parts[0].Text, "<state_snapshot>") {
		t.Fatalf("after the compression: %d messages", len(c.After))
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
	if before.Meta.SessionID != renewed || strings.Contains(string(out), tr.Meta.SessionID) {
		t.Fatalf("the conversation before the compression keeps the source's session id")
	}
	var texts []string
	for _, m := range before.Messages {
		for _, p := range m.Parts {
			texts = append(texts, p.Text)
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"Look at calc.go", "worker pool restarted", "Third: the error"} {
		if !strings.Contains(all, want) {
			t.Errorf("the conversation before the compression lacks %q", want)
		}
	}
	if strings.Contains(all, "<state_snapshot>") || len(Codec{}.AgentCompactions(before)) != 0 {
		t.Fatalf("the conversation before the compression holds the snapshot")
	}
	if _, err := (Codec{}).BeforeCompaction(tr, 1, format.ForkOptions{}); err == nil {
		t.Fatal("BeforeCompaction of a compaction the session does not have: no error")
	}
}

// TestResumedRecordingHasNoCompaction: the $set lines every resume writes
// are no compaction.
func TestResumedRecordingHasNoCompaction(t *testing.T) {
	for _, f := range []string{"testdata/v0.61-resumed-session.jsonl", "testdata/v0.61-tool-session.jsonl", "testdata/session-2026-04-29T21-39-5f1c2a9e.jsonl"} {
		tr := formattest.RoundTrip(t, Codec{}, f, formattest.Read(t, f))
		if list := (Codec{}).AgentCompactions(tr); len(list) != 0 {
			t.Errorf("%s: %d agent compactions, want none", f, len(list))
		}
	}
}
