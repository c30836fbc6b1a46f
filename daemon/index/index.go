// Package index is compactd's incremental index of transcripts: one entry
// per file, read in bounded pieces and followed by appends (entry.go),
// counted with the model's own BPE through the content-hash cache
// (counters.go), published as immutable snapshots readers never wait on
// (snapshot.go) with what fills the window and what it costs
// (insight.go), held within two memory budgets (the hot and the trimmed
// transcripts), and the dry-run savings estimated in the background
// (savings.go).
//
// It is about 2,800 lines, past the 2,500 a package of this repository
// keeps to: the entry's reading, counting, budgets and background
// estimates all work on one entry's state under its lock (tracked), and
// splitting them apart would export that state.
//
// It knows nothing of watching, of the workspace's folders or of the
// protocol: the daemon tells it which files changed (Refresh) and which
// configuration applies to each (Options.Settings), and hears of each new
// snapshot (Options.OnChange). It must not import the daemon, its watcher
// or lsp (ARCHITECTURE.md).
package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// Options configure an Index.
type Options struct {
	// Settings is the configuration of the transcript at a path (the
	// daemon resolves one per workspace file); nil applies the defaults.
	Settings func(path string) *Settings
	// Counter, when set, counts every transcript (tests and benchmarks pin
	// one); nil counts each transcript with its model's encoding and its
	// provider's image pricing, as `compactd gauge` and compactions do.
	Counter *tokens.Counter
	// CountCache remembers per-message counts by content (the store's
	// token cache makes restarts free); nil disables it.
	CountCache tokens.Cache
	// Overhead looks up what the source of a fork compactd wrote held
	// beyond its transcript (the version store records it): the fork's
	// gauge adds it until the agent reports usage on the fork. nil adds
	// none.
	Overhead func(path string) (int, bool)
	// Threshold is the agent's own compaction point for the session at
	// path, t resolved as r; nil leaves the gauge its typical figure.
	Threshold func(path string, t *transcript.Transcript, r gauge.Resolved) *gauge.AutoCompact
	// OnChange is called (from the index's callers' goroutines) after a
	// transcript's snapshot was replaced or the transcript went away
	// (Snapshot nil).
	OnChange func(Event)
	// OnContent is called after a transcript's content changed (the
	// daemon lets its agent's Protect look at it).
	OnContent func(path string, f transcript.Format)
	// Savings computes dry-run savings per strategy; nil uses
	// StrategySavings.
	Savings SavingsFunc
	// SavingsDelay is the quiet time after a change before savings are
	// recomputed; 0 means 300 ms.
	SavingsDelay time.Duration
	// HotBytes bounds the transcripts kept hot (their source bytes): with
	// every message's parts and their counts in memory, for dry-run
	// savings and compaction jobs. The others keep what appends need
	// (format.Trimmer), or only their snapshot when their codec cannot
	// trim, and are read again for savings and jobs. The active
	// transcript and the ones the editor opened stay hot whatever their
	// size. Parts take about 0.7 times their source's size. 0 means
	// 32 MiB.
	HotBytes int64
	// ColdBytes bounds what the trimmed transcripts keep (about 600 bytes
	// a record): past it the least recently changed keep only their
	// snapshot, and their next change reads them again. The active
	// transcript and the ones the editor opened stay. 0 means 32 MiB
	// (a 150 MB Claude Code session, or a few hundred small ones): what
	// they keep in fact is about half what the budget counts.
	ColdBytes int64
	// AllUsage measures the estimate error on every usage point of a
	// transcript, as a command's figures do (gauge.TallyOptions.AllUsage),
	// not on the last ones, as the live gauge does.
	AllUsage bool
	// Named says the index reads the files a command was given by name:
	// a compressed transcript is read even beside its plain twin, which
	// the daemon shows in its place.
	Named  bool
	Logger *slog.Logger
}

