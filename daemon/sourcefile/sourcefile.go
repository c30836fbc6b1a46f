// Package sourcefile reads transcript files as their codecs see them:
// plain files as they are, and zstd-compressed ones (Codex recompresses
// finished rollouts to rollout-….jsonl.zst) decompressed.
//
// A compressed file is read whole and never tailed: offsets into it mean
// nothing to a codec, and it is only ever replaced, never appended to.
// The compressed bytes are streamed through the decoder, never held whole.
package sourcefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/compactd/compactd/daemon/platform"
)

// MaxDecompressed bounds what one compressed transcript may decompress
// to: a corrupt or hostile frame cannot exhaust memory.
const MaxDecompressed = 4 << 30

// ErrTruncated means a compressed transcript's stream ends before its last
// frame does: cut short, or still being written (Codex writes the .zst
// while the swap is under way). A later write event brings the rest.
var ErrTruncated = errors.New("the zstd stream ends early (truncated, or still being written)")

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

// NotRegularError refuses a path that is not a regular file: a named pipe
// called session.jsonl would block every reader until something writes to
// it, and a device or socket is no transcript either.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; compactd reads only regular files and left it alone (point it at the transcript file itself)", e.Path, describeMode(e.Mode))
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file (mode " + m.String() + ")"
}

// OpenRegular opens path for reading when it is a regular file, and
// without ever blocking: the open is non-blocking (opening a named pipe
// for reading otherwise waits for a writer, ignoring every signal but
// SIGKILL), and the opened file is checked with fstat, so a file swapped
// for a pipe after a Stat is caught too. O_NONBLOCK does not change how a
// regular file reads.
func OpenRegular(path string) (*os.File, error) {
	f, err := platform.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, nil
}

// Open opens the transcript for reading, decompressing a compressed one.
// Only regular files are opened (see OpenRegular).
func Open(path string) (io.ReadCloser, error) {
	if !Compressed(path) {
		return OpenRegular(path)
	}
	d, _, err := openCompressed(path)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// openCompressed opens a zstd file after checking its magic, so a file
// that merely ends in .zst fails with a sentence saying so. sizeHint is
// the decompressed size the first frame declares (0 when it declares none).
func openCompressed(path string) (d *decompressed, sizeHint int64, err error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	head := make([]byte, zstd.HeaderMaxSize)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if n > 0 {
		var h zstd.Header
		switch err := h.Decode(head[:n]); {
		case errors.Is(err, zstd.ErrMagicMismatch):
			f.Close()
			return nil, 0, fmt.Errorf("%s is not zstd-compressed (no zstd magic 28 B5 2F FD at its start)", path)
		case errors.Is(err, io.ErrUnexpectedEOF):
			f.Close()
			return nil, 0, fmt.Errorf("decompress %s: %w", path, ErrTruncated)
		case err == nil && h.HasFCS && h.FrameContentSize <= MaxDecompressed:
			sizeHint = int64(h.FrameContentSize)
		}
	}
	// One decoder goroutine: transcripts are read one or two at a time,
	// and each extra goroutine holds buffers of its own.
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxDecompressed))
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("decompress %s: %w", path, err)
	}
	if fi, err := f.Stat(); err == nil && sizeHint > 64*fi.Size()+1<<20 {
		// A header may claim any size; transcripts compress about tenfold,
		// so a claim far past that is not worth reserving memory for.
		sizeHint = 0
	}
	return &decompressed{dec: dec, f: f, path: path}, sizeHint, nil
}

type decompressed struct {
	dec  *zstd.Decoder
	f    *os.File
	path string
}

func (d *decompressed) Read(p []byte) (int, error) {
	n, err := d.dec.Read(p)
	switch {
	case err == nil || err == io.EOF:
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("decompress %s: %w", d.path, ErrTruncated)
	default:
		err = fmt.Errorf("decompress %s: %w", d.path, err)
	}
	return n, err
}

func (d *decompressed) Close() error {
	d.dec.Close()
	return d.f.Close()
}

// ReadFile returns the transcript's bytes, decompressed when path is a
// compressed one. Only regular files are read (see OpenRegular).
func ReadFile(path string) ([]byte, error) {
	if !Compressed(path) {
		f, err := OpenRegular(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		size := int64(0)
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		// No limit: a plain file reads whole, as os.ReadFile would.
		return readUpTo(f, 1<<62, size)
	}
	return readCompressed(path, MaxDecompressed)
}

// readCompressed decompresses path whole, refusing a stream that
// decompresses to more than limit bytes.
func readCompressed(path string, limit int64) ([]byte, error) {
	d, sizeHint, err := openCompressed(path)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	// One byte past the cap tells a stream at the cap from one beyond it.
	data, err := readUpTo(d, limit+1, sizeHint)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s decompresses to more than %s; not read", path, sizeText(limit))
	}
	return data, nil
}

func sizeText(n int64) string {
	if n >= 1<<30 && n%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadHead returns at most the first n bytes of the transcript,
// decompressing only as much as that takes.
func ReadHead(path string, n int) ([]byte, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	head, err := readUpTo(r, int64(n), int64(n))
	if err != nil && !Compressed(path) {
		// A decompression error already names the path.
		err = fmt.Errorf("read %s: %w", path, err)
	}
	return head, err
}

// readUpTo reads at most limit bytes of r into a buffer that starts at
// sizeHint bytes (when known) and grows as reading goes on.
func readUpTo(r io.Reader, limit, sizeHint int64) ([]byte, error) {
	buf := make([]byte, 0, max(min(sizeHint+1, limit), 512))
	lr := io.LimitReader(r, limit)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
