package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/strategy"
)

// sessionIDs returns the distinct session ids the lines of a JSONL
// transcript name (Claude sessionId, Codex session_meta payload.id).
func sessionIDs(data []byte) map[string]bool {
	ids := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var l struct {
			SessionID string `json:"sessionId"`
			Type      string `json:"type"`
			Payload   struct {
				ID string `json:"id"`
			} `json:"payload"`
			Data struct {
				SessionID string `json:"sessionId"`
			} `json:"data"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		if l.SessionID != "" {
			ids[l.SessionID] = true
		}
		if l.Type == "session_meta" && l.Payload.ID != "" {
			ids[l.Payload.ID] = true
		}
		if l.Data.SessionID != "" {
			ids[l.Data.SessionID] = true
		}
	}
	return ids
}

// TestRestoreAsForkCarriesWholeVersion: `restore FILE v1` as a new fork
// writes the whole version — a Claude session's rewound branch, progress,
// system rows and file snapshots; a Codex rollout's history before its
// compacted record; an Aider log's session headers — renewing only the
// session id where the agent needs one per file (and Gemini CLI's
// recording, whose updates re-append records, keeps every one).
func TestRestoreAsForkCarriesWholeVersion(t *testing.T) {
	for _, c := range []struct {
		fixture, dir, name string
		renewed            bool
	}{
		{"claude-rewind-branches.jsonl", "claude/projects/-home-dev-src-ledger", "a8b7c6d5-e4f3-4a2b-9c1d-0e9f8a7b6c5d.jsonl", true},
		{"codex-compacted.jsonl", "codex/sessions/2026/06/02", "rollout-2026-06-02T14-00-00-019e5a1b-2c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl", true},
		{"gemini-v0.61-session.jsonl", "gemini/tmp/3f8a1c9e/chats", "session-2026-05-20T10-00-5b9e2c71.jsonl", true},
		// Issue 23, item 3: Qwen Code's telemetry records and usageMetadata,
		// Copilot CLI's usage, info and model events came back missing.
		{"qwen-session.jsonl", "qwen/projects/-home-ada-calc/chats", "3c9e2b7a-8f41-4d6c-a1e5-7b0d9f2c4e18.jsonl", true},
		{"copilot-events.jsonl", "copilot/session-state/b6f0c3a2-5d41-4e8a-9c17-2f3e4d5a6b7c", "events.jsonl", true},
		{"v0.83-main-model.aider.chat.history.md", "repo", ".aider.chat.history.md", false},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			root := isolate(t)
			r := realRunner(t)
			src := mustRead(t, filepath.Join("testdata", c.fixture))
			dir := filepath.Join(root, c.dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
			// Compacting records the source as v1.
			if _, err := r.Compact(context.Background(), Request{Path: path, Options: strategy.Options{Strategies: []string{"turn-window"}, Turns: 1}}); err != nil {
				t.Fatal(err)
			}
			res, err := r.Restore(context.Background(), path, "v1", false)
			if err != nil {
				t.Fatal(err)
			}
			out := mustRead(t, res.Path)
			if !c.renewed {
				if !bytes.Equal(out, src) {
					t.Fatalf("restored fork differs from v1:\n%s", out)
				}
				return
			}
			oldIDs, newIDs := sessionIDs(src), sessionIDs(out)
			if len(newIDs) != 1 || len(oldIDs) != 1 {
				t.Fatalf("session ids: source %v, restored %v", oldIDs, newIDs)
			}
			var oldID, newID string
			for id := range oldIDs {
				oldID = id
			}
			for id := range newIDs {
				newID = id
			}
			if newID == oldID {
				t.Fatal("the restored fork keeps the source's session id")
			}
			// Every line comes back; only the session's own id differs
			// (Codex also notes the session it came from).
			srcLines := strings.Split(strings.TrimSpace(string(src)), "\n")
			outLines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(out), newID, oldID)), "\n")
			if len(outLines) != len(srcLines) {
				t.Fatalf("restored fork has %d lines, v1 has %d", len(outLines), len(srcLines))
			}
			for i := range srcLines {
				if outLines[i] != srcLines[i] && !strings.Contains(outLines[i], `"forked_from_id"`) {
					t.Fatalf("line %d differs:\n got %s\nwant %s", i+1, outLines[i], srcLines[i])
				}
			}
		})
	}
}
