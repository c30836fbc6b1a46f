package lsp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/search"
)

// TestSearchCommand: "Find a session…" sends compactd.search with no file;
// the answer lists the sessions that say the words, with where to open
// them (testdata/commands/compactd.search.json pins it).
func TestSearchCommand(t *testing.T) {
	home := testEnv(t)
	ws := t.TempDir()
	indexed := make(chan search.Stats, 16)
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t), SearchDelay: time.Millisecond,
		OnSearch: func(st search.Stats) { indexed <- st }}})
	c.initialize(ws, nil)
	u, _, _ := openFixture(t, c, ws, "claude-2.1.330-24k.jsonl")
	want := string(u)
	var raw json.RawMessage
	for {
		raw = nil
		if err := c.call("workspace/executeCommand", map[string]any{"command": cmdSearch, "arguments": []any{map[string]any{"query": "RESERVATION_TTL", "limit": 2}}}, &raw); err != nil {
			t.Fatal(err)
		}
		var res CommandResult[*daemon.Found]
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Result.Hits) > 0 && string(pathURI(res.Result.Hits[0].Path)) == want {
			if res.Message != "" || len(res.Result.Targets) == 0 {
				t.Fatalf("a search says %q and offers %v", res.Message, res.Result.Targets)
			}
			break
		}
		select {
		case <-indexed:
		case <-time.After(20 * time.Second):
			t.Fatalf("the session is never found: %s", raw)
		}
	}
	commandGolden(t, cmdSearch, raw, ws, home)
	// A query with no word is refused with a sentence.
	err := c.call("workspace/executeCommand", map[string]any{"command": cmdSearch, "arguments": []any{map[string]any{"query": " ;; "}}}, &raw)
	if err == nil {
		t.Fatal("an empty query was answered")
	}
}
