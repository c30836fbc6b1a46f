package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/sourcefile"
	"github.com/compactd/compactd/daemon/store"
)

// A reader reads a query's candidate pieces again. The bytes of a
// piece's records are looked at first for the query's words (ASCII ones:
// a word with other letters may be escaped in JSON), lower-cased, which
// costs about a microsecond a kilobyte, when the piece holds its text as
// written (store.SearchChunk.Verbatim); only a piece that may hold them
// is parsed — as it was indexed, alone for a growing source, the whole
// source (once per query) for one read whole — and only its messages
// whose records may hold them all are checked. Sources read whole
// (documents, database sessions, stored versions) are kept for the
// query's length.
type reader struct {
	x      *Index
	q      *parsedQuery
	wholes map[int64]*wholeSource
	// contents are the bytes of stored versions and database sessions.
	contents map[int64][]byte
	low      []byte
}

type wholeSource struct {
	data []byte
	t    *transcript.Transcript
	err  error
}

func newReader(x *Index, q *parsedQuery) *reader {
	return &reader{x: x, q: q, wholes: map[int64]*wholeSource{}, contents: map[int64][]byte{}}
}

// lower is b with ASCII letters lower-cased, in the reader's buffer.
func (r *reader) lower(b []byte) []byte {
	if cap(r.low) < len(b) {
		r.low = make([]byte, len(b))
	}
	low := r.low[:len(b)]
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return low
}

// passages re-reads candidate c of d: the passages of its records that
// may hold the query, and the line each message of them starts on.
func (r *reader) passages(ctx context.Context, d store.SearchDoc, c store.SearchCandidate) ([]passage, func(int) int64, error) {
	codec, ok := format.Lookup(transcript.Format(d.Format))
	if !ok {
		return nil, nil, fmt.Errorf("format %q is unknown to this compactd", d.Format)
	}
	raw, err := r.bytes(ctx, d, c.From, c.To)
	if err != nil {
		return nil, nil, err
	}
	low := r.lower(raw)
	if c.Verbatim && !r.q.mayHold(low) {
		return nil, nil, nil
	}
	if d.Whole && c.Verbatim && d.Size > wholeParseLimit {
		// A large document: its strings, without parsing it whole.
		lineOf := func(off int) int64 {
			if d.Kind != store.SearchFile {
				return 0
			}
			return r.lineAt(d, c.From+int64(off))
		}
		return rawPassages(raw), lineOf, nil
	}
	if d.Whole {
		w := r.whole(ctx, d, codec)
		if w.err != nil {
			return nil, nil, w.err
		}
		hi := min(int(c.Hi), len(w.t.Messages))
		lo := min(int(c.Lo), hi)
		lineOf := func(i int) int64 {
			if d.Kind != store.SearchFile || i < 0 || i >= len(w.t.Messages) || len(w.t.Messages[i].Records) == 0 {
				return 0
			}
			rec := w.t.Messages[i].Records[0]
			if rec < 0 || rec >= len(w.t.Records) {
				return 0
			}
			start := min(w.t.Records[rec].Start, int64(len(w.data)))
			return int64(bytes.Count(w.data[:start], []byte{'\n'})) + 1
		}
		return passages(w.t.Messages[lo:hi], lo), lineOf, nil
	}
	ap, ok := codec.(format.Appender)
	if !ok {
		return nil, nil, fmt.Errorf("format %q is not read in pieces", d.Format)
	}
	// The piece parsed as it was indexed; the passages of the messages
	// whose records may hold the query.
	t, err := ap.Append(nil, raw)
	if err != nil {
		return nil, nil, err
	}
	var out []passage
	for i := range t.Messages {
		m := &t.Messages[i]
		if c.Verbatim && !slices.ContainsFunc(m.Records, func(rec int) bool {
			return rec >= 0 && rec < len(t.Records) && r.q.mayHold(low[t.Records[rec].Start:min(t.Records[rec].End, int64(len(low)))])
		}) {
			continue
		}
		out = append(out, passages(t.Messages[i:i+1], i)...)
	}
	lineOf := func(i int) int64 {
		if d.Kind != store.SearchFile || i < 0 || i >= len(t.Messages) || len(t.Messages[i].Records) == 0 {
			return 0
		}
		start := min(t.Records[t.Messages[i].Records[0]].Start, int64(len(raw)))
		return c.Line + int64(bytes.Count(raw[:start], []byte{'\n'}))
	}
	return out, lineOf, nil
}