// An Event says a transcript changed.
type Event struct {
	Path string
	// Snapshot is the new state, nil when the transcript is gone.
	Snapshot *Snapshot
}

// ScanProgress reports the cold scan.
type ScanProgress struct {
	Done, Total int
	Path        string
	Finished    bool
	Elapsed     time.Duration
}

// A Candidate is a file the cold scan reads, with its modification time
// (the newest are read first).
type Candidate struct {
	Path  string
	MTime time.Time
}

// Index holds every tracked transcript's entry. Its methods are safe for
// concurrent use.
type Index struct {
	opts Options
	log  *slog.Logger
	ix   *indexer
	// savingsIx reads cold transcripts again for dry-run savings.
	savingsIx *indexer
	savings   *savingsWorker

	mu      sync.Mutex
	files   map[string]*tracked
	ignored map[string]int64 // path → size at which detection failed

	// active is the transcript most recently appended to, at is its
	// modification time.
	active struct {
		path atomic.Pointer[string]
		at   atomic.Int64
	}
	scan struct {
		// read is set once the cold scan has read every file (done
		// closes after it settles the budgets); newest is the newest
		// file it found.
		read   atomic.Bool
		newest atomic.Pointer[string]
		done   chan struct{}
	}
	freeing atomic.Bool
}

// New returns an index; Run starts its background work.
func New(opts Options) (*Index, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.HotBytes <= 0 {
		opts.HotBytes = 32 << 20
	}
	if opts.ColdBytes <= 0 {
		opts.ColdBytes = 32 << 20
	}
	if opts.SavingsDelay <= 0 {
		opts.SavingsDelay = 300 * time.Millisecond
	}
	if opts.Settings == nil {
		defaults := DefaultSettings()
		opts.Settings = func(string) *Settings { return defaults }
	}
	x := &Index{opts: opts, log: opts.Logger, files: map[string]*tracked{}, ignored: map[string]int64{}}
	x.scan.done = make(chan struct{})
	x.ix = &indexer{forced: opts.Counter, counters: newCounterSet(opts.CountCache), cache: opts.CountCache, registry: tokens.NewRegistry(),
		settings: opts.Settings, log: x.log, overhead: opts.Overhead, threshold: opts.Threshold, allUsage: opts.AllUsage}
	if _, err := x.ix.fallback(); err != nil {
		return nil, err
	}
	if opts.CountCache != nil {
		// Drained by writeCache from Run on.
		x.ix.puts = make(chan cachePut, 4096)
	}
	// Savings count with counters of their own (sharing the cache), so the
	// index's counters measure indexing alone.
	x.savingsIx = &indexer{counters: newCounterSet(opts.CountCache), registry: x.ix.registry, settings: opts.Settings, log: x.log, serial: true}
	x.savings = newSavingsWorker(x)
	return x, nil
}

// Run does the index's background work until ctx ends: the dry-run
// savings, and writing new counts to the count cache.
func (x *Index) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { x.savings.run(ctx) })
	if x.ix.puts != nil {
		wg.Go(func() { x.ix.writeCache(ctx) })
	}
	wg.Wait()
}

func (x *Index) settings(path string) *Settings { return x.opts.Settings(path) }

// ScanDone is closed when the cold scan has finished.
func (x *Index) ScanDone() <-chan struct{} { return x.scan.done }

// MarkOpened tracks path as a transcript the editor opened (maybe
// outside every watched folder): it stays hot and keeps its estimates.
func (x *Index) MarkOpened(path string) {
	x.entry(filepath.Clean(path), true).opened.Store(true)
}

