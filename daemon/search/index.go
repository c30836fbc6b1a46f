package search

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agentdb"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/sourcefile"
	"github.com/compactd/compactd/daemon/store"
)

// pieceBytes is the size of the pieces a growing transcript is indexed
// in (whole records, so a piece ends at the first record end past it). A
// candidate piece is read and parsed again to check a phrase: 32 KiB
// parses in well under a millisecond. Pieces this size keep the index,
// its phrase keys included, at about a sixth of their text (make bench,
// 1 GiB of real sessions: 15.7 %; smaller pieces repeat their terms more).
const pieceBytes = 32 << 10

// wholeText is how much text a piece of a whole-read source gathers
// (whole messages).
const wholeText = 16 << 10

// shortPiece: a last piece shorter than this is indexed again with what
// is appended after it, so that a session followed line by line does not
// leave one piece per line.
const shortPiece = pieceBytes / 4

// Options configure an Index.
type Options struct {
	Store *store.Store
	// Env locates the agents' sessions (Agent.Everywhere).
	Env agents.Env
	// Folders are the workspace folders, whose transcripts are indexed
	// beside the agents' (the CLI's working folder, the server's
	// workspace); nil indexes none.
	Folders func() []string
	// MaxBytes bounds the index's size on disk (config's
	// search.max_index_mb, whose default is the one); 0 bounds nothing.
	MaxBytes int64
	// Now is the clock (hits' ages); nil is the system's.
	Now    func() time.Time
	Logger *slog.Logger
}

// Index is the search index of one store. Its methods are safe for
// concurrent use, and for use beside other processes indexing the same
// store (each source's change is one transaction that checks the entry
// it started from).
type Index struct {
	opts Options
	st   *store.Store
	log  *slog.Logger

	// writing serialises this process's indexing: two syncs would only
	// do the same work twice.
	writing sync.Mutex
	dbs     agentDBs
	// versionSession is the session id of the conversation of the
	// version being indexed (under writing), for a version whose own
	// content names none.
	versionSession string
}

// New returns the index of opts.Store.
func New(opts Options) *Index {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Folders == nil {
		opts.Folders = func() []string { return nil }
	}
	return &Index{opts: opts, st: opts.Store, log: opts.Logger}
}

// Close lets go of the agents' databases the index read.
func (x *Index) Close() error {
	x.dbs.close()
	return nil
}

// Size measures the index: its bytes on disk and the text it holds.
func (x *Index) Size(ctx context.Context) (store.SearchSize, error) { return x.st.SearchSize(ctx) }

// Stats count what a Sync or an Update did.
type Stats struct {
	// Sources are the sources looked at; Indexed those whose text was
	// (re)indexed, Removed those dropped (deleted sessions), Evicted
	// those dropped to keep the index within its size.
	Sources, Indexed, Removed, Evicted int
	// Bytes are the source bytes read to index; Text the text indexed.
	Bytes, Text int64
	Took        time.Duration
}

func (s *Stats) add(o Stats) {
	s.Sources += o.Sources
	s.Indexed += o.Indexed
	s.Removed += o.Removed
	s.Evicted += o.Evicted
	s.Bytes += o.Bytes
	s.Text += o.Text
}

// Progress reports a Sync: sources done of those found, and the one now.
type Progress func(done, total int, source string)

// Update indexes what changed of the transcript at path (appended,
// rewritten, deleted): the daemon calls it for each change its index
// sees.
func (x *Index) Update(ctx context.Context, path string) (Stats, error) {
	path = filepath.Clean(path)
	x.writing.Lock()
	defer x.writing.Unlock()
	if agents.Within(path, x.opts.Env.SessionsDir()) {
		// compactd's rendering of a database session: the session is
		// indexed from its database (as a sync does), not twice.
		return x.syncDatabases(ctx)
	}
	prev, ok, err := x.st.SearchDoc(ctx, path)
	if err != nil {
		return Stats{}, err
	}
	var p *store.SearchDoc
	if ok {
		p = &prev
	}
	var st Stats
	err = x.retry(ctx, func() error {
		var err error
		st, err = x.indexFile(ctx, path, p)
		return err
	}, path, &p)
	return st, err
}

