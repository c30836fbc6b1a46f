package sourcefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/compactd/compactd/compaction/format"
)

// Memory follows the file: parsing, compacting and storing a transcript
// take several times its size. Files past these bounds are refused before
// they are read whole, from a bounded head and a streamed scan, so a
// 500 MB single line or a 2 GiB file of NULs costs milliseconds and a
// megabyte instead of gigabytes and minutes.
const (
	// MaxLineBytes bounds one record of a line-oriented transcript. Real
	// records reach a few MiB (a turn with screenshots).
	MaxLineBytes = 64 << 20
	// MaxTranscriptBytes bounds a whole transcript read for compaction or
	// a gauge.
	MaxTranscriptBytes = 1 << 30
	// MaxDocumentBytes bounds a transcript that is one JSON document
	// (parsed whole, at several times its size).
	MaxDocumentBytes = 256 << 20
)

// ErrTooLarge marks a transcript refused for its size or a line's length.
var ErrTooLarge = errors.New("too large")

type tooLargeError struct{ msg string }

func (e *tooLargeError) Error() string        { return e.msg }
func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// ReadTranscript reads a transcript whose format is detected from its head
// alone (format.DetectBytes): a file that is not a transcript is refused
// after one small read, whatever its size. A line-oriented one is scanned
// for an over-long line before it is read whole.
func ReadTranscript(path string) ([]byte, format.Codec, error) {
	codec, err := Admit(path)
	if err != nil {
		return nil, nil, err
	}
	_, lines := codec.(format.Appender)
	data, err := ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > MaxTranscriptBytes || !lines && int64(len(data)) > MaxDocumentBytes {
		return nil, nil, tooBig(path, int64(len(data)), lines)
	}
	if lines {
		if at, n := longestLine(data); n > MaxLineBytes {
			return nil, nil, tooLong(path, at)
		}
	}
	return data, codec, nil
}

// Admit is what every reader of a transcript it does not yet follow
// checks first, reading no more than the file's head and, for a
// line-oriented file past MaxLineBytes, a streamed scan of its lines: the
// path is a regular file (a pipe, device or folder is refused by what it
// is, without blocking), its format is detected from its head alone, and
// it is within MaxTranscriptBytes (MaxDocumentBytes for one JSON
// document) and MaxLineBytes. A compressed file's sizes are checked as it
// is decompressed.
func Admit(path string) (format.Codec, error) {
	head, err := ReadHead(path, format.DetectBytes)
	if err != nil {
		return nil, err
	}
	codec, err := format.Detect(PlainName(path), head)
	if err != nil {
		return nil, err
	}
	if !Compressed(path) {
		_, lines := codec.(format.Appender)
		if err := checkPlain(path, lines); err != nil {
			return nil, err
		}
	}
	return codec, nil
}

// checkPlain refuses a plain file over MaxTranscriptBytes, or, when lines
// is set, holding a line over MaxLineBytes, reading it in 1 MiB pieces.
func checkPlain(path string, lines bool) error {
	f, err := OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if fi.Size() > MaxTranscriptBytes || !lines && fi.Size() > MaxDocumentBytes {
		return tooBig(path, fi.Size(), lines)
	}
	if !lines || fi.Size() <= MaxLineBytes {
		return nil
	}
	buf := make([]byte, 1<<20)
	var off, lineStart int64
	for {
		n, err := f.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				off += int64(len(chunk))
				break
			}
			off += int64(i) + 1
			chunk = chunk[i+1:]
			lineStart = off
		}
		if off-lineStart > MaxLineBytes {
			return tooLong(path, lineStart)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// longestLine returns where the longest line of data starts and its length.
func longestLine(data []byte) (at, n int64) {
	var start int64
	for start < int64(len(data)) {
		i := bytes.IndexByte(data[start:], '\n')
		end := int64(len(data))
		if i >= 0 {
			end = start + int64(i)
		}
		if end-start > n {
			at, n = start, end-start
		}
		start = end + 1
	}
	return at, n
}

func tooBig(path string, size int64, lines bool) error {
	limit := int64(MaxTranscriptBytes)
	if !lines {
		limit = MaxDocumentBytes
	}
	return &tooLargeError{fmt.Sprintf("%s is %s, more than compactd reads (%s), so it was left alone: no agent can resume a transcript that large — start a new session, or split it",
		path, mib(size), mib(limit))}
}

func tooLong(path string, at int64) error {
	return &tooLargeError{fmt.Sprintf("%s has a line longer than %s starting at byte %d, so compactd left it alone: no agent writes records that long (the file is damaged, or not a transcript) — trim that line, or point compactd at another file",
		path, mib(MaxLineBytes), at)}
}

func mib(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
}
