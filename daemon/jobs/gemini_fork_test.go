package jobs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/strategy"
)

// TestGeminiLegacySessionForksAsOneDocument: Gemini CLI before 0.40 keeps
// a session as one session-*.json document. Its fork is one JSON document
// too (not JSONL under a .json name), named as Gemini CLI's session list
// and --resume look for sessions: session-<YYYY-MM-DDTHH-MM>-<first 8
// characters of the fork's session id>.json, in the same chats folder.
func TestGeminiLegacySessionForksAsOneDocument(t *testing.T) {
	root := isolate(t)
	r := realRunner(t)
	src, err := os.ReadFile("testdata/gemini-legacy-session.json")
	if err != nil {
		t.Fatal(err)
	}
	chats := filepath.Join(root, "home", ".gemini", "tmp", "9f2e", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(chats, "session-2025-07-01T09-00-8c1d2e3f.json")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, strategies := range [][]string{{"auto"}, {"turn-window"}} {
		res, err := r.Compact(context.Background(), Request{Path: path, Options: strategy.Options{Strategies: strategies, Turns: 1, KeepLast: new(1)}})
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(res.ForkPath) != chats || !regexp.MustCompile(`^session-\d{4}-\d\d-\d\dT\d\d-\d\d-[0-9a-f]{8}\.json$`).MatchString(filepath.Base(res.ForkPath)) {
			t.Fatalf("fork written to %s, want chats/session-<ts>-<id8>.json", res.ForkPath)
		}
		fork, err := os.ReadFile(res.ForkPath)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			SessionID string            `json:"sessionId"`
			Messages  []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(fork, &doc); err != nil {
			t.Fatalf("fork is not one JSON document: %v\n%s", err, fork)
		}
		if len(doc.Messages) == 0 || doc.SessionID == "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f" {
			t.Fatalf("fork document: session %q, %d messages", doc.SessionID, len(doc.Messages))
		}
		if !strings.HasSuffix(filepath.Base(res.ForkPath), "-"+doc.SessionID[:8]+".json") {
			t.Fatalf("fork %s does not end in its session id's first 8 characters (%s)", res.ForkPath, doc.SessionID)
		}
	}
}