// Open tracks path as opened by the editor and indexes it now unless it
// is already. It returns the snapshot, or an error saying why the file is
// not a transcript.
func (x *Index) Open(path string) (*Snapshot, error) {
	path = filepath.Clean(path)
	tr := x.entry(path, true)
	tr.opened.Store(true)
	if s := tr.snap.Load(); s != nil {
		if !tr.hot.Load() {
			// Trimmed: the estimates read it whole and it stays hot, so
			// a command on it starts from the index's parse.
			x.savings.schedule(path)
		}
		return s, nil
	}
	if err := x.Refresh(path); err != nil {
		return nil, err
	}
	if s := tr.snap.Load(); s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("%s: %w", path, ErrNotTranscript)
}

// Snapshot returns the current snapshot of path, nil if not a tracked transcript.
func (x *Index) Snapshot(path string) *Snapshot {
	tr := x.entry(filepath.Clean(path), false)
	if tr == nil {
		return nil
	}
	return tr.snap.Load()
}

// Snapshots returns every transcript's snapshot, most recently updated first.
func (x *Index) Snapshots() []*Snapshot {
	var out []*Snapshot
	for _, tr := range x.all() {
		if s := tr.snap.Load(); s != nil {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out
}

// Active is the path of the conversation most recently appended to.
func (x *Index) Active() string {
	if p := x.active.path.Load(); p != nil {
		return *p
	}
	return ""
}

// Stats are counters for tests and the bench.
type Stats struct {
	// MessagesTokenized counts messages counted with BPE (not reused).
	MessagesTokenized int64
	// BytesRead counts transcript bytes read, over every file.
	BytesRead int64
	// BytesTokenized counts bytes the index handed to the BPE (dry-run
	// savings count with counters of their own).
	BytesTokenized int64
	Files          int
}

// Stats returns the index's counters.
func (x *Index) Stats() Stats {
	s := Stats{MessagesTokenized: x.ix.tokenized.Load(), BytesTokenized: x.ix.counterStats().Bytes}
	for _, tr := range x.all() {
		s.BytesRead += tr.bytesRead.Load()
		if tr.hot.Load() {
			s.Files++
		}
	}
	return s
}

// Tracked reports whether path has an entry; TrackedPaths lists them.
func (x *Index) Tracked(path string) bool { return x.entry(path, false) != nil }

// TrackedPaths lists the transcripts the index has an entry for.
func (x *Index) TrackedPaths() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]string, 0, len(x.files))
	for p := range x.files {
		out = append(out, p)
	}
	return out
}

// Ignored reports whether path was found not to be a transcript, and its
// size then.
func (x *Index) Ignored(path string) (int64, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	size, ok := x.ignored[path]
	return size, ok
}

func (x *Index) all() []*tracked {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]*tracked, 0, len(x.files))
	for _, tr := range x.files {
		out = append(out, tr)
	}
	return out
}

// opened reports whether the editor opened path.
func (x *Index) opened(path string) bool {
	tr := x.entry(path, false)
	return tr != nil && tr.opened.Load()
}

// openedPaths lists the transcripts the editor opened.
func (x *Index) openedPaths() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var paths []string
	for p, tr := range x.files {
		if tr.opened.Load() {
			paths = append(paths, p)
		}
	}
	return paths
}

func (x *Index) entry(path string, create bool) *tracked {
	x.mu.Lock()
	defer x.mu.Unlock()
	tr := x.files[path]
	if tr == nil && create {
		tr = &tracked{path: path}
		x.files[path] = tr
	}
	return tr
}

// truncatedGrace is how long a compressed transcript whose stream ends
// early counts as still being written rather than broken.
const truncatedGrace = time.Minute

// shadowed reports whether path is a compressed transcript whose plain
// twin exists. They are one session, and the plain file wins: it is the
// one a resumed session appends to, and during Codex's swap both exist
// for a moment. One gauge per session.
func (x *Index) shadowed(path string) bool {
	if !sourcefile.Compressed(path) || x.opened(path) || x.opts.Named {
		return false
	}
	_, err := os.Lstat(sourcefile.PlainName(path))
	return err == nil
}

