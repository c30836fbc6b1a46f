package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// What one read of a transcript may hold. A transcript is read in pieces
// of readChunk bytes, so memory follows what is kept of it, not its size.
const (
	readChunk = 8 << 20
	// maxLine is the longest line the index reads. A longer one (a
	// runaway tool output, a file of NUL bytes with no line break) is
	// skipped, scanned through rather than held, and reported.
	maxLine = 32 << 20
	// maxWhole is the largest transcript in a one-document format (a JSON
	// array or object, Markdown) the index reads whole.
	maxWhole = 256 << 20
	// serialChunk is the piece a serial indexer reads: below the size
	// from which the codecs decode on every core.
	serialChunk = 512 << 10
	// slackChunk is what a piece holds beyond the bytes the file had at
	// its Stat, for what was appended since.
	slackChunk = 64 << 10
)

// tracked is the index entry of one transcript file. Its mutex serializes
// updates of that file; readers use snap without locking.
//
// It has many fields because it is the one place a transcript's state is
// carried from one append to the next (the parse, the counts, the tally,
// the line offsets, the long lines skipped, the budgets' marks): each is
// read and written under its mutex, by the few functions of this package.
//
// Every entry keeps what its codec needs to go on appending, its messages'
// counts and the byte offsets of its lines: an append costs what it adds,
// whatever the file's size. A hot entry also keeps every message's parts
// and their counts, for dry-run savings and compaction jobs; the others
// are trimmed (format.Trimmer) to what appends need. No entry keeps the
// file's bytes.
type tracked struct {
	path string
	snap atomic.Pointer[Snapshot]

	mu    sync.Mutex
	codec format.Codec
	t     *transcript.Transcript
	// counts[i] is the token count of t.Messages[i]; the first same
	// messages are unchanged since the previous snapshot.
	counts []tokens.Count
	same   int
	// parts[i][j] is the count of t.Messages[i].Parts[j] while hot (nil
	// for a message counted from the cache as a whole); nil when trimmed.
	parts [][]int
	// countedWith is the ID of the counter that produced counts: when the
	// transcript's model changes how messages count, every count is redone.
	countedWith string
	// stats are t's gauge figures, carried forward from append to append
	// so the gauge never walks every message.
	stats transcript.Stats
	// tally carries the breakdown's figures likewise (insight.go), and
	// dryRun caches the last per-turn dry run for views.
	tally  gauge.Tally
	dryRun atomic.Pointer[DryRunTurns]
	ino    uint64
	// fileSize and fileMod are what the file was when last parsed whole:
	// a compressed transcript is never tailed, so they alone tell
	// whether it changed.
	fileSize int64
	fileMod  time.Time
	// scanned is how many source bytes lineStarts covers.
	scanned    int64
	lineStarts []int64
	seq        uint64
	// rawFrom is the first record that may still hold its bytes (records
	// before it were dropped after counting).
	rawFrom int
	// trimmed is how many leading messages have lost their parts.
	trimmed int
	// skip is a line too long to read, being scanned through.
	skip *longLine
	// long are the lines skipped so far, for the snapshot's status.
	long []longLine
	// resumedFrom is, for an entry Resume installed, how many leading
	// messages are placeholders (suspend.go); 0 otherwise.
	resumedFrom int
	// bytesRead counts source bytes read for this file since tracking began
	// (full reads and tails), for the O(appended bytes) checks.
	bytesRead atomic.Int64
	// parsed mirrors t != nil; hot says t holds every message's parts.
	parsed, hot atomic.Bool
	// refreshing counts the Refreshes of this file under way: between the
	// new snapshot and the file becoming the active one, the estimates
	// must not judge it "not in use" (see savingsInput).
	refreshing atomic.Int32
	// wantHot asks the next full parse to keep every message's parts.
	wantHot atomic.Bool
	// ctx, when set, ends a read of this entry early (the estimates' own
	// reads, which a newer change makes moot).
	ctx context.Context
	// overhead is what the source of this file (a fork compactd wrote)
	// held beyond its transcript, looked up on every full parse.
	overhead int
	// savingsFor is the Seq the current savings were computed for.
	savingsFor uint64
	opened     atomic.Bool
	// lastChange is when the file last changed (UnixNano), for eviction.
	lastChange atomic.Int64
	// seen is set once the daemon has read the file; grewAt is when it
	// last saw the file change after that (UnixNano): a growing session.
	seen   atomic.Bool
	grewAt atomic.Int64
}

// longLine is a line longer than maxLine: from its first byte, through the
// bytes scanned so far (all NUL while nul).
type longLine struct {
	from, to int64
	nul      bool
	done     bool // its newline was found
}

func (l longLine) String() string {
	what := "A line"
	if l.nul {
		what = "A run of NUL bytes (a preallocated or sparse file?)"
	}
	if !l.done {
		return fmt.Sprintf("%s starts at byte %d and runs %s with no line break yet, longer than the %s a line may be: compactd skips it and gauges the rest", what, l.from, sizeText(l.to-l.from), sizeText(maxLine))
	}
	return fmt.Sprintf("%s of %s at byte %d is longer than the %s a line may be: compactd skipped it and gauges the rest", what, sizeText(l.to-l.from), l.from, sizeText(maxLine))
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MB", n>>20)
	default:
		return fmt.Sprintf("%d KB", n>>10)
	}
}

