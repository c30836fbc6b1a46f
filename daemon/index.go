package daemon

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
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// tracked is the index entry of one transcript file. Its mutex serializes
// updates of that file; readers use snap without locking.
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
	// bytesRead counts source bytes read for this file since tracking began
	// (full reads and tails), for the O(appended bytes) checks.
	bytesRead atomic.Int64
	// parsed mirrors t != nil for lock-free stats.
	parsed atomic.Bool
	// savingsFor is the Seq the current savings were computed for.
	savingsFor uint64
	opened     atomic.Bool
	// lastChange is when the file last changed (UnixNano), for eviction.
	lastChange atomic.Int64
}

// evict drops the parsed transcript, keeping the snapshot: hovers and
// gauges still work; the next change re-parses the file. It reports
// whether it did (an entry being updated is left alone).
func (tr *tracked) evict() bool {
	if !tr.mu.TryLock() {
		return false // being updated: it is in use
	}
	defer tr.mu.Unlock()
	tr.t, tr.counts, tr.same, tr.stats, tr.countedWith = nil, nil, 0, transcript.Stats{}, ""
	tr.tally = gauge.Tally{}
	tr.parsed.Store(false)
	return true
}

// errNotTranscript marks files that no codec recognizes.
var errNotTranscript = errors.New("not a transcript")

// update brings the entry up to date with the file on disk. It returns
// changed=false when nothing new was consumed, and fs.ErrNotExist (wrapped)
// when the file is gone.
func (tr *tracked) update(ix *indexer) (changed bool, err error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	fi, err := os.Stat(tr.path)
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", tr.path, err)
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%s is not a regular file: %w", tr.path, errNotTranscript)
	}
	size, ino := fi.Size(), inodeOf(fi)
	if sourcefile.Compressed(tr.path) {
		if tr.t != nil && ino == tr.ino && size == tr.fileSize && fi.ModTime().Equal(tr.fileMod) {
			return false, nil
		}
		return tr.fullParse(ix, fi)
	}
	if tr.t != nil && ino == tr.ino && size >= tr.t.Size {
		if size == tr.t.Size {
			return false, nil
		}
		if app, ok := tr.codec.(format.Appender); ok {
			return tr.appendTail(ix, app, fi)
		}
	}
	return tr.fullParse(ix, fi)
}

// appendTail reads only the bytes after what was consumed and hands them
// to the codec's Append: the cost is proportional to what was appended.
func (tr *tracked) appendTail(ix *indexer, app format.Appender, fi fs.FileInfo) (bool, error) {
	f, err := os.Open(tr.path)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", tr.path, err)
	}
	defer f.Close()
	from := tr.t.Size
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

func (tr *tracked) fullParse(ix *indexer, fi fs.FileInfo) (bool, error) {
	codec := tr.codec
	compressed := sourcefile.Compressed(tr.path)
	if codec == nil || tr.t == nil || inodeOf(fi) != tr.ino || fi.Size() < tr.t.Size || compressed {
		// Detect from the head alone, so a large file that is not a
		// transcript costs one small read.
		head, err := sourcefile.ReadHead(tr.path, format.DetectBytes)
		if err != nil {
			return false, err
		}
		tr.bytesRead.Add(int64(len(head)))
		c, err := format.Detect(sourcefile.PlainName(tr.path), head)
		if err != nil {
			return false, fmt.Errorf("%w: %w", errNotTranscript, err)
		}
		codec = c
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
	tr.codec, tr.ino, tr.fileSize, tr.fileMod = codec, inodeOf(fi), fi.Size(), fi.ModTime()
	tr.lineStarts, tr.scanned = scanLines(nil, data, 0)
	tr.stats = transcript.StatsOf(nt.Messages)
	tr.recount(ix, unchangedPrefix(old, oldCounts, nt), nt)
	tr.t = nt
	tr.parsed.Store(true)
	tr.publish(ix, fi)
	return true, nil
}

// publish builds and installs a new snapshot from the entry's state.
// Callers hold tr.mu.
func (tr *tracked) publish(ix *indexer, fi fs.FileInfo) {
	tr.seq++
	s := buildSnapshot(tr, ix, ix.settings(), fi.Size())
	if prev := tr.snap.Load(); prev != nil && prev.Savings != nil {
		s.Savings = prev.Savings // stale estimates beat none while recomputing
	}
	s.SavingsPending = true
	tr.snap.Store(s)
}

// rebuild re-derives the snapshot (new settings) without touching the
// file. When the model setting changed, an evicted entry's counts may be
// for another encoding or image pricing: it reports reread, and the
// caller has the file read again.
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
		tr.snap.Store(prev.withSettings(ix.settings(), tr.seq))
		return modelChanged
	}
	if ix.counterFor(tr.t, tr.stats).ID() != tr.countedWith {
		tr.recount(ix, 0, tr.t)
	}
	s := buildSnapshot(tr, ix, ix.settings(), prev.Size)
	s.Savings, s.SavingsPending = prev.Savings, true
	tr.snap.Store(s)
	return false
}