// Refresh brings path's entry up to date with the file (after a change,
// a save, or when a watch event may have been missed) and reports the
// change.
func (x *Index) Refresh(path string) error {
	path = filepath.Clean(path)
	if x.shadowed(path) {
		x.Forget(path)
		return nil
	}
	tr := x.entry(path, true)
	fi, statErr := os.Stat(path)
	if statErr == nil && !tr.parsed.Load() {
		tr.wantHot.Store(x.wantHot(tr, fi.Size()))
	}
	// Until this Refresh has marked the file active, the estimates leave
	// it alone (savingsInput); it lets them go just before it schedules
	// them, so that the request it schedules is never the one skipped.
	tr.refreshing.Add(1)
	refreshed := false
	endRefresh := func() {
		if !refreshed {
			refreshed = true
			tr.refreshing.Add(-1)
		}
	}
	defer endRefresh()
	seenBefore := tr.seen.Load()
	changed, err := tr.update(x.ix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		x.Forget(path)
		return err
	case errors.Is(err, sourcefile.ErrTruncated) && statErr == nil && time.Since(fi.ModTime()) < truncatedGrace:
		// Codex is still writing the .zst of a swap; its next write
		// event reads it again.
		x.log.Info("compressed transcript not complete yet", "path", path, "err", err)
		return err
	case errors.Is(err, ErrNotTranscript):
		x.mu.Lock()
		if !tr.opened.Load() {
			delete(x.files, path)
		}
		if statErr == nil {
			x.ignored[path] = fi.Size()
		}
		x.mu.Unlock()
		return err
	case err != nil:
		x.log.Warn("index transcript", "path", path, "err", err)
		return err
	}
	if x.shadowed(path) {
		// The plain twin appeared while this one was read.
		x.Forget(path)
		return nil
	}
	if !sourcefile.Compressed(path) {
		// The plain file wins over a compressed twin already shown.
		x.Forget(sourcefile.Twin(path))
	}
	if changed {
		// The file's own time as of what was read: the stat above may
		// precede the write the read saw (Windows reports a change when
		// the agent opens the file, before it writes), and the change
		// after, which finds nothing new, would leave the older time.
		if fi2, err := os.Stat(path); err == nil {
			fi, statErr = fi2, nil
		}
		// The file's own time, not the time we read it: the cold scan
		// reads old files last, and they must not push the ones in use
		// out of the hot budget.
		changedAt := time.Now()
		if statErr == nil {
			changedAt = fi.ModTime()
		}
		tr.lastChange.Store(changedAt.UnixNano())
		if seenBefore {
			tr.grewAt.Store(time.Now().UnixNano())
		}
		tr.seen.Store(true)
		if statErr == nil {
			x.markActive(path, fi.ModTime())
		}
		x.emit(tr)
		if snap := tr.snap.Load(); snap != nil && x.opts.OnContent != nil {
			x.opts.OnContent(path, snap.Format)
		}
		endRefresh()
		x.savings.schedule(path)
		x.enforceBudget(tr, false)
		x.enforceColdBudget(tr, false)
	}
	return nil
}

// Reconfigure re-derives every snapshot after the configuration changed;
// modelChanged says whether a transcript's model setting did. It returns
// the transcripts to read again (their counts are for another model).
func (x *Index) Reconfigure(modelChanged func(path string) bool) (reread []string) {
	for _, tr := range x.all() {
		if tr.rebuild(x.ix, modelChanged(tr.path)) {
			reread = append(reread, tr.path)
		}
		x.emit(tr)
	}
	return reread
}