// position is where the next read starts: after what the codec consumed,
// or after what was scanned of a long line being skipped.
func (tr *tracked) position() int64 {
	if tr.skip != nil {
		return tr.skip.to
	}
	return tr.t.Size
}

// evict drops the parsed transcript, keeping the snapshot: hovers and
// gauges still work; the next change re-parses the file. Entries whose
// codec can trim are trimmed instead (see trim), unless full. It reports
// whether it did (an entry being updated is left alone).
func (tr *tracked) evict(full bool) bool {
	if !tr.mu.TryLock() {
		return false // being updated: it is in use
	}
	defer tr.mu.Unlock()
	if tr.t != nil && !full {
		if trimmer, ok := tr.codec.(format.Trimmer); ok && !sourcefile.Compressed(tr.path) {
			tr.trim(trimmer)
			return true
		}
	}
	tr.t, tr.counts, tr.parts, tr.same, tr.stats, tr.countedWith = nil, nil, nil, 0, transcript.Stats{}, ""
	tr.skip, tr.long = nil, nil
	tr.tally = gauge.Tally{}
	tr.parsed.Store(false)
	tr.hot.Store(false)
	return true
}

// coldSize estimates what a trimmed entry holds in memory: about 480
// bytes a record (its offsets and id, the codec's node and index entry,
// the strings decoded for them) and 240 a message (its header, usage and
// count), as measured on a 200 MB Claude Code session (620 bytes a
// record in all).
func (tr *tracked) coldSize() int64 {
	if tr.t == nil {
		return 0
	}
	return 480*int64(len(tr.t.Records)) + 240*int64(len(tr.t.Messages))
}

// keepParts is how many of the last messages keep their parts when an
// entry is trimmed: the breakdown's tally re-reads up to eight of them
// when an append changes the last ones.
const keepParts = 16

// trim lets go of every message's parts but what appends need. tr.mu is held.
func (tr *tracked) trim(trimmer format.Trimmer) {
	tr.trimmed = max(tr.trimmed, trimmer.Trim(tr.t, len(tr.t.Messages)-keepParts))
	tr.parts = nil
	tr.hot.Store(false)
}

// ErrNotTranscript marks files that no codec recognizes.
var ErrNotTranscript = errors.New("not a transcript")

// update brings the entry up to date with the file on disk. It returns
// changed=false when nothing new was consumed, and fs.ErrNotExist (wrapped)
// when the file is gone.
func (tr *tracked) update(ix *indexer) (changed bool, err error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	defer func() {
		if err != nil && errors.As(err, new(*jobs.PanicError)) {
			// A codec's bug on this file: it is read again whole at its
			// next change, and the server goes on.
			tr.t, tr.counts, tr.parts, tr.same, tr.stats, tr.countedWith = nil, nil, nil, 0, transcript.Stats{}, ""
			tr.skip, tr.long, tr.tally = nil, nil, gauge.Tally{}
			tr.parsed.Store(false)
			tr.hot.Store(false)
			changed = false
		}
	}()
	defer jobs.Recovered(&err, "read "+tr.path, ix.log)
	fi, err := os.Stat(tr.path)
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", tr.path, err)
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%w: %w", &sourcefile.NotRegularError{Path: tr.path, Mode: fi.Mode()}, ErrNotTranscript)
	}
	size, ino := fi.Size(), platform.FileID(tr.path, fi)
	if sourcefile.Compressed(tr.path) {
		if tr.t != nil && ino == tr.ino && size == tr.fileSize && fi.ModTime().Equal(tr.fileMod) {
			return false, nil
		}
		return tr.fullParse(ix, fi)
	}
	if tr.t != nil && ino == tr.ino && size >= tr.position() {
		if size == tr.position() {
			if tr.snap.Load() == nil {
				tr.publish(ix, fi) // resumed (Resume): the state is the file's
				return true, nil
			}
			return false, nil
		}
		if trimmer, ok := tr.codec.(format.Trimmer); ok {
			changed, err := tr.follow(ix, trimmer, fi)
			if errors.Is(err, format.ErrTrimmed) {
				ix.log.Debug("append needs trimmed content, re-parsing", "path", tr.path, "err", err)
				return tr.fullParse(ix, fi)
			}
			return changed, err
		}
		if app, ok := tr.codec.(format.Appender); ok {
			return tr.appendTail(ix, app, fi)
		}
	}
	return tr.fullParse(ix, fi)
}

// follow reads the file from where the entry stands to its end, in
// bounded pieces, and hands each piece's complete lines to the codec.
// tr.t is the transcript so far. The cost is what was appended.
func (tr *tracked) follow(ix *indexer, trimmer format.Trimmer, fi fs.FileInfo) (bool, error) {
	f, err := sourcefile.OpenRegular(tr.path) // a pipe swapped in since the Stat must not block
	if err != nil {
		return false, fmt.Errorf("open %s: %w", tr.path, err)
	}
	defer f.Close()
	pos := tr.position()
	if _, err := f.Seek(pos, io.SeekStart); err != nil {
		return false, fmt.Errorf("read %s at %d: %w", tr.path, pos, err)
	}
	changed, err := tr.stream(ix, trimmer, io.LimitReader(f, fi.Size()-pos), pos, fi)
	if err == nil && !changed && tr.snap.Load() == nil {
		changed = true // resumed (Resume), and only a partial line since
	}
	if changed {
		tr.publish(ix, fi)
	}
	return changed, err
}

