package daemon

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/claude"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/platform"
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

// TestWorkspaceFileAppliesWhenItChanges: editing a watched folder's
// .compactd.toml (real fsnotify events: written in place, then replaced by
// rename as editors save, then removed) re-derives the gauge of the
// transcripts under it at once, without re-reading them; a file that no
// longer validates is reported and leaves out only what it got wrong.
func TestWorkspaceFileAppliesWhenItChanges(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	path := filepath.Join(ws, "s.jsonl")
	if err := os.WriteFile(path, sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, Turns: 6, Cwd: ws}), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, config.WorkspaceFile)
	windowTOML := func(n int) []byte { return []byte(fmt.Sprintf("[gauge]\ncontext_window = %d\n", n)) }
	if err := os.WriteFile(file, windowTOML(300_000), 0o644); err != nil {
		t.Fatal(err)
	}
	reported := make(chan error, 4)
	d, rec := startDaemon(t, Options{Folders: []string{ws}, Config: config.Layers{Files: true},
		OnConfigError: func(err error) { reported <- err }})
	windowIs := func(n int) func(index.Event) bool {
		return func(ev index.Event) bool { return ev.Path == path && ev.Snapshot != nil && ev.Snapshot.Window == n }
	}
	rec.wait(t, windowIs(300_000))
	read := d.Stats().BytesRead

	// Written in place.
	if err := os.WriteFile(file, windowTOML(400_000), 0o644); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, windowIs(400_000))
	// Saved as editors do: a new file renamed over it (on Windows, which
	// replaces no file a program has open, retried while the daemon reads
	// the last version, as editors retry there).
	tmp := filepath.Join(ws, ".compactd.toml.swp")
	if err := os.WriteFile(tmp, windowTOML(500_000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := platform.Replace(tmp, file); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, windowIs(500_000))
	// A value it refuses: reported, the rest of the configuration applies.
	if err := os.WriteFile(file, []byte("[gauge]\ncontext_window = 600000\nwarn = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-reported:
		if !strings.Contains(err.Error(), "warn") {
			t.Errorf("the refused setting is not named: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a .compactd.toml that does not validate was not reported")
	}
	// Removed: back to what the transcript says of its model.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, func(ev index.Event) bool {
		return ev.Path == path && ev.Snapshot != nil && ev.Snapshot.Window != 500_000 && ev.Snapshot.Window != 600_000 && ev.Snapshot.Window > 0
	})
	if d.Stats().BytesRead != read {
		t.Errorf("a configuration change re-read the transcript (%d bytes)", d.Stats().BytesRead-read)
	}
}