// enforceBudget lets the least recently changed hot transcripts go cold
// (trimmed to what appends need, or dropped to their snapshot) until the
// hot ones fit in HotBytes, so watching gigabytes of transcripts costs
// their tails, not their bytes. With wait, busy entries are waited for
// rather than skipped (the pass after the cold scan, which must see every
// entry).
func (x *Index) enforceBudget(keep *tracked, wait bool) {
	x.evictOldest(budget{
		limit: x.opts.HotBytes,
		size: func(tr *tracked) (int64, bool) {
			if tr.t == nil || !tr.hot.Load() {
				return 0, false
			}
			return tr.t.Size, true
		},
		// While the scan runs, the entry it reads hot on purpose (the
		// newest file, soon the active one) may not be marked active yet;
		// an entry read hot only because the budget had room then is not
		// exempt.
		exempt: func(tr *tracked) bool { return !wait && x.scanning() && x.isScanNewest(tr.path) },
		evict:  func(tr *tracked) bool { return tr.evict(false) },
	}, keep, wait)
}

// A budget is one bound on what the index keeps: which entries it counts
// and their size (read with the entry locked), the ones it never evicts
// beyond those every budget spares, and how it lets one go.
type budget struct {
	limit  int64
	size   func(tr *tracked) (int64, bool)
	exempt func(tr *tracked) bool
	evict  func(tr *tracked) bool
}

// evictOldest lets b's least recently changed entries go until the rest
// fit in b.limit. keep (just updated, outside the cold scan), the active
// transcript and the ones the editor opened stay. An entry being updated
// is busy, not idle: without wait it is skipped rather than waited for
// (waiting here serialized the cold scan).
func (x *Index) evictOldest(b budget, keep *tracked, wait bool) {
	type held struct {
		tr       *tracked
		size, at int64
	}
	var list []held
	var total int64
	for _, tr := range x.all() {
		if !lockEntry(tr, wait) {
			continue
		}
		if n, ok := b.size(tr); ok {
			list = append(list, held{tr, n, tr.lastChange.Load()})
			total += n
		}
		tr.mu.Unlock()
	}
	if total <= b.limit {
		return
	}
	active := x.Active()
	sort.Slice(list, func(i, j int) bool { return list[i].at < list[j].at })
	for _, h := range list {
		if total <= b.limit {
			return
		}
		if (h.tr == keep && !x.scanning()) || h.tr.path == active || h.tr.opened.Load() || b.exempt(h.tr) {
			continue
		}
		if b.evict(h.tr) {
			total -= h.size
			x.freeSoon()
		}
	}
}

// isScanNewest reports whether path is the newest file the cold scan
// found, the one it reads hot on purpose.
func (x *Index) isScanNewest(path string) bool {
	p := x.scan.newest.Load()
	return p != nil && *p == path
}

// lockEntry locks tr: at once or not at all, unless wait.
func lockEntry(tr *tracked, wait bool) bool {
	if wait {
		tr.mu.Lock()
		return true
	}
	return tr.mu.TryLock()
}

// enforceColdBudget drops the least recently changed trimmed transcripts
// to their snapshots until the others fit in ColdBytes: a workspace of
// hundreds of old sessions costs their snapshots; the next change to one
// reads it again. Growing transcripts stay (growing).
func (x *Index) enforceColdBudget(keep *tracked, wait bool) {
	x.evictOldest(budget{
		limit: x.opts.ColdBytes,
		size: func(tr *tracked) (int64, bool) {
			if tr.t == nil || tr.hot.Load() {
				return 0, false
			}
			return tr.coldSize(), true
		},
		exempt: growing,
		evict:  func(tr *tracked) bool { return tr.evict(true) },
	}, keep, wait)
}

// growingFor is how long after the index last saw it grow a transcript
// counts as growing: an agent's session (or its subagent's) beside the
// active one. Files the scan finds are not growing until they change.
// A growing transcript keeps its trimmed state whatever ColdBytes says, so
// its next append costs what it adds, not a read of the whole file (2.4 s
// for 200 MB, on every append, while two sessions grew in turn).
const growingFor = 2 * time.Minute

func growing(tr *tracked) bool {
	at := tr.grewAt.Load()
	return at != 0 && time.Since(time.Unix(0, at)) < growingFor
}