// stream reads r, which continues the file at byte pos, in pieces of
// readChunk bytes (a line that needs more is read on, up to maxLine),
// appending each piece's complete lines to tr.t. A line longer than
// maxLine is scanned through, never held, and reported.
func (tr *tracked) stream(ix *indexer, trimmer format.Trimmer, r io.Reader, pos int64, fi fs.FileInfo) (changed bool, err error) {
	var buf, spare []byte
	eof := false
	// left is what the file held past pos at its Stat: a piece is no larger
	// than that (and a little slack), so a small file or append is not read
	// into a piece of readChunk bytes, each zeroed (5,000 small transcripts
	// cost 40 GB of zeroing).
	left := fi.Size() - pos
	for {
		for len(buf) > 0 {
			if tr.skip != nil {
				buf = tr.skipThrough(buf)
				changed = true
				if tr.skip.done {
					tr.endSkip()
					pos = tr.t.Size
				}
				continue
			}
			// Only the first line can be long: it may carry over from
			// earlier pieces; the others fit in one.
			first := bytes.IndexByte(buf, '\n')
			if first >= maxLine || (first < 0 && len(buf) >= maxLine) {
				tr.skip = &longLine{from: pos, to: pos, nul: true}
				continue
			}
			if first < 0 {
				break // a partial line: read on
			}
			nl := bytes.LastIndexByte(buf, '\n')
			nt, err := trimmer.Append(tr.t, buf[:nl+1])
			if err != nil {
				return changed, err
			}
			consumed := nt.Size - pos
			if consumed <= 0 || consumed > int64(nl+1) {
				return changed, fmt.Errorf("the %s codec consumed %d of %d bytes of complete lines at byte %d", trimmer.Format(), consumed, nl+1, pos)
			}
			if err := tr.absorb(ix, nt, buf[:consumed], pos); err != nil {
				return changed, err
			}
			changed = true
			pos = nt.Size
			buf = buf[consumed:]
		}
		if eof {
			break
		}
		// Read the next piece after what is left of this one. The codec
		// copies what it keeps, so an emptied buffer is reused.
		var next []byte
		if tr.ctx != nil && tr.ctx.Err() != nil {
			return changed, tr.ctx.Err()
		}
		piece := readChunk
		if ix.serial {
			piece = serialChunk
		}
		if want := max(left, 0) + slackChunk; want < int64(piece) {
			piece = int(want)
		}
		if len(buf) == 0 && cap(spare) >= piece {
			next = spare[:0]
		} else {
			next = make([]byte, len(buf), len(buf)+piece)
			copy(next, buf)
			if len(buf) == 0 {
				spare = next
			}
		}
		n, rerr := io.ReadFull(r, next[len(next):cap(next)])
		tr.bytesRead.Add(int64(n))
		left -= int64(n)
		buf = next[:len(next)+n]
		switch {
		case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
			eof = true
		case rerr != nil:
			return changed, fmt.Errorf("read %s: %w", tr.path, rerr)
		}
	}
	if changed {
		tr.finish()
	}
	return changed, nil
}

// skipThrough scans b, the next bytes of the long line tr.skip, up to its
// newline, and returns what follows it.
func (tr *tracked) skipThrough(b []byte) []byte {
	l := tr.skip
	i := bytes.IndexByte(b, '\n')
	seen := b
	if i >= 0 {
		seen = b[:i]
	}
	if l.nul && len(bytes.Trim(seen, "\x00")) > 0 {
		l.nul = false
	}
	if i < 0 {
		l.to += int64(len(b))
		return nil
	}
	l.to += int64(i + 1)
	l.done = true
	return b[i+1:]
}

// endSkip resumes after the long line tr.skip, whose newline was found:
// the codec goes on from there, never having seen it.
func (tr *tracked) endSkip() {
	l := *tr.skip
	next := *tr.t
	next.Size = l.to
	tr.t = &next
	tr.lineStarts, tr.scanned = scanLines(tr.lineStarts, []byte{'\n'}, l.to-1)
	tr.long = append(tr.long, l)
	tr.skip = nil
}

