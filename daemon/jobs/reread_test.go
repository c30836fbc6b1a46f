package jobs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestRereadKeepsTheParseOnlyForTheSameBytes: after the lock a job keeps
// its parse when the file is the one it read, byte for byte (compared in
// pieces, plain and compressed), and reads it again when it grew, was
// rewritten in place to the same length, or was replaced by another file.
func TestRereadKeepsTheParseOnlyForTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	// Larger than the comparison's piece, so the pieces are compared.
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, TargetBytes: 3 << 20, Cwd: "/home/u/p"})
	plain := filepath.Join(dir, "s.jsonl")
	compressed := filepath.Join(dir, "c.jsonl.zst")
	write := func(path string, b []byte) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(plain, data)
	write(compressed, zstdBytes(t, data))
	for _, path := range []string{plain, compressed} {
		src, err := readSource(path)
		if err != nil {
			t.Fatal(err)
		}
		again, err := rereadSource(path, src)
		if err != nil || again != src {
			t.Fatalf("%s unchanged: reread gave a new parse (err %v)", filepath.Base(path), err)
		}
	}

	src, err := readSource(plain)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, wantSame bool) {
		t.Helper()
		got, err := rereadSource(plain, src)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		cur, _ := os.ReadFile(plain)
		if (got == src) != wantSame || !bytes.Equal(got.data, cur) {
			t.Fatalf("%s: kept the parse %v, want %v; bytes are the file's: %v", what, got == src, wantSame, bytes.Equal(got.data, cur))
		}
	}
	// Rewritten in place, same length, one byte changed past the first piece.
	changed := bytes.Clone(data)
	i := bytes.LastIndex(changed[:len(changed)-1], []byte("\n{")) - 1
	changed[i] = ' '
	f, err := os.OpenFile(plain, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(changed[i:i+1], int64(i)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	check("rewritten to the same length", false)

	write(plain, data)
	if src, err = readSource(plain); err != nil {
		t.Fatal(err)
	}
	f, err = os.OpenFile(plain, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(sessiongen.Continue(transcript.FormatClaudeCode, data, 4, 2))
	f.Close()
	check("grown", false)

	write(plain, data)
	if src, err = readSource(plain); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.jsonl")
	write(other, data)
	if err := os.Rename(other, plain); err != nil {
		t.Fatal(err)
	}
	check("replaced by another file with the same bytes", false)
}