// wantHot decides whether a transcript about to be read whole keeps every
// message's parts: the active one, the ones the editor opened, and
// others while the hot ones fit in HotBytes.
func (x *Index) wantHot(tr *tracked, size int64) bool {
	if tr.opened.Load() || tr.path == x.Active() {
		return true
	}
	if x.isScanNewest(tr.path) && x.scanning() {
		return true
	}
	total := size
	for _, o := range x.all() {
		if o != tr && o.hot.Load() {
			if s := o.snap.Load(); s != nil {
				total += s.Size
			}
		}
	}
	return total <= x.opts.HotBytes
}

// scanning reports whether the cold scan is still running. It reads files
// newest first, so the file it just read is the oldest hot one and is not
// kept over newer ones.
func (x *Index) scanning() bool { return !x.scan.read.Load() }

// freeSoon returns freed memory to the OS at most every few seconds after
// evictions (a forced GC costs a few milliseconds).
func (x *Index) freeSoon() {
	if !x.freeing.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(2*time.Second, func() {
		debug.FreeOSMemory()
		x.freeing.Store(false)
	})
}

func (x *Index) markActive(path string, mtime time.Time) {
	ns := mtime.UnixNano()
	for {
		cur := x.active.at.Load()
		if ns < cur {
			return
		}
		if x.active.at.CompareAndSwap(cur, ns) {
			x.active.path.Store(&path)
			return
		}
	}
}

// Forget drops path's entry (the file went away) and says so.
func (x *Index) Forget(path string) {
	x.mu.Lock()
	_, had := x.files[path]
	delete(x.files, path)
	delete(x.ignored, path)
	x.mu.Unlock()
	if had && x.opts.OnChange != nil {
		x.opts.OnChange(Event{Path: path})
	}
}

func (x *Index) emit(tr *tracked) {
	if s := tr.snap.Load(); s != nil && x.opts.OnChange != nil {
		x.opts.OnChange(Event{Path: tr.path, Snapshot: s})
	}
}

// maxScanWorkers bounds the files the cold scan reads at once. Each holds
// a whole file and its parsed form until the hot budget drops it, so more
// workers raise the scan's peak memory; two keep two cores busy, and the
// counting inside a file spreads over every core anyway.
const maxScanWorkers = 2

// Scan is the cold scan: it indexes files, newest first, with
// maxScanWorkers in flight, reporting its progress to onProgress (nil:
// none), then settles the budgets and closes ScanDone. It is called once.
func (x *Index) Scan(ctx context.Context, files []Candidate, onProgress func(ScanProgress)) {
	defer close(x.scan.done)
	start := time.Now()
	sort.Slice(files, func(i, j int) bool { return files[i].MTime.After(files[j].MTime) })
	if len(files) > 0 {
		// The newest file is likely the conversation in use: read it hot.
		x.scan.newest.Store(&files[0].Path)
	}
	total := len(files)
	var done atomic.Int64
	jobs := make(chan Candidate)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxScanWorkers) {
		wg.Go(func() {
			for c := range jobs {
				if ctx.Err() != nil {
					continue
				}
				_ = x.Refresh(c.Path)
				n := done.Add(1)
				if onProgress != nil {
					onProgress(ScanProgress{Done: int(n), Total: total, Path: c.Path, Elapsed: time.Since(start)})
				}
			}
		})
	}
	for _, c := range files {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	x.scan.read.Store(true)
	if onProgress != nil {
		onProgress(ScanProgress{Done: int(done.Load()), Total: total, Finished: true, Elapsed: time.Since(start)})
	}
	x.log.Info("cold scan finished", "files", total, "elapsed", time.Since(start))
	// Keep only the budget (and the active conversation) parsed, and give
	// the parsing garbage back now rather than when the scavenger gets
	// round to it.
	x.enforceBudget(nil, true)
	x.enforceColdBudget(nil, true)
	debug.FreeOSMemory()
}