// absorb takes nt, the transcript after data (the source's bytes from pos
// on) was appended: carries the figures forward, counts what changed,
// drops what the index need not keep.
func (tr *tracked) absorb(ix *indexer, nt *transcript.Transcript, data []byte, pos int64) error {
	if skip := tr.scanned - pos; skip >= 0 && skip <= int64(len(data)) {
		tr.lineStarts, tr.scanned = scanLines(tr.lineStarts, data[skip:], tr.scanned)
	}
	same := unchangedPrefix(tr.t, tr.counts, nt)
	prev := tr.stats
	tr.stats = tr.stats.Advance(tr.t.Messages, nt.Messages, same)
	if rf := tr.resumedFrom; rf > 0 && (same < rf || prev.LastUsage >= rf && tr.stats.LastUsage < rf || prev.ModelAt >= rf && tr.stats.ModelAt < rf) {
		// The figures searched back into the messages a resumed entry
		// holds as placeholders.
		return fmt.Errorf("an append reaches messages the resumed state dropped: %w", format.ErrTrimmed)
	}
	if tr.resumedFrom > 0 {
		// Counting with another counter, or pricing at another price,
		// would read every message again.
		if ix.counterFor(tr.path, nt, tr.stats).ID() != tr.countedWith || !tr.tally.PricedAt(tr.tallyOptions(ix, nt, ix.settings(tr.path)).Price) {
			return fmt.Errorf("the model changed since the state was suspended: %w", format.ErrTrimmed)
		}
	}
	tr.recount(ix, same, nt)
	oldLen := len(tr.t.Records)
	tr.t = nt
	// The records before this piece were counted; their bytes are not
	// needed again (a message they continue is counted from its parts).
	for i := tr.rawFrom; i < min(oldLen, len(nt.Records)); i++ {
		nt.Records[i].Raw = nil
	}
	tr.rawFrom = oldLen
	if same < tr.trimmed {
		tr.trimmed = same // a new message list (a compaction replaced the history)
	}
	if !tr.hot.Load() {
		if trimmer, ok := tr.codec.(format.Trimmer); ok {
			tr.trim(trimmer)
		}
	}
	return nil
}

// finish ends a read. The records it keeps bytes of are the last
// message's (whose count a later line may change, and which the message
// cache keys by its bytes), copied out of the read buffer so that the
// buffer can go.
func (tr *tracked) finish() {
	t := tr.t
	keepFrom := len(t.Records)
	if n := len(t.Messages); n > 0 && len(t.Messages[n-1].Records) > 0 {
		keepFrom = min(keepFrom, max(t.Messages[n-1].Records[0], 0))
	}
	for i := tr.rawFrom; i < len(t.Records); i++ {
		if i < keepFrom {
			t.Records[i].Raw = nil
		} else if t.Records[i].Raw != nil {
			t.Records[i].Raw = bytes.Clone(t.Records[i].Raw)
		}
	}
	tr.rawFrom = keepFrom
}

// appendTail reads only the bytes after what was consumed and hands them
// to the codec's Append: the cost is proportional to what was appended.
// It serves codecs that cannot trim (their transcripts are held whole).
func (tr *tracked) appendTail(ix *indexer, app format.Appender, fi fs.FileInfo) (bool, error) {
	from := tr.t.Size
	if fi.Size()-from > maxLine {
		return tr.fullParse(ix, fi)
	}
	f, err := sourcefile.OpenRegular(tr.path) // a pipe swapped in since the Stat must not block
	if err != nil {
		return false, fmt.Errorf("open %s: %w", tr.path, err)
	}
	defer f.Close()
	tail := make([]byte, fi.Size()-from)
	n, err := f.ReadAt(tail, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read %s at %d: %w", tr.path, from, err)
	}
	tail = tail[:n]
	tr.bytesRead.Add(int64(n))
	nt, err := app.Append(tr.t, tail)
	if err != nil {
		// An append the codec cannot follow (a rewrite that kept the size
		// growing) falls back to a full parse rather than losing data.
		ix.log.Debug("append failed, re-parsing", "path", tr.path, "err", err)
		return tr.fullParse(ix, fi)
	}
	if nt.Size == tr.t.Size {
		return false, nil // only a partial line so far
	}
	// Lines: scan only bytes not scanned before.
	if skip := tr.scanned - from; skip >= 0 && skip <= int64(len(tail)) {
		tr.lineStarts, tr.scanned = scanLines(tr.lineStarts, tail[skip:], tr.scanned)
	}
	same := unchangedPrefix(tr.t, tr.counts, nt)
	tr.stats = tr.stats.Advance(tr.t.Messages, nt.Messages, same)
	tr.recount(ix, same, nt)
	tr.t = nt
	tr.parsed.Store(true)
	tr.publish(ix, fi)
	return true, nil
}

// reset forgets everything parsed, before a full parse, and looks up
// again what the file's source held beyond it (a fork's overhead).
func (tr *tracked) reset(ix *indexer, codec format.Codec, fi fs.FileInfo) {
	tr.codec, tr.ino, tr.fileSize, tr.fileMod = codec, platform.FileID(tr.path, fi), fi.Size(), fi.ModTime()
	tr.overhead = 0
	if ix.overhead != nil {
		tr.overhead, _ = ix.overhead(tr.path)
	}
	tr.lineStarts, tr.scanned = scanLines(nil, nil, 0)
	tr.rawFrom, tr.trimmed, tr.skip, tr.long, tr.resumedFrom = 0, 0, nil, nil, 0
	tr.stats = transcript.StatsOf(nil)
	tr.hot.Store(tr.wantHot.Load())
}

