package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/daemon/agents"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon/store"
)

// TestRestartTokenizesNothing: with the store's token cache, a second
// daemon over the same transcripts hands 0 bytes to the BPE.
func TestRestartTokenizesNothing(t *testing.T) {
	ws := t.TempDir()
	for i, turns := range []int{6, 3} {
		p := filepath.Join(ws, "s"+string(rune('a'+i))+".jsonl")
		os.WriteFile(p, sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(i + 1), Turns: turns, Cwd: ws}), 0o644)
	}
	dbPath := filepath.Join(t.TempDir(), "store.db")
	run := func() (tokens.Stats, int) {
		st, err := store.Open(t.Context(), dbPath)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cache := st.NewTokenCache(0)
		counter, err := tokens.New("o200k_base", tokens.WithCache(cache))
		if err != nil {
			t.Fatal(err)
		}
		d, err := New(Options{Folders: []string{ws}, Env: agents.Env{Home: t.TempDir()}, Counter: counter, CountCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		<-d.ScanDone()
		total := 0
		for _, s := range d.Snapshots() {
			total += s.Tokens
		}
		d.Close()
		if err := cache.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		return counter.Stats(), total
	}
	first, tokensFirst := run()
	if first.Bytes == 0 || tokensFirst == 0 {
		t.Fatalf("first run counted nothing: %+v", first)
	}
	second, tokensSecond := run()
	if second.Bytes != 0 {
		t.Fatalf("restart handed %d bytes to the BPE, want 0 (first run: %d)", second.Bytes, first.Bytes)
	}
	if tokensSecond != tokensFirst {
		t.Fatalf("restart gauge %d tokens, first %d", tokensSecond, tokensFirst)
	}
}
