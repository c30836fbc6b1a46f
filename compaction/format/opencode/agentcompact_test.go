package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// compactedSession is the fixture's first three messages followed by a
// compaction written as opencode writes its own (a user message with a
// compaction part, answered by a summary message) and what came after.
func compactedSession(t *testing.T) (whole, compactedOnly []byte) {
	t.Helper()
	src := formattest.Read(t, session)
	tr := formattest.RoundTrip(t, oc, session, src)
	v := transcript.NewView(tr)
	v.Messages = v.Messages[4:]
	v.Summaries = []transcript.Summary{{Text: "Listed the files.", Before: 0}}
	v.Cut = true
	out, _ := formattest.ForkParse(t, oc, v, format.ForkOptions{SessionID: "seed", Timestamp: "2026-11-24T10:00:00.000Z"})
	var doc map[string]json.RawMessage
	var fork, orig struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(out, &doc) != nil || json.Unmarshal(out, &fork) != nil || json.Unmarshal(src, &orig) != nil {
		t.Fatal("the fixture or its fork is no export")
	}
	msgs, err := json.Marshal(append(append([]json.RawMessage{}, orig.Messages[:3]...), fork.Messages...))
	if err != nil {
		t.Fatal(err)
	}
	doc["messages"] = msgs
	joined, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return joined, out
}

// TestAgentCompactions: opencode's own compaction is listed at its
// compaction message, with its summary; the session before it is a new
// export (new session and message ids) that reads as the messages before
// it did. A compactd fork opens with a compaction of the same shape, but
// no history precedes it: it is not the agent's.
func TestAgentCompactions(t *testing.T) {
	whole, forkOnly := compactedSession(t)
	tr := formattest.RoundTrip(t, oc, "x.json", whole)
	list := oc.AgentCompactions(tr)
	if len(list) != 1 {
		t.Fatalf("%d compactions, want 1", len(list))
	}
	c := list[0]
	if c.Record != 3 || c.Kind != "compaction" || c.Trigger != "manual" || c.Summary != "Listed the files." || len(c.After) != 1 || c.After[0].Origin != transcript.OriginSummary {
		t.Fatalf("compaction %+v", c)
	}
	out, err := oc.BeforeCompaction(tr, 0, format.ForkOptions{SessionID: "ses_0f1e2d3c4b5aXyZ", Timestamp: "2026-11-25T10:00:00.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	before := formattest.RoundTrip(t, oc, "x.json", out)
	if before.Meta.SessionID == tr.Meta.SessionID || !strings.Contains(before.Meta.Title, "before its compaction 1") {
		t.Fatalf("the session before: id %s, title %q", before.Meta.SessionID, before.Meta.Title)
	}
	for _, r := range before.Records {
		for _, src := range tr.Records {
			if r.ID == src.ID {
				t.Fatalf("message id %s kept: opencode import skips a message whose id it has", r.ID)
			}
		}
	}
	orig := formattest.RoundTrip(t, oc, session, formattest.Read(t, session))
	formattest.SameLines(t, formattest.Lines(before.Messages), formattest.Lines(orig.Messages[:len(before.Messages)]))
	if len(before.Messages) < 3 {
		t.Fatalf("%d messages before the compaction", len(before.Messages))
	}
	if list := oc.AgentCompactions(formattest.RoundTrip(t, oc, "x.json", forkOnly)); len(list) != 0 {
		t.Fatalf("a compactd fork lists %d agent compactions", len(list))
	}
}

// TestAgentCompactionsOfRealExports: in the real opencode exports of the
// forward corpus ($COMPACTD_FORWARD_SESSIONS), every compaction part that
// a summary answered is listed, and the session before it reads.
func TestAgentCompactionsOfRealExports(t *testing.T) {
	root := os.Getenv("COMPACTD_FORWARD_SESSIONS")
	if root == "" {
		root = filepath.Join(formattest.RepoRoot(), "..", "shared", "forward-sessions")
	}
	files, _ := filepath.Glob(filepath.Join(root, "*", "opencode", "*"))
	if len(files) == 0 {
		t.Skipf("no opencode exports under %s", root)
	}
	found := 0
	for _, f := range files {
		src := formattest.Read(t, f)
		tr, err := oc.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		var doc struct {
			Messages []struct {
				Info struct {
					Role, ParentID, Finish string
					Summary                json.RawMessage
				}
				Parts []struct{ Type string }
			}
		}
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, m := range doc.Messages {
			if m.Info.Role == "assistant" && string(m.Info.Summary) == "true" && m.Info.Finish != "" {
				want++
			}
		}
		list := oc.AgentCompactions(tr)
		if len(list) != want {
			t.Errorf("%s: %d compactions listed, %d summaries in the export", filepath.Base(f), len(list), want)
		}
		for i, c := range list {
			found++
			out, err := oc.BeforeCompaction(tr, i, format.ForkOptions{})
			if err != nil {
				t.Fatal(err)
			}
			before, err := oc.Parse(out)
			if err != nil || len(before.Messages) == 0 || c.Summary == "" || c.TokensBefore == 0 {
				t.Fatalf("%s: compaction %d (%s, %d tokens before): the session before it: %v", filepath.Base(f), i, c.Trigger, c.TokensBefore, err)
			}
			t.Logf("%s: compaction %d at message %d, %s, %d tokens before: %d messages before it", filepath.Base(f), i, c.Record, c.Trigger, c.TokensBefore, len(before.Messages))
		}
	}
	t.Logf("%d compactions in %d exports", found, len(files))
}