func buildSnapshot(tr *tracked, ix *indexer, set Settings, size int64) *Snapshot {
	t := tr.t
	opts := gauge.Options{Model: set.Model, ContextWindow: set.ContextWindow, Registry: ix.registry, Warn: set.WarnRatio, Critical: set.CriticalRatio, Stats: &tr.stats}
	if opts.ContextWindow == 0 && len(set.Windows) > 0 {
		opts.ContextWindow = longestPrefix(set.Windows, gauge.Resolve(t, opts).Model)
	}
	// Live needs only the counts after the last reported usage: the
	// append path stays independent of the transcript's length.
	g := gauge.Live(t, tr.counts[min(gauge.TailStart(t), len(tr.counts)):], opts)
	natural := g.ContextWindow
	if opts.ContextWindow > 0 {
		natural = gauge.Resolve(t, gauge.Options{Model: set.Model, Registry: ix.registry, Stats: &tr.stats}).ContextWindow
	}
	s := &Snapshot{
		Path: tr.path, Format: t.Format, Model: g.Model, Window: g.ContextWindow,
		Tokens: g.Tokens, Ratio: g.Ratio, Level: Level(g.Level), Source: string(g.Source), Approx: g.Approx,
		UpdatedAt: time.Now(), Size: size, Messages: len(t.Messages), Problems: t.Skipped,
		Seq: tr.seq, lineStarts: tr.lineStarts, naturalWindow: natural,
	}
	if g.ContextWindow > 0 {
		s.AutoCompactAt = float64(g.AutoCompactAt) / float64(g.ContextWindow)
		s.CriticalAt = float64(g.CriticalAt) / float64(g.ContextWindow)
	}
	s.Turns = turnInfos(tr, s)
	s.Insight = insightOf(tr, ix, set, g, s.Turns)
	return s
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

func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// indexer is what entries need from the daemon while updating.
type indexer struct {
	// forced, when set, counts every transcript; else counters hands out
	// one per model encoding and image pricing.
	forced   *tokens.Counter
	counters *tokens.CounterSet
	registry *tokens.Registry
	// cache remembers whole messages' counts by content; nil disables it.
	cache    tokens.Cache
	settings func() Settings
	log      interface {
		Debug(msg string, args ...any)
	}
	// tokenized counts messages counted with BPE (not reused), for tests and the bench.
	tokenized atomic.Int64
	// puts carries new message counts to writeCache; nil writes inline.
	puts chan cachePut
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
		return sort.Search(n, func(i int) bool { return !sameMessage(&old.Messages[i], &nt.Messages[i]) })
	}
	return 0
}

// recount brings tr.counts to nt's messages, keeping the counts of the
// first same messages unless nt now counts with another counter (its
// model became known or changed), and counting the rest on every core.
// tr.stats must already describe nt.
func (tr *tracked) recount(ix *indexer, same int, nt *transcript.Transcript) {
	c := ix.counterFor(nt, tr.stats)
	if c.ID() != tr.countedWith {
		same = 0
	}
	tr.counts = ix.recount(c, tr.counts, same, nt)
	tr.same, tr.countedWith = same, c.ID()
}

// recount returns per-message counts for nt, keeping oldCounts' first
// same and counting the rest with c on every core.
func (ix *indexer) recount(c *tokens.Counter, oldCounts []tokens.Count, same int, nt *transcript.Transcript) (counts []tokens.Count) {
	// Only the entry's own updates touch oldCounts (snapshots copy what
	// they need), so the unchanged prefix is extended in place.
	if same > 0 {
		counts = append(oldCounts[:same], make([]tokens.Count, len(nt.Messages)-same)...)
	} else {
		counts = make([]tokens.Count, len(nt.Messages))
	}
	rest := nt.Messages[same:]
	count := func(i int) { counts[same+i] = ix.countMessage(c, nt, &rest[i]) }
	workers := min(runtime.GOMAXPROCS(0), max(1, len(rest)/64))
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
	return counts
}

// countMessage counts one message, through the message cache when there
// is one: keyed by the message's on-disk bytes, so a restart (with the
// store-backed cache) hands nothing to the BPE, not even short texts the
// counter's own cache skips.
func (ix *indexer) countMessage(c *tokens.Counter, t *transcript.Transcript, m *transcript.Message) tokens.Count {
	if ix.cache == nil || len(m.Records) == 0 {
		ix.tokenized.Add(1)
		return c.CountMessage(m)
	}
	h := sha256.New()
	for _, r := range m.Records {
		if r >= 0 && r < len(t.Records) {
			h.Write(t.Records[r].Raw)
			h.Write([]byte{'\n'})
		}
	}
	fmt.Fprintf(h, "%d", len(m.Parts))
	// The version names how codecs decode a message into parts: v2 since
	// Claude Code content blocks decode as the Messages API's do (MCP and
	// server tool results counted). Bump it when that changes again, so a
	// store's cached counts are not reused for other parts.
	key := tokens.Key{Encoding: c.ID() + "/message/v2"}
	h.Sum(key.Sum[:0])
	if n, ok := ix.cache.Get(key); ok {
		return n
	}
	ix.tokenized.Add(1)
	n := c.CountMessage(m)
	ix.put(key, n)
	return n
}

// sameMessage reports whether b is a at a later parse: the same records
// and parts. Claude Code grows a message line by line, so the record list
// is compared, not just its first element.
func sameMessage(a, b *transcript.Message) bool {
	if len(a.Records) != len(b.Records) || len(a.Parts) != len(b.Parts) || a.ID != b.ID {
		return false
	}
	if len(a.Records) > 0 && (a.Records[0] != b.Records[0] || a.Records[len(a.Records)-1] != b.Records[len(b.Records)-1]) {
		return false
	}
	return true
}
