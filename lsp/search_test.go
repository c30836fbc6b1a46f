package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// TestHandOffASessionSearchFound: a session of another project, which
// search finds, may be handed off from the editor (the source is only
// read; the new session goes where its target keeps it), but not
// compacted (that writes beside it, outside the workspace).
func TestHandOffASessionSearchFound(t *testing.T) {
	home := testEnv(t)
	ws := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "claude-2.1.330-24k.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(home, "claude", "projects", "-home-dev-src-inventory-service", "7c9d1e2f-0000-4000-8000-000000000042.jsonl")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, src, 0o644); err != nil {
		t.Fatal(err)
	}
	indexed := make(chan search.Stats, 16)
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t), SearchDelay: time.Millisecond,
		OnSearch: func(st search.Stats) { indexed <- st }}})
	c.initialize(ws, nil)
	select {
	case <-indexed:
	case <-time.After(20 * time.Second):
		t.Fatal("the machine was never indexed")
	}
	var found CommandResult[*daemon.Found]
	if err := c.call("workspace/executeCommand", map[string]any{"command": cmdSearch, "arguments": []any{map[string]any{"query": `"ignore RESERVATION_TTL"`}}}, &found); err != nil {
		t.Fatal(err)
	}
	if len(found.Result.Hits) != 1 || found.Result.Hits[0].Path != other {
		t.Fatalf("search: %+v", found.Result)
	}
	u := pathURI(other)
	if _, err := c.execute(cmdCompact, map[string]any{"uri": u}); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Fatalf("compacting a session of another project: %v", err)
	}
	res, err := c.execute(cmdHandoff, map[string]any{"uri": u, "agent": "codex", "mcp": false})
	if err != nil {
		t.Fatal(err)
	}
	var h daemon.Handoff
	if err := json.Unmarshal(res.Result, &h); err != nil {
		t.Fatal(err)
	}
	if h.Path == "" || !strings.HasPrefix(h.Path, filepath.Join(home, "codex")) {
		t.Fatalf("the handoff wrote %q, not in Codex's folder", h.Path)
	}
	if b, err := os.ReadFile(other); err != nil || string(b) != string(src) {
		t.Fatalf("the source changed (%v)", err)
	}
}
