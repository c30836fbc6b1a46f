package copilotcli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestAgentCompactions: Copilot CLI's own compactions are listed from
// their session.compaction_start, with the figures and summary its
// compaction_complete records; a failed one replaced nothing and is not
// one; the fork before one is the session's events up to its start under
// a new session id, which reads as the conversation then.
func TestAgentCompactions(t *testing.T) {
	src := events(t, append(start,
		"user.message", obj{"content": "List the files."},
		"assistant.message", obj{"content": "", "toolRequests": []any{call("c1", "bash")}},
		"tool.execution_complete", result("c1", "a.go b.go"),
		"assistant.message", obj{"content": "Two files.", "toolRequests": []any{}},
		"session.compaction_start", obj{"conversationTokens": 120000},
		"user.message", obj{"content": "Meanwhile: and tests?"},
		"session.compaction_complete", obj{"success": true, "summaryContent": "Listed a.go and b.go.", "preCompactionTokens": 150000, "postCompactionTokens": 2000},
		"assistant.message", obj{"content": "No tests.", "toolRequests": []any{}},
		"session.compaction_start", obj{},
		"session.compaction_complete", obj{"success": false, "error": "the model refused"},
		"user.message", obj{"content": "Write one."},
	)...)
	tr := formattest.RoundTrip(t, Codec{}, "events.jsonl", src)
	list := Codec{}.AgentCompactions(tr)
	if len(list) != 1 {
		t.Fatalf("%d compactions, want 1 (the failed one replaced nothing): %+v", len(list), list)
	}
	c := list[0]
	if tr.Records[c.Record].Type != "session.compaction_start" || c.Kind != "session.compaction" || c.TokensBefore != 150000 || c.TokensAfter != 2000 ||
		c.Summary != "Listed a.go and b.go." || c.Timestamp.IsZero() {
		t.Fatalf("compaction %+v (record %s)", c, tr.Records[c.Record].Type)
	}
	if len(c.After) != 1 || c.After[0].Origin != transcript.OriginSummary || c.After[0].Parts[0].Text != c.Summary {
		t.Fatalf("after %+v", c.After)
	}
	out, err := Codec{}.BeforeCompaction(tr, 0, format.ForkOptions{SessionID: "0f1e2d3c-4b5a-4968-8776-655443322110"})
	if err != nil {
		t.Fatal(err)
	}
	if rest := out[bytes.IndexByte(out, '\n')+1:]; !bytes.HasPrefix(src[bytes.IndexByte(src, '\n')+1:], rest) || len(rest) == 0 {
		t.Fatal("the events before the compaction are not the source's, as they were")
	}
	back := formattest.RoundTrip(t, Codec{}, "events.jsonl", out)
	if back.Meta.SessionID != "0f1e2d3c-4b5a-4968-8776-655443322110" {
		t.Fatalf("the fork's session is %q", back.Meta.SessionID)
	}
	formattest.SameLines(t, formattest.Lines(back.Messages), []string{
		"user text|List the files.||",
		`assistant tool_call||c1|{"command":"ls"}`,
		"tool tool_result|a.go b.go|c1|",
		"assistant text|Two files.||",
	})
	if _, err := (Codec{}).BeforeCompaction(tr, 1, format.ForkOptions{}); err == nil {
		t.Fatal("a second compaction was given back")
	}
}

// TestForkIsNoAgentCompaction: a compactd fork opens with its summary as a
// compaction_complete; no history of the session precedes it, so it is
// not the agent's compaction.
func TestForkIsNoAgentCompaction(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	v := transcript.NewView(tr)
	v.Summaries = []transcript.Summary{{Text: "What happened.", Before: 0}}
	v.Messages = v.Messages[len(v.Messages)-2:]
	out, err := Codec{}.Fork(v, format.ForkOptions{SessionID: "fork-1"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"session.compaction_complete"`)) {
		t.Fatalf("the fork holds no compaction_complete:\n%s", out)
	}
	back := formattest.RoundTrip(t, Codec{}, "events.jsonl", out)
	if list := (Codec{}).AgentCompactions(back); len(list) != 0 {
		t.Fatalf("a fork lists %d agent compactions", len(list))
	}
}

// TestAgentCompactionsOfRealSessions: in the real Copilot CLI sessions of
// the forward corpus ($COMPACTD_FORWARD_SESSIONS; 1.0.40–1.0.74), every
// successful session.compaction_complete is listed, and the session
// before it reads with as many messages as the agent compacted
// (its preCompactionMessagesLength).
func TestAgentCompactionsOfRealSessions(t *testing.T) {
	root := os.Getenv("COMPACTD_FORWARD_SESSIONS")
	if root == "" {
		root = filepath.Join(formattest.RepoRoot(), "..", "shared", "forward-sessions")
	}
	files, _ := filepath.Glob(filepath.Join(root, "*", "copilot", "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("no Copilot CLI sessions under %s", root)
	}
	found := 0
	for _, f := range files {
		src := formattest.Read(t, f)
		tr, err := Codec{}.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		want := bytes.Count(src, []byte(`"type":"session.compaction_complete","data":{"success":true`))
		list := Codec{}.AgentCompactions(tr)
		if len(list) != want {
			t.Errorf("%s: %d compactions listed, the file records %d", filepath.Base(f), len(list), want)
		}
		for i, c := range list {
			found++
			if c.TokensBefore == 0 || c.Summary == "" || !strings.Contains(string(tr.Records[c.Record].Raw), `"session.compaction_start"`) {
				t.Errorf("%s: compaction %d %+v", filepath.Base(f), i, c)
			}
			out, err := Codec{}.BeforeCompaction(tr, i, format.ForkOptions{SessionID: "0f1e2d3c-4b5a-4968-8776-655443322110"})
			if err != nil {
				t.Fatal(err)
			}
			before, err := Codec{}.Parse(out)
			if err != nil || len(before.Messages) == 0 {
				t.Fatalf("%s: before compaction %d: %v", filepath.Base(f), i, err)
			}
			agentCount := -1
			for _, r := range tr.Records[c.Record:] {
				if r.Type == "session.compaction_complete" {
					var ev struct {
						Data struct {
							Messages *int `json:"preCompactionMessagesLength"`
						} `json:"data"`
					}
					if json.Unmarshal(r.Raw, &ev) == nil && ev.Data.Messages != nil {
						agentCount = *ev.Data.Messages
					}
					break
				}
			}
			if agentCount >= 0 && len(before.Messages) != agentCount {
				t.Errorf("%s: %d messages before compaction %d; the agent compacted %d", filepath.Base(f), len(before.Messages), i, agentCount)
			}
			t.Logf("%s: compaction %d at record %d, %d tokens before: %d messages before it (the agent's count: %d)", filepath.Base(f), i, c.Record, c.TokensBefore, len(before.Messages), agentCount)
		}
	}
	t.Logf("%d compactions in %d sessions", found, len(files))
}
