package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/index"

	"github.com/klauspost/compress/zstd"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/sourcefile"
)

func zstdBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

// warnings is a log handler keeping what the daemon logs at warn level or
// above: a swap is routine and must not alarm anyone.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler           { return w }
func (w *warnings) WithGroup(string) slog.Handler                { return w }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool { msg += fmt.Sprintf(" %s=%v", a.Key, a.Value); return true })
	w.mu.Lock()
	w.msgs = append(w.msgs, msg)
	w.mu.Unlock()
	return nil
}

func (w *warnings) none(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.msgs) > 0 {
		t.Errorf("logged at warn level:\n%s", strings.Join(w.msgs, "\n"))
	}
}

// codexDaemon starts a daemon on workspace ws whose CODEX_HOME is under
// home, and returns it with the day folder rollouts go to.
func codexDaemon(t *testing.T, ws, home string, logged *warnings, before func(day string)) (*Daemon, string) {
	t.Helper()
	codexHome := filepath.Join(home, ".codex")
	day := filepath.Join(codexHome, "sessions", "2026", "11", "22")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(day)
	}
	d, _ := startDaemon(t, Options{Folders: []string{ws}, Env: agents.Env{Home: home, Vars: map[string]string{"CODEX_HOME": codexHome}}, Logger: slog.New(logged)})
	return d, day
}