// retry runs index once more when another process indexed the source
// first (the entry it started from is read again).
func (x *Index) retry(ctx context.Context, index func() error, source string, prev **store.SearchDoc) error {
	err := index()
	if !errors.Is(err, store.ErrSearchStale) {
		return err
	}
	d, ok, err := x.st.SearchDoc(ctx, source)
	if err != nil {
		return err
	}
	*prev = nil
	if ok {
		*prev = &d
	}
	err = index()
	if errors.Is(err, store.ErrSearchStale) {
		return nil // another process keeps it current
	}
	return err
}

// indexFile brings a transcript file's entry up to date.
func (x *Index) indexFile(ctx context.Context, path string, prev *store.SearchDoc) (Stats, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		if prev != nil {
			return Stats{Removed: 1}, x.st.DeleteSearchDoc(ctx, prev.ID, false)
		}
		return Stats{}, nil
	}
	if err != nil || !fi.Mode().IsRegular() {
		return Stats{}, nil
	}
	size, mtime := fi.Size(), fi.ModTime().UnixNano()
	if prev != nil && prev.Size == size && prev.MTime == mtime {
		return Stats{}, nil
	}
	doc := store.SearchDoc{Source: path, Kind: store.SearchFile, Size: size, MTime: mtime}
	var codec format.Codec
	if prev != nil && prev.Format != "" {
		codec, _ = format.Lookup(transcript.Format(prev.Format))
	}
	if codec == nil {
		head, err := sourcefile.ReadHead(path, format.DetectBytes)
		if err != nil {
			return Stats{}, nil // unreadable now: looked at again when it changes
		}
		if codec, err = format.Detect(sourcefile.PlainName(path), head); err != nil {
			// Not a transcript: remembered, so that it is not read
			// again until it changes.
			_, err := x.st.UpdateSearch(ctx, store.SearchUpdate{Doc: doc, Expect: prev, Replace: prev != nil})
			return Stats{Sources: 1}, err
		}
	}
	ap, appends := codec.(format.Appender)
	if appends && !sourcefile.Compressed(path) {
		f, err := sourcefile.OpenRegular(path)
		if err != nil {
			return Stats{}, nil
		}
		defer f.Close()
		if prev != nil && !prev.Whole && prev.Format == string(codec.Format()) && size >= prev.Indexed {
			if fp, err := fingerprint(f, prev.Indexed); err == nil && fp == prev.Fingerprint {
				return x.appendPieces(ctx, ap, f, doc, prev)
			}
		}
		st, err := x.allPieces(ctx, codec, ap, f, doc, prev)
		if !errors.Is(err, errReadWhole) {
			return st, err
		}
	}
	data, codec, err := sourcefile.ReadTranscript(path)
	if err != nil {
		return Stats{}, nil // too large or gone: left out of the index
	}
	return x.indexWhole(ctx, codec, data, doc, prev, path)
}

// errReadWhole: the codec reads this source whole (a JSON document in a
// format that also has a line-oriented form).
var errReadWhole = errors.New("read whole")

