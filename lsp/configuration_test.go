package lsp

import (
	"encoding/json"
	"github.com/compactd/compactd/daemon"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon/config"
)

// TestConfiguration: the workspace's .compactd.toml sets the window,
// initializationOptions override it, didChangeConfiguration re-derives
// every gauge, and invalid settings are refused with a message.
func TestConfiguration(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	path := filepath.Join(ws, "conv.jsonl")
	writeSession(t, path, ws, 4)
	u := pathURI(path)
	if err := os.WriteFile(filepath.Join(ws, ".compactd.toml"), []byte("[gauge]\ncontext_window = 123456\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	windowIs := func(w int) func(json.RawMessage) bool {
		return func(raw json.RawMessage) bool {
			var g Gauge
			return json.Unmarshal(raw, &g) == nil && g.URI == u && g.ContextWindow == w
		}
	}

	c := startServer(t, Options{Daemon: daemon.Options{Config: config.Layers{Files: true}}})
	c.initialize(ws, nil)
	c.waitNote(0, methodGauge, windowIs(123456), 10*time.Second)
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"compactd": map[string]any{"gauge": map[string]any{"contextWindow": 50000, "warn": 0.01}}}})
	raw, next := c.waitNote(0, methodGauge, windowIs(50000), 10*time.Second)
	var g Gauge
	_ = json.Unmarshal(raw, &g)
	if g.Level == "ok" {
		t.Fatalf("warn at 1 %% left the level ok: %+v", g)
	}
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"compactd": map[string]any{"gauge": map[string]any{"warn": "high"}}}})
	c.waitNote(0, protocol.MethodWindowShowMessage, func(r json.RawMessage) bool { return strings.Contains(string(r), "ignored") }, 10*time.Second)
	// Refused client settings fall back to the files: the toml's window again.
	c.waitNote(next, methodGauge, windowIs(123456), 10*time.Second)
}
