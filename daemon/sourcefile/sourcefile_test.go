package sourcefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/platform/platformtest"
)

func compress(t *testing.T, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

// TestReadPlainAndCompressed: a compressed rollout reads back as the
// JSONL it was made from, whole and by its head; a plain file reads as it
// is, whatever its name.
func TestReadPlainAndCompressed(t *testing.T) {
	dir := t.TempDir()
	data := sessiongen.Codex(sessiongen.Options{Seed: 1, Turns: 20, Cwd: dir})
	plain := filepath.Join(dir, "rollout-1.jsonl")
	os.WriteFile(plain, data, 0o644)
	os.WriteFile(plain+".zst", compress(t, data), 0o644)
	for _, p := range []string{plain, plain + ".zst"} {
		got, err := ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ReadFile(%s): %d bytes, %v", filepath.Base(p), len(got), err)
		}
		head, err := ReadHead(p, 100)
		if err != nil || !bytes.Equal(head, data[:100]) {
			t.Fatalf("ReadHead(%s): %q, %v", filepath.Base(p), head, err)
		}
		if head, err := ReadHead(p, len(data)+10); err != nil || !bytes.Equal(head, data) {
			t.Fatalf("ReadHead(%s) past the end: %d bytes, %v", filepath.Base(p), len(head), err)
		}
	}
	// Frames written by a streaming encoder declare no size; several
	// frames back to back are one stream.
	var stream bytes.Buffer
	enc, _ := zstd.NewWriter(&stream)
	enc.Write(data[:len(data)/2])
	enc.Close()
	stream.Write(compress(t, data[len(data)/2:]))
	os.WriteFile(plain+".2.zst", stream.Bytes(), 0o644)
	if got, err := ReadFile(plain + ".2.zst"); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("a streamed, two-frame file: %d bytes, %v", len(got), err)
	}
	// An empty compressed file (just created) is an empty transcript.
	os.WriteFile(plain+".3.zst", nil, 0o644)
	if got, err := ReadFile(plain + ".3.zst"); err != nil || len(got) != 0 {
		t.Fatalf("an empty compressed file: %d bytes, %v", len(got), err)
	}
	if !Compressed(plain+".zst") || Compressed(plain) || PlainName(plain+".zst") != plain || Twin(plain) != plain+".zst" || Twin(plain+".zst") != plain {
		t.Error("names")
	}
}

// TestCorruptStreamNamesThePath: every way a compressed file can be bad
// is an error that names it; a stream cut short says so (the daemon waits
// for the rest of one being written).
func TestCorruptStreamNamesThePath(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("a line of a rollout\n"), 1000)
	z := compress(t, data)
	for _, c := range []struct {
		name      string
		content   []byte
		truncated bool
		says      string
	}{
		{"truncated.jsonl.zst", z[:len(z)/2], true, "ends early"},
		{"magic-only.jsonl.zst", z[:3], true, "ends early"},
		{"garbage.jsonl.zst", []byte("this is not zstd at all"), false, "not zstd-compressed"},
		{"plain.jsonl.zst", data, false, "not zstd-compressed"},
		{"bad-block.jsonl.zst", append(append([]byte(nil), z[:6]...), bytes.Repeat([]byte{0xff}, 64)...), false, "decompress"},
	} {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, c.content, 0o644)
		_, err := ReadFile(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err %v, want one naming the path and saying %q", c.name, err, c.says)
		}
		if errors.Is(err, ErrTruncated) != c.truncated {
			t.Errorf("%s: err %v, truncated %v", c.name, err, !c.truncated)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "gone.jsonl.zst")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want not-exist", err)
	}
}

// TestDecompressedSizeCap: a stream past the cap is refused, not read
// into memory; one exactly at the cap is read.
func TestDecompressedSizeCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.jsonl.zst")
	data := bytes.Repeat([]byte("x"), 100_000)
	os.WriteFile(p, compress(t, data), 0o644)
	if _, err := readCompressed(p, 99_999); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "more than 99999 bytes") {
		t.Errorf("over the cap: %v", err)
	}
	if got, err := readCompressed(p, 100_000); err != nil || len(got) != len(data) {
		t.Errorf("at the cap: %d bytes, %v", len(got), err)
	}
	if sizeText(MaxDecompressed) != "4 GiB" {
		t.Errorf("the cap reads %s", sizeText(MaxDecompressed))
	}
}

// TestRefusesNonRegularFiles: a named pipe, a folder or a device named like
// a transcript is refused at once with a sentence saying what it is; a pipe
// never blocks the reader (before, opening one waited for a writer forever,
// deaf to SIGTERM and Ctrl-C).
func TestRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "session.jsonl")
	if err := platformtest.Mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	folder := filepath.Join(dir, "folder.jsonl")
	os.Mkdir(folder, 0o700)
	device := filepath.Join(dir, "null.jsonl")
	os.Symlink("/dev/null", device)
	for _, c := range []struct{ path, says string }{
		{fifo, "a named pipe (FIFO), not a regular file"},
		{fifo + ".zst", "a named pipe (FIFO), not a regular file"},
		{folder, "a folder, not a regular file"},
		{device, "a character device, not a regular file"},
	} {
		if c.path == fifo+".zst" {
			platformtest.Mkfifo(c.path)
		}
		done := make(chan error, 3)
		go func() {
			_, err := ReadFile(c.path)
			done <- err
			_, err = ReadHead(c.path, 100)
			done <- err
			_, err = Open(c.path)
			done <- err
		}()
		for i := 0; i < 3; i++ {
			select {
			case err := <-done:
				var nr *NotRegularError
				if !errors.As(err, &nr) || !strings.Contains(err.Error(), c.says) {
					t.Errorf("%s: err = %v; want a NotRegularError saying %q", filepath.Base(c.path), err, c.says)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: reading blocked (it must refuse at once)", filepath.Base(c.path))
			}
		}
	}
}

// TestReadTranscriptBounded: a file that is no transcript is refused from
// its head, and one too large or holding an over-long line is refused by
// a streamed scan, each in one small read's time and memory (sparse files
// make the sizes free).
func TestReadTranscriptBounded(t *testing.T) {
	dir := t.TempDir()
	session := sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, Turns: 4})
	write := func(name string, data []byte, size int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if size > 0 {
			if err := os.Truncate(p, size); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	longLine := append(append([]byte(nil), session...), `{"type":"user","message":{"content":"`...)
	cases := []struct {
		name, says string
		path       string
	}{
		{"zeros", "not a recognized transcript", write("zeros.jsonl", nil, 2<<30)},
		{"session then NULs", "more than compactd reads", write("sparse.jsonl", session, 2<<30)},
		{"one long line", "a line longer than 64 MiB", write("line.jsonl", longLine, MaxLineBytes+int64(len(longLine))+10)},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _, err := ReadTranscript(c.path)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: err = %v; want one naming the file and saying %q", c.name, err, c.says)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
			t.Errorf("%s: refusing it allocated %d MiB; want a bounded read", c.name, alloc>>20)
		}
	}
	// A real session reads whole.
	p := write("ok.jsonl", session, 0)
	if data, codec, err := ReadTranscript(p); err != nil || !bytes.Equal(data, session) || codec == nil {
		t.Errorf("ReadTranscript(session) = %d bytes, %v, %v", len(data), codec, err)
	}
}
