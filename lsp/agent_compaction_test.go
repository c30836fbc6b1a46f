package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon"

	"go.lsp.dev/protocol"
)

// TestAgentCompactionActions: on a Claude Code session the agent compacted
// twice, the lightbulb offers "Restore from before the agent's compaction"
// and "Re-compact with compactd" for the last one; both commands write a
// new session beside it and open it.
func TestAgentCompactionActions(t *testing.T) {
	testEnv(t)
	c, ws, path := openAgentCompacted(t)
	u := pathURI(path)

	var actions []protocol.CodeAction
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &actions); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, a := range actions {
		if a.Command != nil {
			found[a.Title+"|"+a.Command.Command] = true
		}
	}
	for _, want := range []string{
		"Restore from before the agent's compaction (a2)|" + cmdRestoreBeforeAgent,
		"Re-compact with compactd (a2)|" + cmdRecompactAgent,
	} {
		if !found[want] {
			t.Fatalf("code actions %v lack %q", found, want)
		}
	}

	res, err := c.execute(cmdRestoreBeforeAgent, map[string]any{"uri": u})
	if err != nil {
		t.Fatalf("restore before a2: %v", err)
	}
	restored := uriPath(protocol.DocumentURI(res.Open))
	if restored == "" || filepath.Dir(restored) != ws || restored == path || !strings.Contains(res.Message, "before the agent's compaction a2") {
		t.Fatalf("restore before a2: %+v", res)
	}
	data, err := os.ReadFile(restored)
	if err != nil || !strings.Contains(string(data), "429 responses now carry") || strings.Contains(string(data), "Document the limits in the README") {
		t.Fatalf("the restored session is not the conversation before a2 (%v)", err)
	}

	res, err = c.execute(cmdRecompactAgent, map[string]any{"uri": u, "version": "a1"})
	if err != nil {
		t.Fatalf("re-compact a1: %v", err)
	}
	if res.Open == "" || !strings.Contains(res.Message, "the agent's summary kept") {
		t.Fatalf("re-compact a1: %+v", res)
	}
}

// openAgentCompacted starts a server with a store on a workspace holding a
// Claude Code session the agent compacted twice, opened in the editor.
func openAgentCompacted(t *testing.T) (c *client, ws, path string) {
	t.Helper()
	ws = t.TempDir()
	src, err := os.ReadFile("testdata/claude-two-compact-boundaries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(ws, "8e7d6c5b-4a39-4281-9f0e-1d2c3b4a5968.jsonl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	u := pathURI(path)
	// A fixed clock: results say how long the session has been idle.
	now := func() time.Time { return time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC) }
	c = startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t), Now: now}})
	c.initialize(ws, nil)
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
	c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)
	return c, ws, path
}