// waitGauges waits until the daemon shows exactly the transcripts in want.
func waitGauges(t *testing.T, d *Daemon, want ...string) map[string]*index.Snapshot {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := map[string]*index.Snapshot{}
		for _, s := range d.Snapshots() {
			got[s.Path] = s
		}
		ok := len(got) == len(want)
		for _, p := range want {
			ok = ok && got[p] != nil
		}
		if ok {
			return got
		}
		if time.Now().After(deadline) {
			var paths []string
			for p := range got {
				paths = append(paths, filepath.Base(p))
			}
			t.Fatalf("gauges for %v, want exactly %d of them", paths, len(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func rolloutName(day string, n int) string {
	return filepath.Join(day, fmt.Sprintf("rollout-2026-11-22T09-00-%02d-0196a0b1-aaaa-7bbb-8ccc-%012d.jsonl", n, n))
}

// TestCompressedRollouts: Codex recompresses finished rollouts to
// rollout-….jsonl.zst. The daemon reads them (same gauge as the plain
// file), shows the plain file while both exist, and follows the swap to
// exactly one gauge for the session.
func TestCompressedRollouts(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	logged := &warnings{}
	var old, both string
	oldData := sessiongen.Codex(sessiongen.Options{Seed: 4, Turns: 4, Cwd: ws})
	d, day := codexDaemon(t, ws, home, logged, func(day string) {
		// An old session, compressed before the daemon started, and one
		// caught mid-swap: both files on disk.
		old, both = rolloutName(day, 2), rolloutName(day, 5)
		os.WriteFile(old+".zst", zstdBytes(t, oldData), 0o644)
		bothData := sessiongen.Codex(sessiongen.Options{Seed: 6, Turns: 3, Cwd: ws})
		os.WriteFile(both, bothData, 0o644)
		os.WriteFile(both+".zst", zstdBytes(t, bothData), 0o644)
	})
	got := waitGauges(t, d, old+".zst", both)
	if s := got[old+".zst"]; s.Format != "codex" || s.Tokens == 0 || s.Messages == 0 {
		t.Fatalf("compressed rollout: %+v", s)
	}

	// The live session: plain while Codex writes it.
	data := sessiongen.Codex(sessiongen.Options{Seed: 3, Turns: 6, Cwd: ws})
	plain := rolloutName(day, 1)
	compressed := plain + ".zst"
	os.WriteFile(plain, data, 0o644)
	got = waitGauges(t, d, old+".zst", both, plain)
	live := got[plain]

	// Codex writes the compressed twin, then removes the plain file.
	os.WriteFile(compressed, zstdBytes(t, data), 0o644)
	// Whatever the twin's events do, reading it leaves the plain file shown.
	if _, err := d.Refresh(compressed); err != nil {
		t.Fatal(err)
	}
	waitGauges(t, d, old+".zst", both, plain)
	os.Remove(plain)
	got = waitGauges(t, d, old+".zst", both, compressed)
	if s := got[compressed]; s.Tokens != live.Tokens || s.Messages != live.Messages || s.Model != live.Model {
		t.Fatalf("after the swap: %d tokens, %d messages (%s); the plain file had %d, %d (%s)",
			s.Tokens, s.Messages, s.Model, live.Tokens, live.Messages, live.Model)
	}

	// The plain file comes back (a resumed session): it wins again.
	os.WriteFile(plain, data, 0o644)
	waitGauges(t, d, old+".zst", both, plain)
	logged.none(t)
}

// TestCompressedSwapWhilePathVanishes: the swap in the other order. The
// plain rollout goes first, then the .zst is written in pieces; the
// half-written stream is waited out quietly and the session ends with one
// gauge, the plain file's.
func TestCompressedSwapWhilePathVanishes(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	logged := &warnings{}
	d, day := codexDaemon(t, ws, home, logged, nil)
	data := sessiongen.Codex(sessiongen.Options{Seed: 7, Turns: 8, Cwd: ws})
	plain := rolloutName(day, 1)
	os.WriteFile(plain, data, 0o644)
	live := waitGauges(t, d, plain)[plain]

	os.Remove(plain)
	waitGauges(t, d)
	z := zstdBytes(t, data)
	f, err := os.Create(plain + ".zst")
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range [][]byte{z[:len(z)/3], z[len(z)/3 : 2*len(z)/3], z[2*len(z)/3:]} {
		if _, err := f.Write(part); err != nil {
			t.Fatal(err)
		}
		// Each piece is read, as it may be while Codex writes: a stream
		// that ends early is waited out, never an error to warn about.
		if _, err := d.Refresh(plain + ".zst"); err != nil && !errors.Is(err, sourcefile.ErrTruncated) {
			t.Fatalf("reading a partly written stream: %v", err)
		}
	}
	f.Close()
	s := waitGauges(t, d, plain+".zst")[plain+".zst"]
	if s.Tokens != live.Tokens || s.Messages != live.Messages {
		t.Fatalf("after the swap: %d tokens, %d messages; the plain file had %d, %d", s.Tokens, s.Messages, live.Tokens, live.Messages)
	}
	logged.none(t)
}

// TestCompressedRolloutIsNeverTailed: a compressed rollout is re-read only
// when its file changes (size, mtime, inode), and then read whole.
func TestCompressedRolloutIsNeverTailed(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	logged := &warnings{}
	var path string
	d, _ := codexDaemon(t, ws, home, logged, func(day string) {
		path = rolloutName(day, 1) + ".zst"
		os.WriteFile(path, zstdBytes(t, sessiongen.Codex(sessiongen.Options{Seed: 8, Turns: 4, Cwd: ws})), 0o644)
	})
	before := waitGauges(t, d, path)[path]
	read := d.Stats().BytesRead
	if _, err := d.Refresh(path); err != nil {
		t.Fatal(err)
	}
	if got := d.Stats().BytesRead; got != read {
		t.Fatalf("an unchanged compressed rollout was read again: %d bytes", got-read)
	}

	// Codex rewrites it (a longer session) through a rename.
	longer := sessiongen.Codex(sessiongen.Options{Seed: 8, Turns: 12, Cwd: ws})
	tmp := filepath.Join(filepath.Dir(path), ".rollout.tmp")
	os.WriteFile(tmp, zstdBytes(t, longer), 0o644)
	os.Rename(tmp, path)
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := waitGauges(t, d, path)[path]
		if s.Messages > before.Messages && s.Tokens > before.Tokens {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rewritten rollout still shows %d messages, %d tokens", s.Messages, s.Tokens)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := d.Stats().BytesRead - read; got < int64(len(longer)) {
		t.Errorf("the rewrite read %d bytes; a compressed rollout is read whole (%d)", got, len(longer))
	}
	logged.none(t)
}