// bytes reads bytes [from, to) of d's source.
func (r *reader) bytes(ctx context.Context, d store.SearchDoc, from, to int64) ([]byte, error) {
	if d.Kind != store.SearchFile || sourcefile.Compressed(d.Source) {
		data, err := r.content(ctx, d)
		if err != nil {
			return nil, err
		}
		if to > int64(len(data)) || from > to {
			return nil, io.ErrUnexpectedEOF
		}
		return data[from:to], nil
	}
	f, err := sourcefile.OpenRegular(d.Source)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if d.Whole {
		// A document is rewritten whole: its ranges hold only while it
		// is as it was indexed.
		if fi, err := f.Stat(); err != nil || fi.Size() != d.Size || fi.ModTime().UnixNano() != d.MTime {
			return nil, errors.New("changed since it was indexed")
		}
	}
	buf := make([]byte, to-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return nil, err // shorter than indexed: rewritten since
	}
	return buf, nil
}

// content is the whole of a source read whole: a stored version's
// bytes, a database session's rendering, a compressed file.
func (r *reader) content(ctx context.Context, d store.SearchDoc) ([]byte, error) {
	if b, ok := r.contents[d.ID]; ok {
		return b, nil
	}
	var b []byte
	var err error
	switch d.Kind {
	case store.SearchVersion:
		id, ok := versionID(d.Source)
		if !ok {
			return nil, fmt.Errorf("%s is not a stored version", d.Source)
		}
		var v store.Version
		if v, err = r.x.st.VersionByID(ctx, id); err == nil {
			b, err = r.x.st.Content(ctx, v.ContentHash)
		}
	case store.SearchDatabase:
		db, session := splitDBSource(d.Source)
		conn, cerr := r.x.dbs.open(db)
		if cerr != nil {
			return nil, cerr
		}
		b, err = conn.Export(ctx, session)
	default:
		if fi, serr := os.Stat(d.Source); serr != nil || fi.Size() != d.Size || fi.ModTime().UnixNano() != d.MTime {
			return nil, errors.New("changed since it was indexed")
		}
		b, err = readIndexed(d)
	}
	if err != nil {
		return nil, err
	}
	r.contents[d.ID] = b
	return b, nil
}

// whole reads and parses a source read whole, once per query.
func (r *reader) whole(ctx context.Context, d store.SearchDoc, codec format.Codec) *wholeSource {
	if w := r.wholes[d.ID]; w != nil {
		return w
	}
	w := &wholeSource{}
	r.wholes[d.ID] = w
	if d.Kind == store.SearchFile && !sourcefile.Compressed(d.Source) {
		if fi, err := os.Stat(d.Source); err != nil || fi.Size() != d.Size || fi.ModTime().UnixNano() != d.MTime {
			w.err = errors.New("changed since it was indexed")
			return w
		}
		w.data, w.err = readIndexed(d)
	} else {
		w.data, w.err = r.content(ctx, d)
	}
	if w.err == nil {
		w.t, w.err = codec.Parse(w.data)
	}
	return w
}

// readIndexed reads a file the index read whole, as big as it was then
// (its format is known: no detection again).
func readIndexed(d store.SearchDoc) ([]byte, error) {
	if d.Size > sourcefile.MaxTranscriptBytes {
		return nil, fmt.Errorf("%s is larger than compactd reads", d.Source)
	}
	return sourcefile.ReadFile(d.Source)
}

// wholeParseLimit is the largest source read whole that a query parses
// again to check a candidate: past it, a verbatim piece's own JSON
// strings are checked instead (parsing an opencode export costs about
// 10 ms a megabyte, and one query may meet a dozen); the hit then says
// what holds the words, not whose message it is.
const wholeParseLimit = 256 << 10

// rawPassages are the JSON strings of raw (object keys aside), each a
// passage with its byte offset in raw as its message: what a piece of a
// JSON document says, as written, when it is not parsed.
func rawPassages(raw []byte) []passage {
	var out []passage
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(raw) && raw[end] != '"' {
			if raw[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(raw) {
			break
		}
		lit := raw[i : end+1]
		next := end + 1
		for next < len(raw) && (raw[next] == ' ' || raw[next] == '\n' || raw[next] == '\r' || raw[next] == '\t') {
			next++
		}
		if next < len(raw) && raw[next] == ':' {
			i = end // a key
			continue
		}
		var text string
		if json.Unmarshal(lit, &text) == nil && strings.TrimSpace(text) != "" {
			out = append(out, passage{Message: i, Part: transcript.PartText, Text: text})
		}
		i = end
	}
	return out
}

// lineAt is the line of d's file at byte off (1-based).
func (r *reader) lineAt(d store.SearchDoc, off int64) int64 {
	f, err := sourcefile.OpenRegular(d.Source)
	if err != nil {
		return 0
	}
	defer f.Close()
	buf := make([]byte, off)
	n, _ := f.ReadAt(buf, 0)
	return int64(bytes.Count(buf[:n], []byte{'\n'})) + 1
}
