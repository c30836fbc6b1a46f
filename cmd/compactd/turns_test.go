package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// forkTurns compacts path through the CLI and returns the human prompts of
// the fork.
func forkTurns(t *testing.T, envs map[string]string, args ...string) []string {
	t.Helper()
	code, stdout, stderr := runCLI(t, envs, append([]string{"compact", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("compact %v: exit %d: %s", args, code, stderr)
	}
	var res struct {
		ForkPath string `json:"forkPath"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := format.Detect(res.ForkPath, data)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, m := range tr.Messages {
		if m.Origin == transcript.OriginHuman && transcript.StartsTurn(&m) {
			prompts = append(prompts, m.Parts[0].Text)
		}
	}
	return prompts
}

// TestTurnWindowN: how many turns turn-window keeps is a setting — the
// --turns flag, [compact] turns in the configuration (which the editors'
// compactd.compact.turns setting maps onto) — not a fixed 10.
func TestTurnWindowN(t *testing.T) {
	envs := isolatedEnv(t)
	src, err := os.ReadFile("testdata/claude-31-turns.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(envs["CLAUDE_CONFIG_DIR"], "projects", "-home-dev-src-ledger")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "2f6e9a14-8b3c-4d7e-a15f-0c9d8e7b6a52.jsonl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// The protected first prompt stays beside the kept turns.
	if got := forkTurns(t, envs, "--strategy", "turn-window", "--turns", "4", path); len(got) != 1+4 {
		t.Fatalf("--turns 4: the fork's prompts are %q, want the first and the last 4", got)
	}
	if err := os.WriteFile(filepath.Join(dir, ".compactd.toml"), []byte("[compact]\nturns = 6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := forkTurns(t, envs, "--strategy", "turn-window", path); len(got) != 1+6 {
		t.Fatalf("[compact] turns = 6: the fork's prompts are %q, want the first and the last 6", got)
	}
}

// TestGaugeCountsTheTurnsAsked is issue 23's item 7: the preamble an agent
// injects before the first prompt (Codex's base instructions, developer
// message, environment context and AGENTS.md; an OpenAI chat's system
// message) is not a turn the user asked for, nor is the summary an agent's
// own compaction leaves.
func TestGaugeCountsTheTurnsAsked(t *testing.T) {
	envs := isolatedEnv(t)
	for file, want := range map[string]int{
		"../../compaction/format/codex/testdata/mixed.jsonl":              2,
		"../../compaction/format/codex/testdata/v0.169-world-state.jsonl": 4,
		"../../compaction/format/codex/testdata/v0.169-compacted.jsonl":   2,
		"../../compaction/format/openaichat/testdata/traj.json":           2,
		"../../compaction/format/openaichat/testdata/bare.json":           1,
	} {
		code, stdout, stderr := runCLI(t, envs, "gauge", "--json", file)
		if code != 0 {
			t.Fatalf("gauge %s: exit %d: %s", file, code, stderr)
		}
		var rows []struct {
			Turns int `json:"turns"`
		}
		if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("gauge %s: %v %s", file, err, stdout)
		}
		if rows[0].Turns != want {
			t.Errorf("%s: %d turns, the user asked %d", filepath.Base(file), rows[0].Turns, want)
		}
	}
}