func (tr *tracked) fullParse(ix *indexer, fi fs.FileInfo) (bool, error) {
	codec := tr.codec
	compressed := sourcefile.Compressed(tr.path)
	if codec == nil || tr.t == nil || platform.FileID(tr.path, fi) != tr.ino || fi.Size() < tr.t.Size || compressed {
		// Detect from the head alone, so a large file that is not a
		// transcript costs one small read.
		head, err := sourcefile.ReadHead(tr.path, format.DetectBytes)
		if err != nil {
			return false, err
		}
		tr.bytesRead.Add(int64(len(head)))
		c, err := format.Detect(sourcefile.PlainName(tr.path), head)
		if err != nil {
			return false, fmt.Errorf("%w: %w", ErrNotTranscript, err)
		}
		codec = c
	}
	if trimmer, ok := codec.(format.Trimmer); ok {
		return tr.streamParse(ix, trimmer, fi)
	}
	if fi.Size() > maxWhole {
		return false, fmt.Errorf("%s is %s, more than the %s compactd reads of a %s transcript", tr.path, sizeText(fi.Size()), sizeText(maxWhole), codec.Format())
	}
	data, err := sourcefile.ReadFile(tr.path)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", tr.path, err)
	}
	tr.bytesRead.Add(int64(len(data)))
	nt, err := codec.Parse(data)
	if err != nil {
		return false, fmt.Errorf("parse %s as %s: %w", tr.path, codec.Format(), err)
	}
	old, oldCounts := tr.t, tr.counts
	if old != nil && old.Format != nt.Format {
		old, oldCounts = nil, nil
	}
	tr.reset(ix, codec, fi)
	tr.hot.Store(true) // held whole: these codecs cannot trim
	tr.lineStarts, tr.scanned = scanLines(nil, data, 0)
	tr.stats = transcript.StatsOf(nt.Messages)
	tr.recount(ix, unchangedPrefix(old, oldCounts, nt), nt)
	tr.t = nt
	tr.rawFrom = len(nt.Records)
	tr.parsed.Store(true)
	tr.publish(ix, fi)
	return true, nil
}

// streamParse reads the whole file in pieces from an empty transcript.
func (tr *tracked) streamParse(ix *indexer, trimmer format.Trimmer, fi fs.FileInfo) (bool, error) {
	r, err := sourcefile.Open(tr.path)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", tr.path, err)
	}
	defer r.Close()
	empty, err := trimmer.Append(nil, nil)
	if err != nil {
		return false, fmt.Errorf("parse %s as %s: %w", tr.path, trimmer.Format(), err)
	}
	tr.reset(ix, trimmer, fi)
	tr.t, tr.counts, tr.parts, tr.same = empty, nil, nil, 0
	_, err = tr.stream(ix, trimmer, r, 0, fi)
	if errors.Is(err, format.ErrTrimmed) && !tr.hot.Load() {
		// The active branch moved back into trimmed history further down
		// the file (a rewind): read it again keeping every part.
		tr.wantHot.Store(true)
		defer tr.wantHot.Store(false)
		return tr.streamParse(ix, trimmer, fi)
	}
	if err != nil {
		return false, fmt.Errorf("parse %s as %s: %w", tr.path, trimmer.Format(), err)
	}
	if n := len(tr.t.Records); n > 0 && tr.t.Skipped == n {
		return false, fmt.Errorf("%w: no line of %s is a %s record", ErrNotTranscript, tr.path, trimmer.Format())
	}
	// Growing by appends left the lists up to twice their length.
	t := *tr.t
	t.Records = tight(t.Records)
	t.Messages = tight(t.Messages)
	tr.t = &t
	tr.parsed.Store(true)
	tr.publish(ix, fi)
	return true, nil
}

// tight returns s in an array with room for an eighth more, when its
// own has much more.
func tight[T any](s []T) []T {
	if cap(s) <= len(s)+len(s)/4 {
		return s
	}
	return append(make([]T, 0, len(s)+len(s)/8), s...)
}

// publish builds and installs a new snapshot from the entry's state.
// Callers hold tr.mu.
func (tr *tracked) publish(ix *indexer, fi fs.FileInfo) {
	tr.seq++
	s := buildSnapshot(tr, ix, ix.settings(tr.path), fi.Size())
	prev := tr.snap.Load()
	if prev != nil && prev.Savings != nil {
		s.Savings = prev.Savings // stale estimates beat none while recomputing
	}
	if prev != nil && prev.Size <= s.Size {
		s.AgentCompacted = tr.newSummary(prev.Size)
	}
	s.SavingsPending = true
	tr.snap.Store(s)
}

// newSummary is the byte where the last agent-compaction summary among the
// messages that changed begins, when it begins at or after from (in the
// bytes appended since the previous snapshot); -1 when there is none.
// Only the changed messages are read: an append costs what it adds.
func (tr *tracked) newSummary(from int64) int64 {
	t := tr.t
	at := int64(-1)
	for i := min(tr.same, len(t.Messages)); i < len(t.Messages); i++ {
		m := &t.Messages[i]
		if m.Origin != transcript.OriginSummary || len(m.Records) == 0 {
			continue
		}
		if r := m.Records[0]; r >= 0 && r < len(t.Records) && t.Records[r].Start >= from {
			at = t.Records[r].Start
		}
	}
	return at
}

