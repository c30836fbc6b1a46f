package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/compactd/compactd/compaction/sessiongen"
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

// waitGauges waits until the daemon shows exactly the transcripts in want.
func waitGauges(t *testing.T, d *Daemon, want ...string) map[string]*Snapshot {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := map[string]*Snapshot{}
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

// TestCompressedRollouts: Codex recompresses finished rollouts to
// rollout-….jsonl.zst. The daemon reads them (same gauge as the plain
// file), shows the plain file while both exist, and follows the swap to
// exactly one gauge for the session.
func TestCompressedRollouts(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	day := filepath.Join(codexHome, "sessions", "2026", "11", "22")
	os.MkdirAll(day, 0o755)
	data := sessiongen.Codex(sessiongen.Options{Seed: 3, Turns: 6, Cwd: ws})
	plain := filepath.Join(day, "rollout-2026-11-22T09-00-00-0196a0b1-aaaa-7bbb-8ccc-000000000001.jsonl")
	compressed := plain + ".zst"

	// An old session, compressed before the daemon started.
	old := filepath.Join(day, "rollout-2026-11-21T09-00-00-0196a0b1-aaaa-7bbb-8ccc-000000000002.jsonl")
	oldData := sessiongen.Codex(sessiongen.Options{Seed: 4, Turns: 4, Cwd: ws})
	os.WriteFile(old+".zst", zstdBytes(t, oldData), 0o644)

	d, err := New(Options{Folders: []string{ws}, Env: Env{Home: home, CodexHome: codexHome}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	<-d.ScanDone()
	got := waitGauges(t, d, old+".zst")
	if s := got[old+".zst"]; s.Format != "codex" || s.Tokens == 0 || s.Messages == 0 {
		t.Fatalf("compressed rollout: %+v", s)
	}

	// The live session: plain while Codex writes it.
	os.WriteFile(plain, data, 0o644)
	got = waitGauges(t, d, old+".zst", plain)
	live := got[plain]

	// Codex writes the compressed twin, then removes the plain file.
	os.WriteFile(compressed, zstdBytes(t, data), 0o644)
	time.Sleep(100 * time.Millisecond) // the twin's events pass: still the plain file only
	waitGauges(t, d, old+".zst", plain)
	os.Remove(plain)
	got = waitGauges(t, d, old+".zst", compressed)
	if s := got[compressed]; s.Tokens != live.Tokens || s.Messages != live.Messages || s.Model != live.Model {
		t.Fatalf("after the swap: %d tokens, %d messages (%s); the plain file had %d, %d (%s)",
			s.Tokens, s.Messages, s.Model, live.Tokens, live.Messages, live.Model)
	}

	// The plain file comes back (a resumed session): it wins again.
	os.WriteFile(plain, data, 0o644)
	waitGauges(t, d, old+".zst", plain)
}
