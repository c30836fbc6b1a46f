package claude

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestAgentCompactions: a session Claude Code compacted twice lists both
// boundaries with their trigger, size and summary; the conversation
// before each comes back as a new session holding what the model had
// then (the first: the whole start of the session; the second: the first
// summary and the turns after it), whose leaf is the answer the boundary
// followed.
func TestAgentCompactions(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "two boundaries", formattest.Fixture(t, "two-compact-boundaries.jsonl"))
	list := Codec{}.AgentCompactions(tr)
	if len(list) != 2 || list[0].Trigger != "auto" || list[0].TokensBefore != 168_420 || list[1].Trigger != "manual" || list[1].TokensBefore != 174_002 {
		t.Fatalf("agent compactions = %+v", list)
	}
	if !strings.Contains(list[0].Summary, "golang.org/x/time/rate") || len(list[0].After) != 1 || list[0].After[0].Origin != transcript.OriginSummary {
		t.Fatalf("first compaction's summary = %q, after = %+v", list[0].Summary, list[0].After)
	}
	for i, want := range []struct{ first, last string }{
		{"Add rate limiting to the public API", "Switched to `rate.NewLimiter(5, 10)`"},
		{"This session is being continued", "429 responses now carry"},
	} {
		out, err := Codec{}.BeforeCompaction(tr, i, format.ForkOptions{SessionID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"})
		if err != nil {
			t.Fatal(err)
		}
		before, err := Codec{}.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		if before.Meta.SessionID != "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" || strings.Contains(string(out), tr.Meta.SessionID) {
			t.Fatalf("before a%d keeps the source's session id", i+1)
		}
		first, last := firstText(&before.Messages[0]), firstText(&before.Messages[len(before.Messages)-1])
		if !strings.HasPrefix(first, want.first) || !strings.HasPrefix(last, want.last) {
			t.Fatalf("before a%d: %d messages from %q to %q", i+1, len(before.Messages), first, last)
		}
		if before.LastUsage() < 0 {
			t.Fatalf("before a%d: the usage of the time is gone", i+1)
		}
	}
}
