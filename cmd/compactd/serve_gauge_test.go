package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/compactd/compactd/compaction/sessiongen"
)

// TestServeGaugeEqualsCLIGauge: the editor's gauge and `compactd gauge`
// show the same figure for the same file, whatever its model: both count
// with the model's encoding and its provider's image pricing.
func TestServeGaugeEqualsCLIGauge(t *testing.T) {
	ws := t.TempDir()
	files := map[string][]byte{"images.jsonl": sessiongen.ClaudeScreenshots("s-img", 6, 1200, 900)}
	for _, name := range []string{"claude-session.jsonl", "codex-session.jsonl", "no-usage.jsonl"} {
		b, err := os.ReadFile(gaugeFixture(name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	var paths []string
	for name, b := range files {
		p := filepath.Join(ws, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}

	out, stderr, code := runGaugeCLI(t, append([]string{"--json"}, paths...)...)
	if code != 0 {
		t.Fatalf("gauge exit %d: %s", code, stderr)
	}
	cli := map[string]gaugeRow{}
	for _, r := range decodeGaugeRows(t, out) {
		cli[r.Path] = r
	}

	editor := serveGauges(t, ws, len(paths))
	for _, p := range paths {
		c, ok := cli[p]
		if !ok {
			t.Fatalf("the CLI has no row for %s", p)
		}
		e, ok := editor[p]
		if !ok {
			t.Fatalf("the server has no gauge for %s", p)
		}
		if e.Tokens != c.Tokens || e.Model != c.Model || e.ContextWindow != c.ContextWindow || e.Source != c.Source {
			t.Errorf("%s: editor %d tokens (%s, %d, %s), CLI %d (%s, %d, %s)", filepath.Base(p),
				e.Tokens, e.Model, e.ContextWindow, e.Source, c.Tokens, c.Model, c.ContextWindow, c.Source)
		}
	}
	// Six 1200×900 screenshots at Anthropic's width×height/750 are 8,640
	// tokens; OpenAI's tiles would make them 4,590.
	if got := cli[filepath.Join(ws, "images.jsonl")].Tokens; got < 8640 {
		t.Errorf("the screenshots count %d tokens: not priced as Anthropic images", got)
	}
}

// editorGauge is what the test reads of a compactd/gauge.
type editorGauge struct {
	URI           string `json:"uri"`
	Tokens        int    `json:"tokens"`
	Model         string `json:"model"`
	ContextWindow int    `json:"contextWindow"`
	Source        string `json:"source"`
}

// serveGauges runs `compactd serve` in-process on ws and returns the
// gauges once the scan is done and want transcripts are indexed.
func serveGauges(t *testing.T, ws string, want int) map[string]editorGauge {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"CLAUDE_CONFIG_DIR": filepath.Join(home, "claude"), "CODEX_HOME": filepath.Join(home, "codex")}
	for k, v := range vars {
		t.Setenv(k, v)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := &env{stdin: inR, stdout: outW, stderr: io.Discard, getenv: func(k string) string { return vars[k] }}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() { done <- run(ctx, e, []string{"serve", "--store", filepath.Join(home, "c.db")}) }()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not exit")
		}
	})

	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{outR, inW}))
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		_ = reply(ctx, nil, nil) // an error here would panic jsonrpc2 v0.10.0 (see lsp harness_test.go)
		return nil
	})
	if _, err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{"processId": os.Getpid(), "rootUri": string(uri.File(ws)), "capabilities": map[string]any{}}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	conn.Notify(ctx, protocol.MethodInitialized, map[string]any{})

	deadline := time.Now().Add(30 * time.Second)
	for {
		var stats struct {
			ScanDone bool `json:"scanDone"`
		}
		var gauges []editorGauge
		if _, err := conn.Call(ctx, "compactd/stats", nil, &stats); err != nil {
			t.Fatalf("compactd/stats: %v", err)
		}
		if _, err := conn.Call(ctx, "compactd/gauges", nil, &gauges); err != nil {
			t.Fatalf("compactd/gauges: %v", err)
		}
		if stats.ScanDone && len(gauges) == want {
			out := map[string]editorGauge{}
			for _, g := range gauges {
				out[uri.URI(g.URI).Filename()] = g
			}
			return out
		}
		if time.Now().After(deadline) {
			b, _ := json.Marshal(gauges)
			t.Fatalf("after 30 s: scan done %v, %d of %d gauges: %s", stats.ScanDone, len(gauges), want, strings.TrimSpace(string(b)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
