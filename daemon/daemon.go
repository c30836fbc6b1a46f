package daemon

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
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// Options configure a Daemon.
type Options struct {
	// Folders are the workspace folders (absolute paths).
	Folders []string
	Env     agents.Env
	// Getenv is the environment the agents are taken to run with, for
	// the settings they read from it (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, …):
	// the daemon's own, as the editor started it from the user's session,
	// unless the agent's own process runs in the session's folder and the
	// OS lets compactd read its environment (Linux), which then applies.
	// nil reads none, not even the agent's (tests stay hermetic).
	Getenv func(string) string
	// Now is the clock (nil: the system's): how long a session has been
	// idle decides whether its cache went cold.
	Now func() time.Time
	// Config are the configuration's layers above the files: the
	// editor's settings and the server's flags (SetClientSettings
	// replaces the editor's).
	Config config.Layers
	// Jobs runs the commands that need the version store; nil answers
	// them with JobsUnavailable (the gauge works without it).
	Jobs            *jobs.Runner
	JobsUnavailable error
	// Memory, when set, is lifted while a compaction or a restore runs.
	Memory *MemoryLimit
	// OnConfigError reports, once per workspace file, configuration that
	// did not validate and was left out.
	OnConfigError func(error)
	Logger        *slog.Logger
	// Counter, when set, counts every transcript (tests and benchmarks pin
	// one); nil counts each transcript with its model's encoding and its
	// provider's image pricing, as `compactd gauge` and compactions do.
	Counter *tokens.Counter
	// CountCache remembers per-message counts by content (the store's
	// token cache makes restarts free); nil disables it.
	CountCache tokens.Cache
	// OnChange is called (from daemon goroutines) after a transcript's
	// snapshot was replaced or the transcript went away (Snapshot nil).
	OnChange func(Event)
	// OnScan reports the cold scan's progress.
	OnScan func(ScanProgress)
	// Debounce coalesces bursts of writes to one file; 0 means 5 ms.
	Debounce time.Duration
	// Savings computes dry-run savings per strategy; nil disables them.
	Savings SavingsFunc
	// SavingsDelay is the quiet time after a change before savings are
	// recomputed; 0 means 300 ms.
	SavingsDelay time.Duration
	// Overhead looks up what the source of a fork compactd wrote held
	// beyond its transcript (the version store records it): the fork's
	// gauge adds it until the agent reports usage on the fork. nil adds
	// none.
	Overhead func(path string) (int, bool)
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
	// WatchDescriptors bounds the file descriptors the watcher holds.
	// macOS and the BSDs watch with kqueue, which holds one for every
	// watched folder and every file in it, against a per-process limit
	// of 256 by default: past the bound, folders are polled instead
	// (PollInterval) and the transcripts that change there are watched
	// one by one. 0 is the OS's default (a quarter of RLIMIT_NOFILE
	// with kqueue, no bound with inotify and on Windows, whose watches
	// hold no descriptor per file); negative means no bound.
	WatchDescriptors int
	// PollInterval is how often folders beyond the watch bound (or that
	// the OS refused to watch) are looked at; 0 means 2 s.
	PollInterval time.Duration
	// watchPerEntry counts a folder's entries in its cost as kqueue does,
	// whatever the OS (tests of the bound run on Linux).
	watchPerEntry bool
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

// Daemon watches and indexes transcripts. Its methods are safe for
// concurrent use.
type Daemon struct {
	// ledgers caches the agents' compaction ledgers (ledger.go).
	ledgers ledgers
	opts    Options
	log     *slog.Logger
	ix      *indexer
	// savingsIx reads cold transcripts again for dry-run savings.
	savingsIx *indexer

	settingsMu sync.RWMutex
	folders    []string
	cfg        configs

	mu      sync.Mutex
	files   map[string]*tracked
	ignored map[string]int64 // path → size at which detection failed
	timers  map[string]*time.Timer
	watched map[string]bool
	// watchMu serialises watch (see there).
	watchMu sync.Mutex
	// wb accounts the watcher's descriptors (watchbound.go).
	wb watchBudget
	// rootCache holds the agents' roots until addRoots looks again.
	rootCache map[string][]agents.Root
	// dbRoots are the agents' database roots as addRoots last saw them.
	dbRoots atomic.Pointer[[]root]

	watcher *folderWatcher
	active  atomic.Pointer[string]
	// activeAt is the modification time of the active transcript.
	activeAt atomic.Int64
	// scanRead is set once the cold scan has read every file (scanDone
	// closes after it settles the budgets).
	scanRead atomic.Bool
	// scanNewest is the newest file the cold scan found.
	scanNewest atomic.Pointer[string]
	savings    *savingsWorker
	freeing    atomic.Bool
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup
	scanDone   chan struct{}
	closeOnce  sync.Once
	// dbs renders the sessions agents keep in databases.
	dbs agentDBs
	// versioned holds the transcripts known to have stored versions.
	versioned sync.Map
}

// New returns a daemon; Start begins watching.
func New(opts Options) (*Daemon, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 5 * time.Millisecond
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
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	d := &Daemon{
		opts: opts, log: opts.Logger,
		cfg:      configs{layers: opts.Config},
		files:    map[string]*tracked{},
		ignored:  map[string]int64{},
		timers:   map[string]*time.Timer{},
		watched:  map[string]bool{},
		scanDone: make(chan struct{}),
	}
	d.wb = newWatchBudget(opts.WatchDescriptors, opts.watchPerEntry)
	for _, f := range opts.Folders {
		if abs, err := filepath.Abs(f); err == nil {
			d.folders = append(d.folders, filepath.Clean(abs))
		}
	}
	d.ix = &indexer{forced: opts.Counter, counters: newCounterSet(opts.CountCache), cache: opts.CountCache, registry: tokens.NewRegistry(), settings: d.settingsFor, log: d.log, overhead: opts.Overhead}
	th := &thresholds{env: opts.Env, getenv: opts.Getenv, now: time.Now}
	if opts.Getenv != nil {
		// The running agent's own environment beats the daemon's; a daemon
		// given no environment (tests) reads none.
		var commands []string
		for _, a := range agents.All() {
			if a.Threshold != nil && a.Command != "" {
				commands = append(commands, a.Command)
			}
		}
		th.processEnv = (&agents.ProcessEnvs{Commands: commands}).Lookup
	}
	if d.opts.Now == nil {
		d.opts.Now = time.Now
	}
	d.ix.threshold = func(path string, t *transcript.Transcript, r gauge.Resolved) *gauge.AutoCompact {
		return th.of(path, t, r, d.folderOf(path))
	}
	if _, err := d.ix.fallback(); err != nil {
		return nil, err
	}
	if opts.CountCache != nil {
		// Drained by writeCache from Start on.
		d.ix.puts = make(chan cachePut, 4096)
	}
	// Savings count with counters of their own (sharing the cache), so the
	// index's counters measure indexing alone.
	d.savingsIx = &indexer{counters: newCounterSet(opts.CountCache), registry: d.ix.registry, settings: d.settingsFor, log: d.log, serial: true}
	return d, nil
}

// Now is the daemon's clock.
func (d *Daemon) Now() time.Time { return d.opts.Now() }

// Folders returns the workspace folders.
func (d *Daemon) Folders() []string {
	d.settingsMu.RLock()
	defer d.settingsMu.RUnlock()
	return append([]string(nil), d.folders...)
}

// Start begins watching and runs the cold scan in the background.
func (d *Daemon) Start(ctx context.Context) error {
	w, err := newFolderWatcher()
	if err != nil {
		return fmt.Errorf("start the file watcher: %w", err)
	}
	d.watcher = w
	d.ctx, d.cancel = context.WithCancel(ctx)
	d.savings = newSavingsWorker(d)
	d.wg.Go(func() { d.watchLoop() })
	d.wg.Go(func() { d.pollLoop() })
	d.wg.Go(func() { d.savings.run(d.ctx) })
	if d.ix.puts != nil {
		d.wg.Go(func() { d.ix.writeCache(d.ctx) })
	}
	d.wg.Go(func() { d.coldScan(d.ctx) })
	return nil
}

// ScanDone is closed when the cold scan has finished.
func (d *Daemon) ScanDone() <-chan struct{} { return d.scanDone }

// Close stops watching and waits for background work.
func (d *Daemon) Close() error {
	d.closeOnce.Do(func() {
		// The watcher first, while watchLoop still drains its events: on
		// Windows an Add under way (the cold scan's) finishes only then
		// (folderWatcher).
		if d.watcher != nil {
			d.watcher.Close()
		}
		if d.cancel != nil {
			d.cancel()
		}
		d.mu.Lock()
		for _, t := range d.timers {
			t.Stop()
		}
		d.mu.Unlock()
		d.wg.Wait()
		d.closeDBs()
	})
	return nil
}

// SetFolders replaces the workspace folders and watches the new ones.
func (d *Daemon) SetFolders(folders []string) {
	var clean []string
	for _, f := range folders {
		if abs, err := filepath.Abs(f); err == nil {
			clean = append(clean, filepath.Clean(abs))
		}
	}
	d.settingsMu.Lock()
	d.folders = clean
	d.settingsMu.Unlock()
	// Which workspace file applies may have changed with the folders.
	d.cfg.mu.Lock()
	old := d.cfg.byFile
	d.cfg.nearest = nil
	d.cfg.mu.Unlock()
	d.reconfigure(old)
}

// Open tracks path (a transcript the editor opened, maybe outside every
// watched folder) and indexes it now. It returns the snapshot, or an
// error saying why the file is not a transcript.
func (d *Daemon) Open(path string) (*Snapshot, error) {
	path = filepath.Clean(path)
	tr := d.entry(path, true)
	tr.opened.Store(true)
	if d.watcher != nil {
		// Outside every watched folder the file would change unseen.
		d.watch(filepath.Dir(path))
	}
	if s := tr.snap.Load(); s != nil {
		if !tr.hot.Load() {
			// Trimmed: the estimates read it whole and it stays hot, so
			// a command on it starts from the index's parse.
			d.savings.schedule(path)
		}
		return s, nil
	}
	if err := d.refresh(path); err != nil {
		return nil, err
	}
	if s := tr.snap.Load(); s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("%s: %w", path, errNotTranscript)
}

// Refresh re-reads path now (after a save, or when a watch event may have
// been missed) and returns its snapshot.
func (d *Daemon) Refresh(path string) (*Snapshot, error) {
	path = filepath.Clean(path)
	if err := d.refresh(path); err != nil {
		return nil, err
	}
	return d.Snapshot(path), nil
}

// Snapshot returns the current snapshot of path, nil if not a tracked transcript.
func (d *Daemon) Snapshot(path string) *Snapshot {
	d.mu.Lock()
	tr := d.files[filepath.Clean(path)]
	d.mu.Unlock()
	if tr == nil {
		return nil
	}
	return tr.snap.Load()
}

// Snapshots returns every transcript's snapshot, most recently updated first.
func (d *Daemon) Snapshots() []*Snapshot {
	var out []*Snapshot
	for _, tr := range d.all() {
		if s := tr.snap.Load(); s != nil {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out
}

// Active is the path of the conversation most recently appended to.
func (d *Daemon) Active() string {
	if p := d.active.Load(); p != nil {
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

// Stats returns the daemon's counters.
func (d *Daemon) Stats() Stats {
	s := Stats{MessagesTokenized: d.ix.tokenized.Load(), BytesTokenized: d.ix.counterStats().Bytes}
	for _, tr := range d.all() {
		s.BytesRead += tr.bytesRead.Load()
		if tr.hot.Load() {
			s.Files++
		}
	}
	return s
}

// Allowed reports whether commands may act on path: it lies in a workspace
// folder or an agent folder of this workspace. Transcripts opened from
// elsewhere are shown but never compacted.
func (d *Daemon) Allowed(path string) bool {
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	for _, root := range d.allowedRoots() {
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		if agents.Within(path, root) {
			return true
		}
	}
	return false
}

func (d *Daemon) allowedRoots() []string {
	folders := d.Folders()
	roots := slices.Clone(folders)
	for _, a := range agents.All() {
		for _, r := range d.agentRoots(a, folders) {
			if r.Scope != "" {
				roots = append(roots, r.Scope)
			} else {
				roots = append(roots, r.Dir)
			}
		}
	}
	return roots
}

func (d *Daemon) all() []*tracked {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*tracked, 0, len(d.files))
	for _, tr := range d.files {
		out = append(out, tr)
	}
	return out
}

// opened reports whether the editor opened path.
func (d *Daemon) opened(path string) bool {
	tr := d.entry(path, false)
	return tr != nil && tr.opened.Load()
}

// openedPaths lists the transcripts the editor opened.
func (d *Daemon) openedPaths() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var paths []string
	for p, tr := range d.files {
		if tr.opened.Load() {
			paths = append(paths, p)
		}
	}
	return paths
}

func (d *Daemon) entry(path string, create bool) *tracked {
	d.mu.Lock()
	defer d.mu.Unlock()
	tr := d.files[path]
	if tr == nil && create {
		tr = &tracked{path: path}
		d.files[path] = tr
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
func (d *Daemon) shadowed(path string) bool {
	if !sourcefile.Compressed(path) || d.opened(path) {
		return false
	}
	_, err := os.Lstat(sourcefile.PlainName(path))
	return err == nil
}

// refresh updates path's entry and reports the change.
func (d *Daemon) refresh(path string) error {
	if d.shadowed(path) {
		d.forget(path)
		return nil
	}
	tr := d.entry(path, true)
	fi, statErr := os.Stat(path)
	if statErr == nil && !tr.parsed.Load() {
		tr.wantHot.Store(d.wantHot(tr, fi.Size()))
	}
	seenBefore := tr.seen.Load()
	changed, err := tr.update(d.ix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.forget(path)
		return err
	case errors.Is(err, sourcefile.ErrTruncated) && statErr == nil && time.Since(fi.ModTime()) < truncatedGrace:
		// Codex is still writing the .zst of a swap; its next write
		// event reads it again.
		d.log.Info("compressed transcript not complete yet", "path", path, "err", err)
		return err
	case errors.Is(err, errNotTranscript):
		d.mu.Lock()
		if !tr.opened.Load() {
			delete(d.files, path)
		}
		if statErr == nil {
			d.ignored[path] = fi.Size()
		}
		d.mu.Unlock()
		return err
	case err != nil:
		d.log.Warn("index transcript", "path", path, "err", err)
		return err
	}
	if d.shadowed(path) {
		// The plain twin appeared while this one was read.
		d.forget(path)
		return nil
	}
	if !sourcefile.Compressed(path) {
		// The plain file wins over a compressed twin already shown.
		d.forget(sourcefile.Twin(path))
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
			d.markActive(path, fi.ModTime())
		}
		d.emit(tr)
		if snap := tr.snap.Load(); snap != nil {
			d.protect(path, snap.Format)
		}
		d.savings.schedule(path)
		d.enforceBudget(tr, false)
		d.enforceColdBudget(tr, false)
	}
	return nil
}

// protect runs the agent's Protect (see agents.Agent) when one of its
// files changed: Gemini CLI, resuming a session, leaves a stub with which
// its next start of any other session — a fork's resume too — deletes the
// session; the stub is done once Gemini CLI wrote its last line, which is
// a change seen here. Only sessions compactd forked or wrote are
// protected; the others are left to the agent.
func (d *Daemon) protect(path string, f transcript.Format) {
	a := agents.ByFormat(f)
	if a == nil || a.Protect == nil || d.opts.Jobs == nil || d.opts.Jobs.Store == nil || d.ctx == nil {
		return // not started: commands run by an editor start it first
	}
	known := func(p string) bool {
		_, ok, err := d.opts.Jobs.Store.FindConversation(d.ctx, p, "")
		return err == nil && ok
	}
	for _, note := range a.Protect(path, known) {
		if strings.HasPrefix(note, "warning:") {
			// Said again on every write until the stub settles.
			d.log.Debug("a session its agent may delete", "path", path, "note", note)
			continue
		}
		d.log.Info("protected a session from its agent's cleanup", "path", path, "note", note)
	}
}

// enforceBudget lets the least recently changed hot transcripts go cold
// (trimmed to what appends need, or dropped to their snapshot) until the
// hot ones fit in HotBytes, so watching gigabytes of transcripts costs
// their tails, not their bytes. With wait, busy entries are waited for
// rather than skipped (the pass after the cold scan, which must see every
// entry).
func (d *Daemon) enforceBudget(keep *tracked, wait bool) {
	d.evictOldest(budget{
		limit: d.opts.HotBytes,
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
		exempt: func(tr *tracked) bool { return !wait && d.scanning() && d.isScanNewest(tr.path) },
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
func (d *Daemon) evictOldest(b budget, keep *tracked, wait bool) {
	type held struct {
		tr       *tracked
		size, at int64
	}
	var list []held
	var total int64
	for _, tr := range d.all() {
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
	active := d.Active()
	sort.Slice(list, func(i, j int) bool { return list[i].at < list[j].at })
	for _, h := range list {
		if total <= b.limit {
			return
		}
		if (h.tr == keep && !d.scanning()) || h.tr.path == active || h.tr.opened.Load() || b.exempt(h.tr) {
			continue
		}
		if b.evict(h.tr) {
			total -= h.size
			d.freeSoon()
		}
	}
}

// isScanNewest reports whether path is the newest file the cold scan
// found, the one it reads hot on purpose.
func (d *Daemon) isScanNewest(path string) bool {
	p := d.scanNewest.Load()
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
func (d *Daemon) enforceColdBudget(keep *tracked, wait bool) {
	d.evictOldest(budget{
		limit: d.opts.ColdBytes,
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

// growingFor is how long after the daemon last saw it grow a transcript
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
func (d *Daemon) wantHot(tr *tracked, size int64) bool {
	if tr.opened.Load() || tr.path == d.Active() {
		return true
	}
	if p := d.scanNewest.Load(); p != nil && *p == tr.path && d.scanning() {
		return true
	}
	total := size
	for _, o := range d.all() {
		if o != tr && o.hot.Load() {
			if s := o.snap.Load(); s != nil {
				total += s.Size
			}
		}
	}
	return total <= d.opts.HotBytes
}

// scanning reports whether the cold scan is still running. It reads files
// newest first, so the file it just read is the oldest hot one and is not
// kept over newer ones.
func (d *Daemon) scanning() bool { return !d.scanRead.Load() }

// freeSoon returns freed memory to the OS at most every few seconds after
// evictions (a forced GC costs a few milliseconds).
func (d *Daemon) freeSoon() {
	if !d.freeing.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(2*time.Second, func() {
		debug.FreeOSMemory()
		d.freeing.Store(false)
	})
}

func (d *Daemon) markActive(path string, mtime time.Time) {
	ns := mtime.UnixNano()
	for {
		cur := d.activeAt.Load()
		if ns < cur {
			return
		}
		if d.activeAt.CompareAndSwap(cur, ns) {
			d.active.Store(&path)
			return
		}
	}
}

func (d *Daemon) forget(path string) {
	d.mu.Lock()
	_, had := d.files[path]
	delete(d.files, path)
	delete(d.ignored, path)
	d.mu.Unlock()
	if had && d.opts.OnChange != nil {
		d.opts.OnChange(Event{Path: path})
	}
}

func (d *Daemon) emit(tr *tracked) {
	if s := tr.snap.Load(); s != nil && d.opts.OnChange != nil {
		d.opts.OnChange(Event{Path: tr.path, Snapshot: s})
	}
}

// maxScanWorkers bounds the files the cold scan reads at once. Each holds
// a whole file and its parsed form until the hot budget drops it, so more
// workers raise the scan's peak memory; two keep two cores busy, and the
// counting inside a file spreads over every core anyway.
const maxScanWorkers = 2

// coldScan indexes every candidate already on disk, newest first, with
// maxScanWorkers files in flight.
func (d *Daemon) coldScan(ctx context.Context) {
	defer close(d.scanDone)
	start := time.Now()
	files := d.addRoots(ctx, nil)
	sort.Slice(files, func(i, j int) bool { return files[i].mtime.After(files[j].mtime) })
	if len(files) > 0 {
		// The newest file is likely the conversation in use: read it hot.
		d.scanNewest.Store(&files[0].path)
	}
	total := len(files)
	var done atomic.Int64
	jobs := make(chan candidate)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxScanWorkers) {
		wg.Go(func() {
			for c := range jobs {
				if ctx.Err() != nil {
					continue
				}
				_ = d.refresh(c.path)
				n := done.Add(1)
				if d.opts.OnScan != nil {
					d.opts.OnScan(ScanProgress{Done: int(n), Total: total, Path: c.path, Elapsed: time.Since(start)})
				}
			}
		})
	}
	for _, c := range files {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	d.scanRead.Store(true)
	if d.opts.OnScan != nil {
		d.opts.OnScan(ScanProgress{Done: int(done.Load()), Total: total, Finished: true, Elapsed: time.Since(start)})
	}
	d.log.Info("cold scan finished", "files", total, "elapsed", time.Since(start))
	// Keep only the budget (and the active conversation) parsed, and give
	// the parsing garbage back now rather than when the scavenger gets
	// round to it.
	d.enforceBudget(nil, true)
	d.enforceColdBudget(nil, true)
	debug.FreeOSMemory()
}
