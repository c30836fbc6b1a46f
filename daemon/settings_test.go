package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/claude"
	"github.com/compactd/compactd/daemon/config"
)

// settingsJSON is the editor's settings as a client sends them.
func settingsJSON(t testing.TB, settings map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// setSettings replaces the editor's settings, failing on any the
// configuration refuses.
func setSettings(t testing.TB, d *Daemon, settings map[string]any) {
	t.Helper()
	if err := d.SetClientSettings(settingsJSON(t, settings)); err != nil {
		t.Fatal(err)
	}
}

// defaultSettings is the configuration of a daemon given none.
func defaultSettings(string) *resolved { return newResolved(config.Default()) }

// TestEachTranscriptGetsItsNearestWorkspaceFile: with two workspace
// folders, each transcript is compacted under the .compactd.toml nearest
// above it — a subfolder's own file first — and an agent's session of a
// folder (kept outside it, under ~/.claude/projects) under that folder's;
// the editor's settings apply to all of them.
func TestEachTranscriptGetsItsNearestWorkspaceFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	a, b, home := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(dir, toml string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, config.WorkspaceFile), []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "[compact]\nkeep_last = 0\n")
	write(b, "[compact]\nkeep_last = 3\n")
	write(filepath.Join(b, "sub"), "[compact]\nturns = 7\n")
	d, err := New(Options{Folders: []string{a, b}, Env: agents.Env{Home: home},
		Config: config.Layers{Files: true, Client: settingsJSON(t, map[string]any{"compact": map[string]any{"budget": 1234}})}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	claudeOfB := filepath.Join(claude.ProjectDir(agents.Env{Home: home}, b), "s.jsonl")
	for path, want := range map[string]config.Compact{
		filepath.Join(a, "s.jsonl"):        {KeepLast: 0},
		filepath.Join(b, "s.jsonl"):        {KeepLast: 3},
		filepath.Join(b, "sub", "s.jsonl"): {KeepLast: 1, Turns: 7}, // its own file: the default keep_last
		claudeOfB:                          {KeepLast: 3},
	} {
		got := d.Config(path).Compact
		if got.KeepLast != want.KeepLast || got.Turns != want.Turns || got.Budget != 1234 {
			t.Errorf("%s: keep_last %d turns %d budget %d, want %d, %d, 1234", path, got.KeepLast, got.Turns, got.Budget, want.KeepLast, want.Turns)
		}
	}
}
