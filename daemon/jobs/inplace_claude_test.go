package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/strategy"
)

// TestInPlaceClaudeChainContinues: `compact --in-place` on a Claude Code
// session the agent is still writing. The agent's next line names the last
// row it wrote; after the compaction that row is still there under its
// uuid, so the session parses as the compacted conversation plus the new
// prompt (before: one turn).
func TestInPlaceClaudeChainContinues(t *testing.T) {
	root := isolate(t)
	r := realRunner(t)
	src, err := os.ReadFile("testdata/claude-31-turns.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "claude", "projects", "-home-dev-src-ledger")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "2f6e9a14-8b3c-4d7e-a15f-0c9d8e7b6a52.jsonl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var lastRow string
	for _, line := range bytes.Split(bytes.TrimSpace(src), []byte("\n")) {
		var l struct{ Type, UUID string }
		if json.Unmarshal(line, &l) == nil && l.UUID != "" && l.Type != "last-prompt" {
			lastRow = l.UUID
		}
	}
	if _, err := r.Compact(context.Background(), Request{Path: path, InPlace: true, Options: strategy.Options{Strategies: []string{"turn-window"}, Turns: 5, KeepLast: new(2)}}); err != nil {
		t.Fatal(err)
	}
	compacted := parse(t, path, mustRead(t, path))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":"/home/dev/src/ledger","sessionId":"2f6e9a14-8b3c-4d7e-a15f-0c9d8e7b6a52","version":"2.1.143","type":"user","message":{"role":"user","content":"Turn 32: ship it."},"uuid":"5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c","timestamp":"2026-05-14T12:01:00.000Z"}`+"\n", lastRow)
	f.Close()
	after := parse(t, path, mustRead(t, path))
	if len(compacted.Turns) < 5 || len(after.Turns) != len(compacted.Turns)+1 {
		t.Fatalf("compacted in place: %d turns; after the agent's append: %d turns, want one more", len(compacted.Turns), len(after.Turns))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
