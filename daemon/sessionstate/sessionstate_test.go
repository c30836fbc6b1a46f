package sessionstate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/index"
)

// run is one command's run on the transcript: open (resuming from the
// state in dir), read, keep the state.
func run(t *testing.T, dir, path, key string) (*index.Snapshot, *Session) {
	t.Helper()
	s, err := Open(dir, path, key, index.Options{HotBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	return snap, s
}

func lines(t *testing.T, seed uint64, turns int) [][]byte {
	t.Helper()
	return bytes.SplitAfter(sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, Turns: turns}), []byte("\n"))
}

// TestAppendReadsOnlyTheAppend: a run after an append resumes the state
// and reads the appended bytes only; a run after a rewrite, a truncation
// or under other settings reads the file whole, and so does one with no
// state folder.
func TestAppendReadsOnlyTheAppend(t *testing.T) {
	dir := t.TempDir()
	states := filepath.Join(dir, "state", "sessions")
	path := filepath.Join(dir, "session.jsonl")
	ls := lines(t, 3, 60)
	if err := os.WriteFile(path, bytes.Join(ls[:100], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	if _, s := run(t, states, path, "k"); s.Resumed || s.BytesRead() < size() {
		t.Fatalf("first run: resumed %v, read %d of %d bytes", s.Resumed, s.BytesRead(), size())
	}
	if _, s := run(t, states, path, "k"); !s.Resumed || s.BytesRead() != 0 {
		t.Fatalf("no change: resumed %v, read %d bytes", s.Resumed, s.BytesRead())
	}
	appended := bytes.Join(ls[100:104], nil)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(appended)
	f.Close()
	if _, s := run(t, states, path, "k"); !s.Resumed || s.BytesRead() != int64(len(appended)) {
		t.Fatalf("append of %d bytes: resumed %v, read %d bytes", len(appended), s.Resumed, s.BytesRead())
	}
	if _, s := run(t, states, path, "other settings"); s.Resumed || s.BytesRead() < size() {
		t.Fatalf("other settings: resumed %v, read %d of %d bytes", s.Resumed, s.BytesRead(), size())
	}
	// A rewrite that keeps the length and the file: one byte of the
	// last line before the state's end changes.
	data, _ := os.ReadFile(path)
	at := len(data) - len(ls[103]) + 10
	data[at] ^= 0x01
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, s := run(t, states, path, "other settings"); s.Resumed || s.BytesRead() < size() {
		t.Fatalf("rewrite: resumed %v, read %d of %d bytes", s.Resumed, s.BytesRead(), size())
	}
	if err := os.WriteFile(path, bytes.Join(ls[:50], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, s := run(t, states, path, "other settings"); s.Resumed || s.BytesRead() < size() {
		t.Fatalf("truncation: resumed %v, read %d of %d bytes", s.Resumed, s.BytesRead(), size())
	}
	if _, s := run(t, "", path, "other settings"); s.Resumed || s.BytesRead() < size() {
		t.Fatalf("no state folder: resumed %v, read %d of %d bytes", s.Resumed, s.BytesRead(), size())
	}
	if entries, _ := os.ReadDir(states); len(entries) != 1 {
		t.Fatalf("%d files in the state folder, want one state", len(entries))
	}
}

// TestConcurrentRunsKeepAWholeState: runs at the same moment on one
// growing session each read a whole state or none and leave a whole
// one: the next run resumes it and gauges what a first run gauges.
func TestConcurrentRunsKeepAWholeState(t *testing.T) {
	dir := t.TempDir()
	states := filepath.Join(dir, "state", "sessions")
	path := filepath.Join(dir, "session.jsonl")
	ls := lines(t, 4, 80)
	if err := os.WriteFile(path, bytes.Join(ls[:60], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for next := 60; next < min(len(ls), 120); next += 6 {
		if _, err := f.Write(bytes.Join(ls[next:min(next+6, len(ls))], nil)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				s, err := Open(states, path, "k", index.Options{HotBytes: 1})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Snapshot(); err != nil {
					t.Error(err)
					return
				}
				if err := s.Save(); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, s := run(t, states, path, "k")
		if !s.Resumed {
			t.Fatalf("after concurrent runs the state was not resumed")
		}
		want, _ := run(t, "", path, "k")
		if got.Tokens != want.Tokens || got.Messages != want.Messages || got.Insight.Breakdown.Inside != want.Insight.Breakdown.Inside {
			t.Fatalf("resumed after concurrent runs: %d tokens, %d messages, %d inside; a first run: %d, %d, %d",
				got.Tokens, got.Messages, got.Insight.Breakdown.Inside, want.Tokens, want.Messages, want.Insight.Breakdown.Inside)
		}
	}
	entries, _ := os.ReadDir(states)
	if len(entries) != 1 {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("state folder holds %v, want one state and no temporary file", names)
	}
}

// TestWholeReadKeepsAState: an entry read keeping every part (a session
// whose history holds a rewind is read so; here the index's hot budget
// holds it) still leaves a state, trimmed, and the next run after an
// append resumes it and gauges what a first run gauges.
func TestWholeReadKeepsAState(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "compaction", "format", "claude", "testdata", "compact-after-rewind.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	states := filepath.Join(dir, "state", "sessions")
	path := filepath.Join(dir, "session.jsonl")
	lines := bytes.SplitAfter(src, []byte("\n"))
	keep := bytes.Join(lines[:len(lines)-2], nil)
	if err := os.WriteFile(path, keep, 0o600); err != nil {
		t.Fatal(err)
	}
	hot, err := Open(states, path, "k", index.Options{}) // 32 MiB hot: read whole
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hot.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := hot.Save(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(states); len(entries) != 1 {
		t.Fatalf("a whole read left %d states", len(entries))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(src[len(keep):])
	f.Close()
	got, s := run(t, states, path, "k")
	want, _ := run(t, "", path, "k")
	if !s.Resumed || got.Tokens != want.Tokens || got.Messages != want.Messages {
		t.Fatalf("after an append: resumed %v, %d tokens and %d messages; a first run: %d and %d", s.Resumed, got.Tokens, got.Messages, want.Tokens, want.Messages)
	}
}

// TestDamagedStateIsReadWhole: a state file cut short or with a byte
// flipped (a disk error; the file is only ever replaced whole) is not
// resumed: the run reads the file whole, never fails, and its figures
// are a first run's.
func TestDamagedStateIsReadWhole(t *testing.T) {
	dir := t.TempDir()
	states := filepath.Join(dir, "state", "sessions")
	path := filepath.Join(dir, "session.jsonl")
	ls := lines(t, 5, 40)
	if err := os.WriteFile(path, bytes.Join(ls[:70], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, states, path, "k")
	entries, err := os.ReadDir(states)
	if err != nil || len(entries) != 1 {
		t.Fatalf("state folder: %v, %v", entries, err)
	}
	file := filepath.Join(states, entries[0].Name())
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Join(ls[70:74], nil))
	f.Close()
	want, _ := run(t, "", path, "k")
	damaged := map[string][]byte{"empty": nil, "magic only": good[:len(magic)]}
	for _, cut := range []int{len(magic) + 1, len(magic) + 40, len(good) / 2, len(good) - 1} {
		damaged[fmt.Sprintf("cut at %d of %d bytes", cut, len(good))] = good[:cut]
	}
	for _, at := range []int{0, len(magic) + 3, len(magic) + 100, len(good) / 3, len(good) / 2, len(good) - 30, len(good) - 2} {
		b := bytes.Clone(good)
		b[at] ^= 0xff
		damaged[fmt.Sprintf("byte %d flipped", at)] = b
	}
	for name, b := range damaged {
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(states, path, "k", index.Options{HotBytes: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := s.Snapshot()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Tokens != want.Tokens || got.Messages != want.Messages || got.Size != want.Size {
			t.Errorf("%s: resumed %v, %d tokens, %d messages, %d bytes; a first run: %d, %d, %d", name, s.Resumed, got.Tokens, got.Messages, got.Size, want.Tokens, want.Messages, want.Size)
		}
		if s.Resumed {
			t.Errorf("%s: a damaged state was resumed", name)
		}
	}
}
