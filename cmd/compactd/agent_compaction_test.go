package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentCompactionCommands: the CLI side of undoing the agent's own
// compactions — history lists them, restore aN writes the conversation
// before one, compact --before aN compacts that history and compares it
// with the agent's summary.
func TestAgentCompactionCommands(t *testing.T) {
	envs := isolatedEnv(t)
	src, err := os.ReadFile("testdata/claude-two-compact-boundaries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(envs["CLAUDE_CONFIG_DIR"], "projects", "-home-dev-src-ledger")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "8e7d6c5b-4a39-4281-9f0e-1d2c3b4a5968.jsonl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, envs, "history", path)
	if code != 0 || !strings.Contains(stdout, "a1") || !strings.Contains(stdout, "a2") || !strings.Contains(stdout, "the agent's own compact_boundary manual, 174,002 tokens before") {
		t.Fatalf("history: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, envs, "restore", path, "a2")
	if code != 0 || !strings.Contains(stdout, "the conversation before the agent's compaction a2 restored to ") || !strings.Contains(stdout, "resume: ") {
		t.Fatalf("restore a2: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, envs, "compact", "--before", "a2", path)
	if code != 0 || !strings.Contains(stdout, "the agent's a2 (compact_boundary) kept") || !strings.Contains(stdout, "the agent's summary lost, this keeps: ") {
		t.Fatalf("compact --before a2: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, envs, "compact", "--json", "--before", "a1", path)
	var res struct {
		AgentRetention struct {
			Compaction        string            `json:"compaction"`
			AgentLostOursKept []json.RawMessage `json:"agentLostOursKept"`
		} `json:"agentRetention"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.AgentRetention.Compaction != "a1" || len(res.AgentRetention.AgentLostOursKept) == 0 {
		t.Fatalf("compact --json --before a1: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr = runCLI(t, envs, "restore", path, "a3"); code == 0 || !strings.Contains(stderr, "has 2 agent compactions (a1–a2), not a3") {
		t.Fatalf("restore a3: exit %d: %s", code, stderr)
	}
}
