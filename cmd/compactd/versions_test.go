package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/daemon/store"
)

// runCLI runs compactd in-process with an isolated environment.
func runCLI(t *testing.T, envs map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return envs[k] }}
	code := run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func isolatedEnv(t *testing.T) map[string]string {
	root := t.TempDir()
	m := map[string]string{}
	for _, k := range []string{"HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"} {
		m[k] = filepath.Join(root, strings.ToLower(k))
		t.Setenv(k, m[k])
	}
	m["COMPACTD_STORE"] = filepath.Join(root, "state", "compactd.db")
	t.Setenv("COMPACTD_STORE", m["COMPACTD_STORE"])
	return m
}

func TestCompactRejectsUnknownStrategy(t *testing.T) {
	envs := isolatedEnv(t)
	code, _, stderr := runCLI(t, envs, "compact", "some.jsonl", "--strategy", "strip-reasoning", "--strategy", "shrink-everything")
	if code != 2 || !strings.Contains(stderr, `unknown strategy "shrink-everything"`) || !strings.Contains(stderr, "turn-window") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("want one sentence, got %q", stderr)
	}
}

// seed records two versions of a transcript directly in the store, as a
// compaction would, so the version commands can be driven end to end.
func seed(t *testing.T, envs map[string]string) (path string, v1, v2 []byte) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path = filepath.Join(dir, "chat.json")
	v1 = []byte(`[{"role":"user","content":"first"},{"role":"assistant","content":"one"},{"role":"user","content":"second"},{"role":"assistant","content":"two"}]` + "\n")
	v2 = []byte(`[{"role":"user","content":"second"},{"role":"assistant","content":"two"}]` + "\n")
	os.WriteFile(path, v2, 0o644)
	s, err := store.Open(ctx, envs["COMPACTD_STORE"])
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _ := s.EnsureConversation(ctx, store.Conversation{Key: "path:" + path, Format: "anthropic-messages", SourcePath: path})
	a, _, err := s.RecordVersion(ctx, store.NewVersion{Conversation: c, Kind: store.KindSource, Format: "anthropic-messages", SourcePath: path, Content: v1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.RecordVersion(ctx, store.NewVersion{Conversation: c, Kind: store.KindCompact, ParentID: a.ID, Format: "anthropic-messages",
		SourcePath: path, ForkPath: path, Pipeline: []string{"turn-window"}, TokensBefore: 40, TokensAfter: 20, Content: v2}); err != nil {
		t.Fatal(err)
	}
	return path, v1, v2
}

func TestVersionCommands(t *testing.T) {
	envs := isolatedEnv(t)
	path, v1, _ := seed(t, envs)

	code, out, stderr := runCLI(t, envs, "history", path)
	if code != 0 || !strings.Contains(out, "└─ v1") || !strings.Contains(out, "   └─ v2   compact") || !strings.Contains(out, "40 → 20 tokens") {
		t.Errorf("history: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, envs, "history", "--json", path)
	var h struct {
		Versions []struct{ Version, Parent string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil || len(h.Versions) != 2 || h.Versions[1].Parent != "v1" {
		t.Errorf("history --json: exit %d\n%s", code, out)
	}

	code, out, stderr = runCLI(t, envs, "diff", path, "v1", "v2")
	if code != 0 || !strings.Contains(out, "- user: first") || !strings.Contains(out, "  user: second") {
		t.Errorf("diff: exit %d\n%s%s", code, out, stderr)
	}

	code, _, stderr = runCLI(t, envs, "restore", path, "v5")
	if code != 1 || !strings.Contains(stderr, "known versions: v1, v2") {
		t.Errorf("restore unknown: exit %d, %s", code, stderr)
	}
	code, out, stderr = runCLI(t, envs, "restore", path, "v1", "--in-place")
	if code != 0 {
		t.Fatalf("restore --in-place: exit %d %s", code, stderr)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, v1) {
		t.Errorf("restored file differs from v1:\n%s", got)
	}

	code, out, _ = runCLI(t, envs, "doctor")
	if code != 0 || !strings.Contains(out, "integrity: ok") || !strings.Contains(out, "1 conversations, 2 versions") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
	os.Remove(path)
	code, out, _ = runCLI(t, envs, "doctor")
	if code != 0 || !strings.Contains(out, "vanished source: "+path) {
		t.Errorf("doctor after deleting the source: exit %d\n%s", code, out)
	}
}

func TestCorruptStoreIsRefused(t *testing.T) {
	envs := isolatedEnv(t)
	os.MkdirAll(filepath.Dir(envs["COMPACTD_STORE"]), 0o700)
	junk := []byte("not a database at all, but somebody's notes")
	os.WriteFile(envs["COMPACTD_STORE"], junk, 0o600)
	code, _, stderr := runCLI(t, envs, "doctor")
	if code != 1 || !strings.Contains(stderr, envs["COMPACTD_STORE"]) || !strings.Contains(stderr, "not a compactd store") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(envs["COMPACTD_STORE"]); !bytes.Equal(got, junk) {
		t.Error("the corrupt store file was overwritten")
	}
}
