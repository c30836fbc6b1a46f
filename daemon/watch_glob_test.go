package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
)

// writeTranscript writes a small Claude Code session at path.
func writeTranscript(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, sessiongen.ClaudeCode(sessiongen.Options{Seed: 2, Turns: 2, Cwd: filepath.Dir(path)}), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startWith starts a daemon on ws with the editor's settings.
func startWith(t *testing.T, ws string, settings map[string]any) (*Daemon, *recorder) {
	t.Helper()
	return startDaemon(t, Options{Folders: []string{ws}, Config: config.Layers{Files: true, Client: settingsJSON(t, settings)}})
}

// TestGlobsMatchAsDoublestar: [watch] globs are doublestar patterns: "**"
// matches any number of folders, none included, in the cold scan and in
// folders created while the daemon runs; "*" stays within one folder.
func TestGlobsMatchAsDoublestar(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	h := t.TempDir()
	deep := filepath.Join(h, "a", "b", "sessions", "s1.jsonl")
	zero := filepath.Join(h, "sessions", "s2.jsonl")
	elsewhere := filepath.Join(h, "a", "notes", "s3.jsonl")
	below := filepath.Join(h, "a", "sessions", "sub", "s4.jsonl")
	for _, p := range []string{deep, zero, elsewhere, below} {
		writeTranscript(t, p)
	}
	glob := filepath.ToSlash(h) + "/**/sessions/*.jsonl"
	d, rec := startWith(t, t.TempDir(), map[string]any{"watch": map[string]any{"globs": []string{glob}}})
	for p, want := range map[string]bool{deep: true, zero: true, elsewhere: false, below: false} {
		rec.waitScanned(t, d, p, want)
	}
	live := filepath.Join(h, "x", "y", "z", "sessions", "s5.jsonl")
	writeTranscript(t, live)
	rec.wait(t, func(ev index.Event) bool { return ev.Path == live && ev.Snapshot != nil })
}

// TestWatchExclude: [watch] exclude drops what its patterns match from
// the workspace, the agents' folders and the globs alike: a relative
// pattern below the watched folder, an absolute one anywhere.
func TestWatchExclude(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws, h := t.TempDir(), t.TempDir()
	kept := filepath.Join(ws, "keep.jsonl")
	archived := filepath.Join(ws, "archive", "2025", "old.jsonl")
	globbed := filepath.Join(h, "sessions", "g.jsonl")
	dropped := filepath.Join(h, "private", "sessions", "p.jsonl")
	for _, p := range []string{kept, archived, globbed, dropped} {
		writeTranscript(t, p)
	}
	toml := "[watch]\nexclude = [\"**/archive/**\", \"" + filepath.ToSlash(filepath.Join(h, "private")) + "/**\"]\n"
	if err := os.WriteFile(filepath.Join(ws, config.WorkspaceFile), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	d, rec := startWith(t, ws, map[string]any{"watch": map[string]any{"globs": []string{filepath.ToSlash(h) + "/**/*.jsonl"}}})
	for p, want := range map[string]bool{kept: true, archived: false, globbed: true, dropped: false} {
		rec.waitScanned(t, d, p, want)
	}
	// A file created later in an excluded folder stays unwatched; one
	// beside it outside is seen (events arrive in order per folder).
	writeTranscript(t, filepath.Join(ws, "archive", "new.jsonl"))
	fresh := filepath.Join(ws, "fresh.jsonl")
	writeTranscript(t, fresh)
	rec.wait(t, func(ev index.Event) bool { return ev.Path == fresh && ev.Snapshot != nil })
	if d.Snapshot(filepath.Join(ws, "archive", "new.jsonl")) != nil {
		t.Error("a transcript created in an excluded folder is tracked")
	}
}

// waitScanned checks, after the cold scan, whether p is tracked.
func (r *recorder) waitScanned(t *testing.T, d *Daemon, p string, want bool) {
	t.Helper()
	if want {
		r.wait(t, func(ev index.Event) bool { return ev.Path == p && ev.Snapshot != nil })
		return
	}
	if d.Snapshot(p) != nil {
		t.Errorf("%s is tracked; the patterns exclude it", p)
	}
}