// rebuild re-derives the snapshot (new settings) without touching the
// file. When the model setting changed, an evicted or trimmed entry's
// counts may be for another encoding or image pricing: it reports reread,
// and the caller has the file read again.
func (tr *tracked) rebuild(ix *indexer, modelChanged bool) (reread bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	prev := tr.snap.Load()
	if prev == nil {
		return false
	}
	tr.seq++
	if tr.t == nil {
		// Evicted: re-derive the window and level from the snapshot
		// rather than re-reading the file.
		tr.snap.Store(prev.withSettings(ix.settings(tr.path), tr.seq))
		return modelChanged
	}
	if ix.counterFor(tr.path, tr.t, tr.stats).ID() != tr.countedWith {
		if tr.trimmed > 0 {
			// The parts to count again are gone: read the file again.
			tr.snap.Store(prev.withSettings(ix.settings(tr.path), tr.seq))
			tr.t = nil
			tr.parsed.Store(false)
			return true
		}
		tr.recount(ix, 0, tr.t)
	}
	s := buildSnapshot(tr, ix, ix.settings(tr.path), prev.Size)
	s.Savings, s.SavingsPending = prev.Savings, true
	tr.snap.Store(s)
	return false
}

func buildSnapshot(tr *tracked, ix *indexer, set *Settings, size int64) *Snapshot {
	t := tr.t
	opts := gauge.Options{Model: set.Gauge.Model, ContextWindow: set.Gauge.ContextWindow, Registry: ix.registry, Warn: set.Gauge.Warn, Critical: set.Gauge.Critical, Stats: &tr.stats, Overhead: tr.overhead}
	if opts.ContextWindow == 0 && len(set.windows) > 0 {
		opts.ContextWindow = longestPrefix(set.windows, gauge.Resolve(t, opts).Model)
	}
	if ix.threshold != nil {
		// The agent computes its point from the model's window as it
		// knows it, not from a window compactd's settings impose.
		agentView := gauge.Resolve(t, gauge.Options{Model: set.Gauge.Model, Registry: ix.registry, Stats: &tr.stats})
		opts.AutoCompact = ix.threshold(tr.path, t, agentView)
	}
	// Live needs only the counts after the last reported usage: the
	// append path stays independent of the transcript's length.
	g := gauge.Live(t, tr.counts[min(gauge.TailStart(t), len(tr.counts)):], opts)
	natural := g.ContextWindow
	if opts.ContextWindow > 0 {
		natural = gauge.Resolve(t, gauge.Options{Model: set.Gauge.Model, Registry: ix.registry, Stats: &tr.stats}).ContextWindow
	}
	s := &Snapshot{
		Path: tr.path, Format: t.Format, Model: g.Model, Window: g.ContextWindow,
		Tokens: g.Tokens, Ratio: g.Ratio, Level: Level(g.Level), Source: string(g.Source), Approx: g.Approx,
		UpdatedAt: time.Now(), Size: size, Messages: len(t.Messages), Problems: t.Skipped + len(tr.long), AgentCompacted: -1,
		Seq: tr.seq, lineStarts: tr.lineStarts, naturalWindow: natural,
	}
	if tr.skip != nil {
		s.Problems++
	}
	s.Status = tr.status()
	s.AutoCompact = g.AutoCompact
	s.Gauge = g
	if g.ContextWindow > 0 {
		s.CriticalAt = float64(g.CriticalAt) / float64(g.ContextWindow)
	}
	s.Turns = turnInfos(tr, s)
	s.Insight = insightOf(tr, ix, set, g, s.Turns)
	return s
}

// status says in one sentence what the index could not read, "" when it
// read everything.
func (tr *tracked) status() string {
	switch {
	case tr.skip != nil:
		return tr.skip.String() + "."
	case len(tr.long) == 1:
		return tr.long[0].String() + "."
	case len(tr.long) > 1:
		return fmt.Sprintf("%d lines are longer than the %s a line may be; compactd skipped them and gauges the rest (the first: %s).", len(tr.long), sizeText(maxLine), tr.long[0].String())
	}
	return ""
}

// turnInfos builds the per-turn figures, reusing the previous snapshot's
// for the leading turns that did not change (an append touches the last
// turn or two), so an append costs what it added.
func turnInfos(tr *tracked, s *Snapshot) []TurnInfo {
	t := tr.t
	turns := t.Turns
	if turns == nil {
		turns = transcript.BuildTurns(t.Messages)
	}
	var prev []TurnInfo
	if p := tr.snap.Load(); p != nil {
		prev = p.Turns
	}
	// Reusable turns form a prefix too (see recount).
	keep := sort.Search(min(len(prev), len(turns)), func(k int) bool {
		return prev[k].endMsg > tr.same || prev[k].startMsg != turns[k].Start || prev[k].endMsg != turns[k].End
	})
	if keep == len(turns) && keep > 0 {
		keep-- // the last turn is always rebuilt: its messages may have grown
	}
	// A fresh array: the previous snapshot still reads its own.
	out := make([]TurnInfo, keep, len(turns))
	copy(out, prev[:keep])
	cum := 0
	if keep > 0 {
		cum = out[keep-1].Cumulative
	}
	for i := keep; i < len(turns); i++ {
		tu := turns[i]
		ti := TurnInfo{Index: i, Messages: tu.End - tu.Start, StartByte: -1, startMsg: tu.Start, endMsg: tu.End}
		for m := tu.Start; m < tu.End && m < len(tr.counts); m++ {
			ti.Tokens += tr.counts[m].N
			if ti.StartByte < 0 && len(t.Messages[m].Records) > 0 {
				if r := t.Messages[m].Records[0]; r >= 0 && r < len(t.Records) {
					ti.StartByte = t.Records[r].Start
				}
			}
		}
		if ti.StartByte < 0 {
			if i > 0 {
				ti.StartByte = out[i-1].StartByte
			} else {
				ti.StartByte = 0
			}
		}
		cum += ti.Tokens
		ti.Cumulative = cum
		ti.StartLine = s.LineOf(ti.StartByte)
		ti.Prompt = promptOf(&t.Messages[tu.Start])
		if ti.Prompt == "" && t.Messages[tu.Start].Parts == nil && i < len(prev) && prev[i].startMsg == tu.Start {
			ti.Prompt = prev[i].Prompt // the turn's first message was trimmed
		}
		out = append(out, ti)
	}
	return out
}

