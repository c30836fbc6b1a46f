package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestForkGaugeIsOwnCountPlusOverhead: a Claude Code session whose window
// is nearly all system prompt and tool definitions (the last response
// reported 192,938 tokens for a conversation of a few thousand). Its fork
// carries no usage of the source: `compactd gauge` shows the fork's own
// count plus the overhead measured on the source, as an estimate — within
// 2 % of the compaction's "after" plus that overhead — never the source's
// last reported figure.
func TestForkGaugeIsOwnCountPlusOverhead(t *testing.T) {
	envs := isolatedEnv(t)
	src, err := os.ReadFile("testdata/claude-mcp-overhead.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(envs["CLAUDE_CONFIG_DIR"], "projects", "-home-dev-src-ledger")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "6d5c4b3a-2f1e-4d0c-9b8a-7e6f5d4c3b2a.jsonl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, envs, "compact", "--json", path)
	if code != 0 {
		t.Fatalf("compact: exit %d: %s", code, stderr)
	}
	var res struct {
		ForkPath    string `json:"forkPath"`
		TokensAfter int    `json:"tokensAfter"`
		Overhead    int    `json:"overhead"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("compact --json: %v\n%s", err, stdout)
	}
	if res.Overhead < 180_000 || res.Overhead > 192_938 {
		t.Fatalf("measured overhead %d, want the ~190k the source's usage holds beyond its transcript", res.Overhead)
	}
	code, stdout, stderr = runCLI(t, envs, "gauge", "--json", res.ForkPath)
	if code != 0 {
		t.Fatalf("gauge: exit %d: %s", code, stderr)
	}
	var rows []struct {
		Tokens   int    `json:"tokens"`
		Source   string `json:"source"`
		Overhead int    `json:"overhead"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("gauge --json: %v\n%s", err, stdout)
	}
	g := rows[0]
	if g.Source != "estimate" || g.Overhead != res.Overhead {
		t.Fatalf("fork gauge %+v: want an estimate including the overhead %d", g, res.Overhead)
	}
	if g.Tokens == 192_938 {
		t.Fatal("the fork gauges at the source's last reported usage")
	}
	want := res.TokensAfter + res.Overhead
	if d := math.Abs(float64(g.Tokens-want)) / float64(want); d > 0.02 {
		t.Fatalf("fork gauge %d, want within 2%% of after %d + overhead %d = %d", g.Tokens, res.TokensAfter, res.Overhead, want)
	}
	fork, err := os.ReadFile(res.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(fork, []byte(`"usage"`)) {
		t.Fatal("the fork carries the source's usage")
	}
	// The compacted version restored as a new fork is a fork of the same
	// source: its gauge adds the same overhead.
	code, stdout, stderr = runCLI(t, envs, "restore", "--json", path, "v2")
	var restored struct {
		Path string `json:"path"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &restored) != nil {
		t.Fatalf("restore v2: exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, envs, "gauge", "--json", restored.Path)
	rows = nil
	if code != 0 || json.Unmarshal([]byte(stdout), &rows) != nil || len(rows) != 1 || rows[0].Overhead != res.Overhead || rows[0].Tokens != g.Tokens {
		t.Fatalf("the restored v2 gauges %s (exit %d %s), want the fork's %d with the overhead %d", stdout, code, stderr, g.Tokens, res.Overhead)
	}
}
