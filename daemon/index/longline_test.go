package index

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestLongLineIsSkipped: a line longer than the index reads is scanned
// through, never held, and reported in the snapshot's status; the lines
// after it are indexed, and appends after it cost what they add.
func TestLongLineIsSkipped(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "s.jsonl")
	base := sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, Turns: 4, Cwd: ws})
	long := []byte(`{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", maxLine+1<<20) + `"}}` + "\n")
	more := sessiongen.Continue(transcript.FormatClaudeCode, base, 4, 12)
	var src bytes.Buffer
	src.Write(base)
	src.Write(long)
	src.Write(more[:len(more)/2])
	if err := os.WriteFile(path, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	x, rec := startIndex(t, ws, Options{})
	first := rec.wait(t, func(ev Event) bool { return ev.Path == path && ev.Snapshot != nil })
	s := first.Snapshot
	if !strings.Contains(s.Status, "longer than") || s.Problems < 1 {
		t.Fatalf("status %q, %d problems: the long line is not reported", s.Status, s.Problems)
	}
	whole := &tracked{path: filepath.Join(t.TempDir(), "base.jsonl")}
	os.WriteFile(whole.path, base, 0o644)
	if _, err := whole.update(x.ix); err != nil {
		t.Fatal(err)
	}
	if s.Messages <= len(whole.t.Messages) {
		t.Fatalf("%d messages: the lines after the long one were not read (%d before it)", s.Messages, len(whole.t.Messages))
	}
	read := x.Stats().BytesRead
	appendTo(t, x, path, more[len(more)/2:])
	ev := rec.wait(t, func(ev Event) bool {
		return ev.Path == path && ev.Snapshot != nil && ev.Snapshot.Size == int64(src.Len()+len(more)-len(more)/2)
	})
	if ev.Snapshot.Messages <= s.Messages {
		t.Fatalf("append after the long line not indexed: %d → %d messages", s.Messages, ev.Snapshot.Messages)
	}
	if got := x.Stats().BytesRead - read; got > int64(len(more)) {
		t.Fatalf("an append of %d bytes read %d", len(more)-len(more)/2, got)
	}
}

// TestNULRunIsSkipped: a session followed by a sparse run of NUL bytes
// (a preallocated file) shows the session's gauge and says what it
// skipped; the run is read once, and a line written after it is indexed.
func TestNULRunIsSkipped(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "s.jsonl")
	base := sessiongen.ClaudeCode(sessiongen.Options{Seed: 5, Turns: 4, Cwd: ws})
	if err := os.WriteFile(path, base, 0o644); err != nil {
		t.Fatal(err)
	}
	sparse := int64(len(base)) + 3*maxLine
	if err := os.Truncate(path, sparse); err != nil {
		t.Fatal(err)
	}
	x, rec := startIndex(t, ws, Options{})
	first := rec.wait(t, func(ev Event) bool { return ev.Path == path && ev.Snapshot != nil })
	s := first.Snapshot
	if !strings.Contains(s.Status, "NUL") || s.Problems < 1 {
		t.Fatalf("status %q, %d problems: the NUL run is not reported", s.Status, s.Problems)
	}
	clean := &tracked{path: filepath.Join(t.TempDir(), "base.jsonl")}
	os.WriteFile(clean.path, base, 0o644)
	if _, err := clean.update(x.ix); err != nil {
		t.Fatal(err)
	}
	if s.Tokens != clean.snap.Load().Tokens || s.Messages != len(clean.t.Messages) {
		t.Fatalf("gauge %d tokens, %d messages; the session alone: %d, %d", s.Tokens, s.Messages, clean.snap.Load().Tokens, len(clean.t.Messages))
	}
	read := x.Stats().BytesRead
	more := sessiongen.Continue(transcript.FormatClaudeCode, base, 6, 8)
	appendTo(t, x, path, append([]byte("\n"), more...))
	ev := rec.wait(t, func(ev Event) bool {
		return ev.Path == path && ev.Snapshot != nil && ev.Snapshot.Size == sparse+1+int64(len(more))
	})
	if ev.Snapshot.Messages <= s.Messages || !strings.Contains(ev.Snapshot.Status, "NUL") {
		t.Fatalf("after the NUL run: %d → %d messages, status %q", s.Messages, ev.Snapshot.Messages, ev.Snapshot.Status)
	}
	if got := x.Stats().BytesRead - read; got > int64(len(more))+1 {
		t.Fatalf("an append after the NUL run read %d bytes (%d appended): the run was read again", got, len(more)+1)
	}
}
