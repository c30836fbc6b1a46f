// Package sourcefile reads transcript files as their codecs see them:
// plain files as they are, and zstd-compressed ones (Codex recompresses
// finished rollouts to rollout-….jsonl.zst) decompressed.
//
// A compressed file is read whole and never tailed: offsets into it mean
// nothing to a codec, and it is only ever replaced, never appended to.
package sourcefile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// MaxDecompressed bounds what one compressed transcript may decompress
// to: a corrupt or hostile frame cannot exhaust memory.
const MaxDecompressed = 4 << 30

// Compressed reports whether path names a zstd-compressed transcript.
func Compressed(path string) bool { return strings.HasSuffix(path, ".zst") }

// PlainName is path without its compression suffix: the name codecs
// detect by and fork names derive from.
func PlainName(path string) string { return strings.TrimSuffix(path, ".zst") }

// Twin returns the other name of the same transcript: the compressed name
// for a plain one and the plain name for a compressed one.
func Twin(path string) string {
	if Compressed(path) {
		return PlainName(path)
	}
	return path + ".zst"
}

// Open opens the transcript for reading, decompressing a compressed one.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !Compressed(path) {
		return f, nil
	}
	// Low memory: one decoder goroutine, and no window beyond what a
	// transcript may decompress to.
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxDecompressed))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("decompress %s: %w", path, err)
	}
	return &decompressed{dec: dec, f: f, path: path}, nil
}

type decompressed struct {
	dec  *zstd.Decoder
	f    *os.File
	path string
}

func (d *decompressed) Read(p []byte) (int, error) {
	n, err := d.dec.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("decompress %s: %w", d.path, err)
	}
	return n, err
}

func (d *decompressed) Close() error {
	d.dec.Close()
	return d.f.Close()
}

// ReadFile returns the transcript's bytes, decompressed when path is a
// compressed one.
func ReadFile(path string) ([]byte, error) {
	if !Compressed(path) {
		return os.ReadFile(path)
	}
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := readUpTo(r, MaxDecompressed)
	if err != nil {
		return nil, err
	}
	if len(data) == MaxDecompressed {
		var one [1]byte
		if n, _ := r.Read(one[:]); n > 0 {
			return nil, fmt.Errorf("%s decompresses to more than %d GiB; not read", path, MaxDecompressed>>30)
		}
	}
	return data, nil
}

// ReadHead returns at most the first n bytes of the transcript,
// decompressing only as much as that takes.
func ReadHead(path string, n int) ([]byte, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	head, err := readUpTo(r, n)
	if err != nil && !Compressed(path) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return head, err
}

// readUpTo reads at most n bytes of r.
func readUpTo(r io.Reader, n int) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(r, int64(n))); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