func promptOf(m *transcript.Message) string {
	for _, p := range m.Parts {
		if p.Kind == transcript.PartText && p.Text != "" {
			s := string(bytes.Join(bytes.Fields([]byte(p.Text)), []byte(" ")))
			if len(s) > 60 {
				cut := 60
				for cut > 0 && !utf8.RuneStart(s[cut]) {
					cut--
				}
				s = s[:cut] + "…"
			}
			return s
		}
	}
	return ""
}

// scanLines extends starts with the line starts found in data, which
// begins at source offset base.
func scanLines(starts []int64, data []byte, base int64) ([]int64, int64) {
	if len(starts) == 0 {
		starts = append(starts, 0)
	}
	off := 0
	for {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, base+int64(off))
	}
	return starts, base + int64(len(data))
}

// indexer is what entries need from the daemon while updating.
type indexer struct {
	// forced, when set, counts every transcript; else counters hands out
	// one per model encoding and image pricing.
	forced   *tokens.Counter
	counters *tokens.CounterSet
	registry *tokens.Registry
	// cache remembers whole messages' counts by content; nil disables it.
	cache tokens.Cache
	// settings is the configuration of the transcript at a path.
	settings func(path string) *Settings
	log      interface {
		Debug(msg string, args ...any)
		Error(msg string, args ...any)
	}
	// serial reads in pieces small enough for the codecs to decode on one
	// core and counts on one: the background estimates leave the other
	// core to the gauge.
	serial bool
	// tokenized counts messages counted with BPE (not reused), for tests and the bench.
	tokenized atomic.Int64
	// puts carries new message counts to writeCache; nil writes inline.
	puts chan cachePut
	// overhead looks up a fork's inherited overhead (Options.Overhead).
	overhead func(path string) (int, bool)
	// threshold is the agent's own compaction point for the session at
	// path (thresholds.of); nil leaves the gauge its typical figure.
	threshold func(path string, t *transcript.Transcript, r gauge.Resolved) *gauge.AutoCompact
	// allUsage keeps every usage point in the tallies (Options.AllUsage).
	allUsage bool
}

type cachePut struct {
	key tokens.Key
	n   tokens.Count
}

// put hands a message count to the cache writer. The store's cache
// commits (and syncs to disk) a transaction every thousand entries: a
// cold-scan worker waiting on that disk leaves its core idle. With the
// writer busy the count is written inline rather than waited for.
func (ix *indexer) put(key tokens.Key, n tokens.Count) {
	select {
	case ix.puts <- cachePut{key, n}:
	default:
		ix.cache.Put(key, n)
	}
}

// writeCache writes queued counts until ctx ends, then what is still
// queued, so a daemon closed after its scan leaves every count in the cache.
func (ix *indexer) writeCache(ctx context.Context) {
	for {
		select {
		case p := <-ix.puts:
			ix.cache.Put(p.key, p.n)
		case <-ctx.Done():
			for {
				select {
				case p := <-ix.puts:
					ix.cache.Put(p.key, p.n)
				default:
					return
				}
			}
		}
	}
}

// unchangedPrefix returns how many leading messages of nt are old's
// unchanged (an append leaves them alone), whose counts can be kept.
func unchangedPrefix(old *transcript.Transcript, oldCounts []tokens.Count, nt *transcript.Transcript) int {
	switch {
	case old != nil && nt.Kept > 0:
		// The codec says which leading messages its Append left as they
		// were (a merge into an earlier message ends them there, even if
		// the tool results after it are unchanged).
		return min(nt.Kept, len(old.Messages), len(oldCounts))
	case old != nil:
		// The unchanged messages form a prefix (the active branch shares
		// its start with the previous one and then diverges), so the end
		// of that prefix is found by binary search: an append to a
		// 200 MB transcript does not walk its 100k messages.
		n := min(len(old.Messages), len(nt.Messages), len(oldCounts))
		return sort.Search(n, func(i int) bool { return !sameMessage(old, &old.Messages[i], nt, &nt.Messages[i]) })
	}
	return 0
}

// recount brings tr.counts to nt's messages, keeping the counts of the
// first same messages unless nt now counts with another counter (its
// model became known or changed), and counting the rest on every core.
// tr.stats must already describe nt.
func (tr *tracked) recount(ix *indexer, same int, nt *transcript.Transcript) {
	c := ix.counterFor(tr.path, nt, tr.stats)
	if c.ID() != tr.countedWith {
		same = 0
	}
	hot := tr.hot.Load()
	var parts [][]int
	tr.counts, parts = ix.recount(c, tr.counts, same, nt, hot)
	if hot {
		tr.parts = append(tr.parts[:min(same, len(tr.parts))], parts...)
	}
	tr.same, tr.countedWith = same, c.ID()
	tr.advanceTally(ix, nt) // before the caller trims nt's parts
}

