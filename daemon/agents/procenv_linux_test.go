//go:build linux

package agents

import (
	"encoding/json"
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
	if args, ok := envs.Args("claude", project); !ok || len(args) != 2 || args[0] != agent || args[1] != "30" {
		t.Errorf("command line %q (found %v), want %q", args, ok, []string{agent, "30"})
	}
	if _, ok := envs.Lookup("claude", dir); ok {
		t.Error("a process in another folder was taken for the session's")
	}
	if _, ok := envs.Lookup("codex", project); ok {
		t.Error("another agent's process was taken for codex")
	}
}

// TestParentArgs: a process reads its parent's command line (compactd mcp
// reads the agent's that started it). The test runs itself as the child.
func TestParentArgs(t *testing.T) {
	if os.Getenv("COMPACTD_PARENT_ARGS_CHILD") == "1" {
		json.NewEncoder(os.Stdout).Encode(ParentArgs())
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestParentArgs$")
	cmd.Env = append(os.Environ(), "COMPACTD_PARENT_ARGS_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != len(os.Args) {
		t.Fatalf("the child read its parent's command line as %q, want %q", got, os.Args)
	}
	for i := range got {
		if got[i] != os.Args[i] {
			t.Fatalf("the child read its parent's command line as %q, want %q", got, os.Args)
		}
	}
}
