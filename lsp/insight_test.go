package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/platform/platformtest"
)

// openFixture copies a real-shaped fixture into a workspace, opens it and
// returns its first gauge.
func openFixture(t *testing.T, c *client, ws, name string) (protocol.DocumentURI, Gauge, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ws, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	u := pathURI(path)
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "jsonl", Version: 1, Text: string(data)}})
	raw, _ := c.waitNote(0, methodGauge, func(r json.RawMessage) bool {
		var g Gauge
		return json.Unmarshal(r, &g) == nil && g.URI == u && g.Breakdown != nil
	}, 10*time.Second)
	var g Gauge
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return u, g, string(data)
}

// The compactd/gauge payload of the 2.1.92 case: the breakdown sums to
// the gauge, names what lies outside, says compaction cannot help; the
// cost is there; the one-span estimate error is not. The hover shows the
// same, and compactd/context the turns and the dry run.
func TestGaugePayloadBreakdownHoverAndContext(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	c := startServer(t, Options{})
	c.initialize(ws, nil)
	u, g, data := openFixture(t, c, ws, "claude-2.1.92-outside.jsonl")
	b := g.Breakdown
	if g.Tokens != 194_791 || b.Sum() != g.Tokens || b.Parts[0].Category != gauge.CategoryOutside || b.Outside.Tokens != 191_537 {
		t.Fatalf("gauge %d, breakdown %+v", g.Tokens, b)
	}
	if !strings.HasPrefix(g.Reach, "98 % of what the model reads") || g.EstimateError != nil || g.EstimateErrorNote == "" {
		t.Fatalf("reach %q, error %v (%q)", g.Reach, g.EstimateError, g.EstimateErrorNote)
	}
	if g.Cost == nil || g.Cost.Responses != 3 || g.Cost.Session <= 0.14 || g.Cost.Session >= 0.141 {
		t.Fatalf("cost %+v", g.Cost)
	}

	var hover protocol.Hover
	lines := strings.Count(data, "\n")
	if err := c.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: uint32(lines - 1)}}}, &hover); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| outside the transcript — system prompt, tool and MCP definitions, memory files (CLAUDE.md) | 191,537 | 95.8 % |",
		"| tool results (mcp__github__get_issue 1.4k) | 1,437 | 0.7 % |",
		"Outside the transcript, MCP servers: github (4 tools), linear (2 tools), sentry (1 tool)",
		"98 % of what the model reads (191,537 of 194,791 tokens) is outside the transcript",
		"Estimate error not shown: not enough usage points",
		"Cost at claude-sonnet-4 list prices of", "session so far **$0.141** (3 responses)", "next turn **$0.058**",
	} {
		if !strings.Contains(hover.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover.Contents.Value)
		}
	}

	var res ContextResult
	if err := c.call(methodContext, ContextParams{URI: u, DryRun: true}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Turns) != 2 || res.DryRun == nil || res.DryRun.TokensBefore != 3_254 || res.DryRun.TokensAfter != 3_254 || !strings.HasPrefix(res.DryRun.Why, "98 % of what the model reads") {
		t.Fatalf("context %+v dry run %+v (%s)", res.Turns, res.DryRun, res.DryRunError)
	}
	if res.Gauge.Breakdown == nil || res.Turns[1].Cumulative != 3_254 {
		t.Fatalf("context gauge %+v turns %+v", res.Gauge, res.Turns)
	}
}

// The 2.1.330 case's dry run takes 643 tokens from its first turn (650 less the
// recall handles its placeholders name).
func TestContextDryRunByTurn(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	c := startServer(t, Options{})
	c.initialize(ws, map[string]any{"compact": map[string]any{"keepLast": 1}})
	u, g, _ := openFixture(t, c, ws, "claude-2.1.330-24k.jsonl")
	var res ContextResult
	if err := c.call(methodContext, ContextParams{URI: u, DryRun: true}, &res); err != nil {
		t.Fatal(err)
	}
	if res.DryRun == nil || res.DryRun.TokensBefore-res.DryRun.TokensAfter != 643 || res.Turns[0].Removed != 643 || res.Turns[1].Removed != 0 {
		t.Fatalf("dry run %+v turns %+v (%s)", res.DryRun, res.Turns, res.DryRunError)
	}
	if res.DryRun.After != g.Tokens-643 || res.DryRun.SavingPerTurn == nil || res.DryRun.Why == "" {
		t.Fatalf("dry run %+v", res.DryRun)
	}
	// Without dryRun the turns come at once, nothing removed.
	var plain ContextResult
	if err := c.call(methodContext, ContextParams{URI: u}, &plain); err != nil || plain.DryRun != nil || plain.Turns[0].Removed != 0 {
		t.Fatalf("no dry run asked: %+v %v", plain, err)
	}
}

// compactd/health names the version, the store (and whether its folder is
// writable) and where the server looks for transcripts.
func TestHealth(t *testing.T) {
	home := testEnv(t)
	ws := t.TempDir()
	storeDir := filepath.Join(home, "store")
	os.MkdirAll(storeDir, 0o700)
	c := startServer(t, Options{Store: StoreStatus{Path: filepath.Join(storeDir, "compactd.db")}})
	c.initialize(ws, nil)
	var h Health
	if err := c.call(methodHealth, nil, &h); err != nil {
		t.Fatal(err)
	}
	if h.Version != Version || !h.Store.Writable || h.Store.Error != "" || len(h.Folders) != 1 {
		t.Fatalf("health %+v", h)
	}
	kinds := map[string]bool{}
	for _, w := range h.Watching {
		kinds[w.Kind] = true
		if w.Kind == "workspace" && (!w.Exists || w.Dir != h.Folders[0]) {
			t.Errorf("workspace root %+v", w)
		}
	}
	if !kinds["workspace"] || !kinds["claude"] || !kinds["codex"] {
		t.Fatalf("watching %+v", h.Watching)
	}
	os.Chmod(storeDir, 0o500)
	defer os.Chmod(storeDir, 0o700)
	// Root writes anywhere; a Windows folder's read-only attribute stops no write.
	if os.Geteuid() != 0 && platformtest.ReadOnlyFolders {
		if err := c.call(methodHealth, nil, &h); err != nil || h.Store.Writable {
			t.Fatalf("a read-only store folder reported writable: %+v %v", h.Store, err)
		}
	}
}