// recount returns per-message counts for nt, keeping oldCounts' first
// same and counting the rest with c on every core, and, when withParts,
// the parts' counts of the messages it counted.
func (ix *indexer) recount(c *tokens.Counter, oldCounts []tokens.Count, same int, nt *transcript.Transcript, withParts bool) (counts []tokens.Count, parts [][]int) {
	// Only the entry's own updates touch oldCounts (snapshots copy what
	// they need), so the unchanged prefix is extended in place.
	if same > 0 {
		counts = append(oldCounts[:same], make([]tokens.Count, len(nt.Messages)-same)...)
	} else {
		counts = make([]tokens.Count, len(nt.Messages))
	}
	rest := nt.Messages[same:]
	if withParts {
		parts = make([][]int, len(rest))
	}
	from := len(nt.Messages) - len(rest)
	count := func(i int) {
		var p []int
		counts[from+i], p = ix.countMessage(c, nt, &rest[i], withParts)
		if withParts {
			parts[from-same+i] = p
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(rest)/64))
	if ix.serial {
		workers = 1
	}
	if workers <= 1 {
		for i := range rest {
			count(i)
		}
	} else {
		var wg sync.WaitGroup
		chunk := (len(rest) + workers - 1) / workers
		for w := 0; w < workers; w++ {
			lo, hi := w*chunk, min((w+1)*chunk, len(rest))
			wg.Go(func() {
				for i := lo; i < hi; i++ {
					count(i)
				}
			})
		}
		wg.Wait()
	}
	return counts, parts
}

// countMessage counts one message, through the message cache when there
// is one: keyed by the message's on-disk bytes, so a restart (with the
// store-backed cache) hands nothing to the BPE, not even short texts the
// counter's own cache skips. With withParts, a message it counts is
// counted part by part (the parts' texts still go through the counter's
// cache) and the parts' counts returned.
func (ix *indexer) countMessage(c *tokens.Counter, t *transcript.Transcript, m *transcript.Message, withParts bool) (tokens.Count, []int) {
	key, keyed := ix.messageKey(c, t, m)
	if keyed {
		if n, ok := ix.cache.Get(key); ok {
			return n, nil // its parts' counts, when asked for, are unknown
		}
	}
	ix.tokenized.Add(1)
	var n tokens.Count
	var parts []int
	if withParts {
		n = tokens.Count{N: tokens.MessageOverhead}
		parts = make([]int, len(m.Parts))
		for j := range m.Parts {
			pc := c.CountPart(&m.Parts[j])
			parts[j] = pc.N
			n = n.Add(pc)
		}
	} else {
		n = c.CountMessage(m)
	}
	if keyed {
		ix.put(key, n)
	}
	return n, parts
}

// messageKey is the cache key of m's count: the hash of its records'
// bytes. ok is false without a cache, or when a record's bytes were
// already dropped (a message continued after its first lines were read).
func (ix *indexer) messageKey(c *tokens.Counter, t *transcript.Transcript, m *transcript.Message) (key tokens.Key, ok bool) {
	if ix.cache == nil || len(m.Records) == 0 {
		return key, false
	}
	h := sha256.New()
	for _, r := range m.Records {
		if r < 0 || r >= len(t.Records) {
			continue
		}
		if t.Records[r].Raw == nil {
			return key, false
		}
		h.Write(t.Records[r].Raw)
		h.Write([]byte{'\n'})
	}
	fmt.Fprintf(h, "%d", len(m.Parts))
	// The version names how codecs decode a message into parts: v2 since
	// Claude Code content blocks decode as the Messages API's do (MCP and
	// server tool results counted). Bump it when that changes again, so a
	// store's cached counts are not reused for other parts.
	key = tokens.Key{Encoding: c.ID() + "/message/v2"}
	h.Sum(key.Sum[:0])
	return key, true
}

// sameMessage reports whether message b of nt is message a of old at a
// later parse: the same records holding the same bytes, the same parts and
// the same reported usage. Comparing the bytes, not only where they sit,
// matters for agents that rewrite the whole file (Cline, jp, Gemini CLI's
// .json, trajectories): a message keeps its index, id and part count while
// its content grows. Claude Code grows a message line by line, so the
// record list is compared, not just its first element.
func sameMessage(old *transcript.Transcript, a *transcript.Message, nt *transcript.Transcript, b *transcript.Message) bool {
	if len(a.Records) != len(b.Records) || len(a.Parts) != len(b.Parts) || a.ID != b.ID {
		return false
	}
	if (a.Usage == nil) != (b.Usage == nil) || a.Usage != nil && *a.Usage != *b.Usage {
		return false
	}
	for k := range a.Records {
		ra, rb := a.Records[k], b.Records[k]
		if ra < 0 || rb < 0 || ra >= len(old.Records) || rb >= len(nt.Records) {
			if ra != rb {
				return false
			}
			continue
		}
		if !bytes.Equal(old.Records[ra].Raw, nt.Records[rb].Raw) {
			return false
		}
	}
	return true
}
