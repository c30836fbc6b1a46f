package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/sessiongen"
)

// writeSession writes a generated Claude Code session at dir/name.
func writeSession(t *testing.T, dir, name string, seed uint64, turns int) (string, []byte) {
	t.Helper()
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, Turns: turns})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, data
}

type compactJSON struct {
	Version    string
	ForkPath   string
	Summarizer string
	Notes      []string
	Steps      []struct{ Strategy string }
}

func compactResult(t *testing.T, out string) compactJSON {
	t.Helper()
	var res compactJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("compact --json output is not JSON: %v\n%s", err, out)
	}
	return res
}

func stepNames(res compactJSON) string {
	var names []string
	for _, s := range res.Steps {
		names = append(names, s.Strategy)
	}
	return strings.Join(names, ",")
}

func TestCompactUsesWorkspaceAndUserConfig(t *testing.T) {
	envs := isolatedEnv(t)
	t.Chdir(t.TempDir()) // no .compactd.toml above the working directory
	ws := t.TempDir()
	path, _ := writeSession(t, filepath.Join(ws, "logs", "deep"), "chat.jsonl", 4, 8)
	// The user config picks one strategy; the workspace overrides it.
	os.MkdirAll(filepath.Join(envs["XDG_CONFIG_HOME"], "compactd"), 0o700)
	os.WriteFile(filepath.Join(envs["XDG_CONFIG_HOME"], "compactd", "config.toml"), []byte("[compact]\nstrategies = [\"strip-attachments\"]\n"), 0o600)

	code, out, stderr := runCLI(t, envs, "compact", "--json", "--dry-run", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := stepNames(compactResult(t, out)); !strings.HasPrefix(got, "strip-attachments") || strings.Contains(got, "dedup-tools") {
		t.Errorf("with the user config: steps %s; want strip-attachments only", got)
	}

	os.WriteFile(filepath.Join(ws, ".compactd.toml"), []byte("[compact]\nstrategies = [\"strip-reasoning\"]\n"), 0o644)
	code, out, stderr = runCLI(t, envs, "compact", "--json", "--dry-run", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := stepNames(compactResult(t, out)); !strings.HasPrefix(got, "strip-reasoning") || strings.Contains(got, "strip-attachments") {
		t.Errorf("with the workspace config: steps %s; want strip-reasoning (found from the transcript's folder upward)", got)
	}

	// A flag beats both.
	code, out, _ = runCLI(t, envs, "compact", "--json", "--dry-run", "--strategy", "dedup-tools", path)
	if got := stepNames(compactResult(t, out)); code != 0 || !strings.HasPrefix(got, "dedup-tools") || strings.Contains(got, "strip-reasoning") {
		t.Errorf("with --strategy: exit %d, steps %s", code, got)
	}
}

func TestCompactNotesFromConfigReachOutput(t *testing.T) {
	envs := isolatedEnv(t)
	t.Chdir(t.TempDir()) // no .compactd.toml above the working directory
	ws := t.TempDir()
	path, _ := writeSession(t, filepath.Join(ws, "logs"), "chat.jsonl", 6, 12)
	os.WriteFile(filepath.Join(ws, ".compactd.toml"), []byte(`
[gauge]
context_window = 8000

[summarize]
provider = "notes"
notes_file = "NOTES.md"
`), 0o644)
	want := "notes file " + filepath.Join(ws, "NOTES.md") + " is empty or missing; summarizing skipped"

	code, out, stderr := runCLI(t, envs, "compact", path)
	if code != 0 || !strings.Contains(out, "note: "+want) {
		t.Errorf("text output: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, envs, "compact", "--json", path)
	res := compactResult(t, out)
	if code != 0 || len(res.Notes) == 0 || res.Notes[0] != want {
		t.Errorf("JSON notes = %q; want first %q", res.Notes, want)
	}

	// With notes present they become the summary.
	os.WriteFile(filepath.Join(ws, "NOTES.md"), []byte("- the inventory service moves to sqlc\n"), 0o644)
	code, out, _ = runCLI(t, envs, "compact", "--json", path)
	res = compactResult(t, out)
	fork, _ := os.ReadFile(res.ForkPath)
	if code != 0 || res.Summarizer != "notes" || !strings.Contains(string(fork), "moves to sqlc") {
		t.Errorf("with notes: exit %d, summarizer %q, notes %q", code, res.Summarizer, res.Notes)
	}
}

func TestCompactInvalidConfig(t *testing.T) {
	for _, tc := range []struct{ name, toml, want string }{
		{"bad value", "[compact]\nkeep_last = -2\n", "compact.keep_last"},
		{"unknown key", "[compact]\nkeep_lats = 2\n", "keep_lats"},
		{"bad provider", "[summarize]\nprovider = \"gpt\"\n", "summarize.provider"},
		{"not toml", "[compact\n", ".compactd.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			envs := isolatedEnv(t)
			t.Chdir(t.TempDir())
			ws := t.TempDir()
			path, orig := writeSession(t, ws, "chat.jsonl", 1, 3)
			os.WriteFile(filepath.Join(ws, ".compactd.toml"), []byte(tc.toml), 0o644)
			code, out, stderr := runCLI(t, envs, "compact", path)
			if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, filepath.Join(ws, ".compactd.toml")) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %s and the file", code, stderr, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 || out != "" {
				t.Errorf("want one line on stderr and nothing on stdout, got %q / %q", stderr, out)
			}
			if got, _ := os.ReadFile(path); string(got) != string(orig) {
				t.Error("the transcript changed")
			}
			if entries, _ := os.ReadDir(ws); len(entries) != 2 {
				t.Errorf("files written despite the invalid config: %d entries", len(entries))
			}
		})
	}
}