// fingerprint identifies the first n bytes of a growing source by its
// head and the bytes before n: what changes when it is rewritten rather
// than appended to.
func fingerprint(r io.ReaderAt, n int64) (string, error) {
	const span = 256
	h := sha256.New()
	head := make([]byte, min(n, span))
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	h.Write(head)
	tail := make([]byte, min(n, span))
	if _, err := r.ReadAt(tail, n-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	h.Write(tail)
	fmt.Fprint(h, n)
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// describe fills what a hit shows of a source from its parse.
func (x *Index) describe(doc *store.SearchDoc, f transcript.Format, t *transcript.Transcript, path string) {
	doc.Format = string(f)
	a := agents.ByFormat(f)
	if a != nil && doc.Agent == "" {
		doc.Agent = a.Name
	}
	if t == nil {
		return
	}
	if doc.Project == "" {
		doc.Project = t.Meta.Cwd
		if doc.Project == "" && a != nil && a.Cwd != nil && path != "" {
			doc.Project = a.Cwd(x.opts.Env, path)
		}
	}
	if doc.SessionID == "" {
		doc.SessionID = t.Meta.SessionID
	}
	if doc.SessionID == "" && doc.Kind == store.SearchVersion {
		doc.SessionID = x.versionSession
	}
	if doc.Title == "" {
		doc.Title = oneLine(t.Meta.Title, titleRunes)
		if doc.Title == "" {
			doc.Title = firstPrompt(t.Messages)
		}
	}
}

// pieceReader reads a source's pieces: whole records from off on, each
// parsed on its own.
type pieceReader struct {
	r    io.ReaderAt
	size int64
	buf  []byte
}

// next reads the piece at off: at least pieceBytes up to the end of a
// line (records end at line ends in every format read in pieces), parsed
// with ap from nothing. It returns the parse and the bytes it consumed
// (complete records only; 0 at the end or before a last partial record).
func (p *pieceReader) next(ap format.Appender, off int64) (*transcript.Transcript, []byte, error) {
	want := int64(pieceBytes)
	for {
		end := min(off+want, p.size)
		data, err := p.read(off, end)
		if err != nil {
			return nil, nil, err
		}
		// Extend to the end of the line the piece stops in.
		for end < p.size && (len(data) == 0 || data[len(data)-1] != '\n') {
			more, err := p.read(end, min(end+4096, p.size))
			if err != nil {
				return nil, nil, err
			}
			if i := bytes.IndexByte(more, '\n'); i >= 0 {
				more = more[:i+1]
			}
			data = append(data, more...)
			end += int64(len(more))
			if end-off > sourcefile.MaxLineBytes+want {
				return nil, nil, fmt.Errorf("a record past %d MiB", sourcefile.MaxLineBytes>>20)
			}
		}
		t, err := ap.Append(nil, data)
		if err != nil {
			return nil, nil, err
		}
		if t.Size > 0 || end >= p.size {
			return t, data[:t.Size], nil
		}
		want *= 2 // a record that ends past the line: read on
	}
}

func (p *pieceReader) read(lo, hi int64) ([]byte, error) {
	n := int(hi - lo)
	if cap(p.buf) < n {
		p.buf = make([]byte, n)
	}
	b := p.buf[:n]
	if _, err := p.r.ReadAt(b, lo); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// allPieces indexes a growing source from its first byte. It fails with
// errReadWhole when the codec reads the source whole after all: its first
// piece does not parse as the start of a transcript it can append to.
func (x *Index) allPieces(ctx context.Context, codec format.Codec, ap format.Appender, r io.ReaderAt, doc store.SearchDoc, prev *store.SearchDoc) (Stats, error) {
	pr := &pieceReader{r: r, size: doc.Size}
	t, raw, err := pr.next(ap, 0)
	if err != nil {
		return Stats{}, errReadWhole
	}
	if len(raw) > 0 {
		head, err := codec.Parse(raw)
		if err != nil {
			return Stats{}, errReadWhole
		}
		if _, err := ap.Append(head, nil); err != nil {
			return Stats{}, errReadWhole
		}
	}
	x.describe(&doc, codec.Format(), t, doc.Source)
	chunks, end, lines, err := x.readPieces(ctx, ap, pr, 0, 0, t, raw)
	if err != nil {
		return Stats{}, err
	}
	doc.Lines = lines
	return x.finish(ctx, r, doc, prev, true, nil, chunks, 0, end)
}

// appendPieces indexes what was appended to a growing source (and its
// last piece again when it is short).
func (x *Index) appendPieces(ctx context.Context, ap format.Appender, r io.ReaderAt, doc store.SearchDoc, prev *store.SearchDoc) (Stats, error) {
	from, lines := prev.Indexed, prev.Lines
	var drop []int64
	var dropped int64
	id, last, ok, err := x.st.LastSearchChunk(ctx, prev.ID)
	if err != nil {
		return Stats{}, err
	}
	if ok && last.Hi == prev.Indexed && last.Hi-last.Lo < shortPiece && !prev.Evicted {
		from, lines, drop, dropped = last.Lo, last.Line-1, []int64{id}, last.TextBytes
	}
	pr := &pieceReader{r: r, size: doc.Size}
	t, raw, err := pr.next(ap, from)
	if err != nil {
		return Stats{}, nil // a record past the bounds: left as it was
	}
	doc.Format, doc.Agent, doc.Project, doc.SessionID, doc.Title = prev.Format, prev.Agent, prev.Project, prev.SessionID, prev.Title
	x.describe(&doc, transcript.Format(prev.Format), t, doc.Source)
	chunks, end, lines, err := x.readPieces(ctx, ap, pr, from, lines, t, raw)
	if err != nil {
		return Stats{}, err
	}
	doc.Lines = lines
	doc.TextBytes = prev.TextBytes - dropped
	doc.Updated = prev.Updated
	return x.finish(ctx, r, doc, prev, false, drop, chunks, from, end)
}

// readPieces reads pieces from off, after lines line ends (the first,
// t from raw, already read), to the source's end. It returns them, where
// they end and the line ends up to there.
func (x *Index) readPieces(ctx context.Context, ap format.Appender, pr *pieceReader, off, lines int64, t *transcript.Transcript, raw []byte) ([]store.SearchChunk, int64, int64, error) {
	var chunks []store.SearchChunk
	for len(raw) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, 0, 0, err
		}
		ps := passages(t.Messages, 0)
		if text := joined(ps); text != "" {
			chunks = append(chunks, store.SearchChunk{Lo: off, Hi: off + int64(len(raw)), From: off, To: off + int64(len(raw)), Verbatim: verbatim(raw, text),
				Line: lines + 1, Time: newest(t.Messages), Text: text, Terms: pairKeys(ps)})
		}
		off += int64(len(raw))
		lines += int64(bytes.Count(raw, []byte{'\n'}))
		var err error
		if t, raw, err = pr.next(ap, off); err != nil {
			x.log.Debug("search: a piece could not be read; the rest of the source waits", "err", err)
			break
		}
	}
	return chunks, off, lines, nil
}

// finish writes a growing source's new pieces, indexed up to end.
func (x *Index) finish(ctx context.Context, r io.ReaderAt, doc store.SearchDoc, prev *store.SearchDoc, replace bool, drop []int64, chunks []store.SearchChunk, from, end int64) (Stats, error) {
	doc.Indexed = end
	fp, err := fingerprint(r, end)
	if err != nil {
		return Stats{}, err
	}
	doc.Fingerprint = fp
	st := Stats{Sources: 1, Indexed: 1, Bytes: end - from}
	doc.Updated = stamp(&doc, chunks, &st)
	_, err = x.st.UpdateSearch(ctx, store.SearchUpdate{Doc: doc, Expect: prev, Replace: replace && prev != nil, Drop: drop, Chunks: chunks})
	return st, err
}

// stamp counts chunks' text into doc and st and returns doc's last
// activity: its newest message, else its modification time; pieces with
// no timestamped message take it.
func stamp(doc *store.SearchDoc, chunks []store.SearchChunk, st *Stats) time.Time {
	updated := doc.Updated
	dated := false
	for _, c := range chunks {
		doc.TextBytes += int64(len(c.Text))
		st.Text += int64(len(c.Text))
		if !c.Time.IsZero() {
			dated = true
			if c.Time.After(updated) {
				updated = c.Time
			}
		}
	}
	if mt := time.Unix(0, doc.MTime); !dated && mt.After(updated) {
		updated = mt
	}
	for i := range chunks {
		if chunks[i].Time.IsZero() {
			chunks[i].Time = updated
		}
	}
	return updated
}

// indexWhole indexes a source the codec reads whole, in pieces of whole
// messages (Lo and Hi are message indexes).
func (x *Index) indexWhole(ctx context.Context, codec format.Codec, data []byte, doc store.SearchDoc, prev *store.SearchDoc, path string) (Stats, error) {
	doc.Whole = true
	if doc.Fingerprint == "" {
		doc.Fingerprint = store.ContentHash(data)[:24]
	}
	if prev != nil && prev.Whole && prev.Fingerprint == doc.Fingerprint && !prev.Evicted {
		// Touched, not changed.
		next := *prev
		next.Size, next.MTime = doc.Size, doc.MTime
		_, err := x.st.UpdateSearch(ctx, store.SearchUpdate{Doc: next, Expect: prev})
		return Stats{Sources: 1}, err
	}
	t, err := codec.Parse(data)
	if err != nil {
		_, err := x.st.UpdateSearch(ctx, store.SearchUpdate{Doc: doc, Expect: prev, Replace: prev != nil})
		return Stats{Sources: 1}, err
	}
	x.describe(&doc, codec.Format(), t, path)
	var chunks []store.SearchChunk
	lo, n := 0, 0
	flush := func(hi int) {
		if hi > lo {
			msgs := t.Messages[lo:hi]
			ps := passages(msgs, lo)
			if text := joined(ps); text != "" {
				from, to := recordBytes(t, msgs, int64(len(data)))
				chunks = append(chunks, store.SearchChunk{Lo: int64(lo), Hi: int64(hi), From: from, To: to, Verbatim: verbatim(data[from:to], text),
					Time: newest(msgs), Text: text, Terms: pairKeys(ps)})
			}
		}
		lo, n = hi, 0
	}
	for i := range t.Messages {
		for _, p := range passages(t.Messages[i:i+1], i) {
			n += len(p.Text)
		}
		if n >= wholeText {
			flush(i + 1)
		}
	}
	flush(len(t.Messages))
	doc.Indexed = int64(len(t.Messages))
	st := Stats{Sources: 1, Indexed: 1, Bytes: int64(len(data))}
	doc.Updated = stamp(&doc, chunks, &st)
	_, err = x.st.UpdateSearch(ctx, store.SearchUpdate{Doc: doc, Expect: prev, Replace: prev != nil, Chunks: chunks})
	return st, err
}

// verbatimSamples is how many of a piece's words are looked for in its
// bytes to tell whether they hold its text as written.
const verbatimSamples = 16

// verbatim reports whether raw, a piece's bytes, holds text as written:
// its longer ASCII words, sampled across it, are all there (lower-cased).
// Formats that encode text on disk (jp keeps tool output in base64) fail
// it, and their pieces are parsed before they are looked at.
func verbatim(raw []byte, text string) bool {
	var words []string
	seen := map[string]bool{}
	for _, t := range terms(text) {
		if len(t.Text) >= 6 && isASCII(t.Text) && !seen[t.Text] {
			seen[t.Text] = true
			words = append(words, t.Text)
		}
	}
	if len(words) == 0 {
		return false
	}
	low := bytes.ToLower(raw)
	step := max(len(words)/verbatimSamples, 1)
	for i := 0; i < len(words); i += step {
		if !bytes.Contains(low, []byte(words[i])) {
			return false
		}
	}
	return true
}

// recordBytes is the range of the source's bytes that msgs' records take
// (the whole source when they name none).
func recordBytes(t *transcript.Transcript, msgs []transcript.Message, size int64) (from, to int64) {
	from, to = size, 0
	for _, m := range msgs {
		for _, r := range m.Records {
			if r >= 0 && r < len(t.Records) {
				from, to = min(from, t.Records[r].Start), max(to, t.Records[r].End)
			}
		}
	}
	if to <= from {
		return 0, size
	}
	return from, min(to, size)
}

// indexVersion indexes a stored version (once: versions never change).
func (x *Index) indexVersion(ctx context.Context, v store.VersionToIndex) (Stats, error) {
	codec, ok := format.Lookup(transcript.Format(v.Format))
	if !ok {
		return Stats{}, nil
	}
	data, err := x.st.Content(ctx, v.ContentHash)
	if err != nil {
		x.log.Warn("search: a stored version could not be read", "version", v.Label, "conversation", v.Conversation.Key, "err", err)
		return Stats{}, nil
	}
	// The session id is the version's own (a fork's, a handoff's), read
	// from it, else its conversation's.
	doc := store.SearchDoc{Source: versionSource(v.ID), Kind: store.SearchVersion, Conversation: v.Conversation.Key, Version: v.Label,
		Size: v.Size, MTime: v.Created.UnixNano()}
	path := v.ForkPath
	if path == "" {
		path = v.SourcePath
	}
	x.versionSession = v.Conversation.SessionID
	defer func() { x.versionSession = "" }()
	if ap, ok := codec.(format.Appender); ok {
		doc.Size = int64(len(data))
		st, err := x.allPieces(ctx, codec, ap, bytes.NewReader(data), doc, nil)
		if !errors.Is(err, errReadWhole) {
			return st, err
		}
	}
	return x.indexWhole(ctx, codec, data, doc, nil, path)
}

func versionSource(id int64) string { return "version:" + strconv.FormatInt(id, 10) }

func versionID(source string) (int64, bool) {
	s, ok := strings.CutPrefix(source, "version:")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}

// dbSource names a session of an agent's database.
func dbSource(database, session string) string { return database + "#" + session }

func splitDBSource(source string) (database, session string) {
	i := strings.LastIndexByte(source, '#')
	if i < 0 {
		return source, ""
	}
	return source[:i], source[i+1:]
}

// indexDBSession indexes a session an agent keeps in its database,
// rendered as its export, whole, when its fingerprint changed.
func (x *Index) indexDBSession(ctx context.Context, db *agentdb.DB, a *agents.Agent, ses agentdb.Session, prev *store.SearchDoc) (Stats, error) {
	if prev != nil && prev.Fingerprint == ses.Fingerprint {
		return Stats{}, nil
	}
	data, err := db.Export(ctx, ses.ID)
	if errors.Is(err, agentdb.ErrNoSession) {
		return Stats{}, nil
	}
	if err != nil {
		return Stats{}, err
	}
	codec, err := format.Detect(ses.ID+".json", data)
	if err != nil || !a.HasFormat(codec.Format()) {
		return Stats{}, nil
	}
	doc := store.SearchDoc{Source: dbSource(db.Path(), ses.ID), Kind: store.SearchDatabase, Agent: a.Name, Project: ses.Directory,
		Title: oneLine(ses.Title, titleRunes), Size: int64(len(data)), Fingerprint: ses.Fingerprint}
	return x.indexWhole(ctx, codec, data, doc, prev, "")
}

// agentDBs are the agents' databases the index reads, open while it lives.
type agentDBs struct {
	mu    sync.Mutex
	conns map[string]*agentdb.DB
}

func (a *agentDBs) open(path string) (*agentdb.DB, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if db := a.conns[path]; db != nil {
		return db, nil
	}
	db, err := agentdb.Open(path)
	if err != nil {
		return nil, err
	}
	if a.conns == nil {
		a.conns = map[string]*agentdb.DB{}
	}
	a.conns[path] = db
	return db, nil
}

func (a *agentDBs) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, db := range a.conns {
		db.Close()
	}
	a.conns = nil
}
