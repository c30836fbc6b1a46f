//go:build linux

package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestProcessEnv: the environment of an agent's process running in the
// session's folder is read from /proc, and only that process's.
func TestProcessEnv(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{project, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A program named like the agent: a copy of sleep called "claude".
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(bin, "claude")
	if err := os.WriteFile(agent, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(agent, "30")
	cmd.Dir = project
	cmd.Env = []string{"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=55", "CLAUDE_CODE_AUTO_COMPACT_WINDOW=120000"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	envs := &ProcessEnvs{Commands: []string{"claude", "codex"}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		envs.Wait(10 * time.Second) // a fresh scan: the process just started
		env, ok := envs.Lookup("claude", project)
		if ok {
			if env["CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"] != "55" || env["CLAUDE_CODE_AUTO_COMPACT_WINDOW"] != "120000" {
				t.Fatalf("environment %v", env)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent's process was not found in its folder")
		}
	}
	if _, ok := envs.Lookup("claude", dir); ok {
		t.Error("a process in another folder was taken for the session's")
	}
	if _, ok := envs.Lookup("codex", project); ok {
		t.Error("another agent's process was taken for codex")
	}
}
