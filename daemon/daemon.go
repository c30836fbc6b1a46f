package daemon

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/search"
	"github.com/compactd/compactd/daemon/watch"
)

// Options configure a Daemon: what it is given (the folders, the agents'
// environment, the configuration's layers, the job runner) and the knobs of
// the parts it composes, the index's (Counter … ColdBytes) and the
// watcher's (Debounce … PollInterval), so that its callers configure one
// thing. Hence more fields than a type usually has.
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
	OnChange func(index.Event)
	// OnScan reports the cold scan's progress.
	OnScan func(index.ScanProgress)
	// Debounce coalesces bursts of writes to one file; 0 means 5 ms.
	Debounce time.Duration
	// Savings computes dry-run savings per strategy; nil disables them.
	Savings index.SavingsFunc
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
	// SearchDelay is the quiet time after a transcript changed before
	// the search index indexes it; 0 means 1 s. OnSearch, when set, hears
	// of each indexing (a sync of the machine, or the changes of a quiet
	// time).
	SearchDelay time.Duration
	OnSearch    func(search.Stats)
	// watchPerEntry counts a folder's entries in its cost as kqueue does,
	// whatever the OS (tests of the bound run on Linux).
	watchPerEntry bool
}

// Daemon is one session of a workspace: the watcher finds the
// transcripts, the index reads and gauges them, and the daemon resolves
// the configuration per transcript and runs the editor's commands. Its
// methods are safe for concurrent use.
type Daemon struct {
	opts  Options
	log   *slog.Logger
	index *index.Index
	watch *watch.Watcher
	// folders are the workspace folders; cfg the configuration resolved
	// per workspace file (settings.go).
	folders struct {
		mu   sync.RWMutex
		list []string
	}
	cfg configs
	// ledgers caches the agents' compaction ledgers (ledger.go);
	// versioned holds the transcripts known to have stored versions.
	ledgers   ledgers
	versioned sync.Map
	// search keeps the search index current (search.go); nil without a
	// store.
	search *searching

	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// New returns a daemon; Start begins watching.
func New(opts Options) (*Daemon, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	d := &Daemon{opts: opts, log: opts.Logger, cfg: configs{layers: opts.Config}}
	d.folders.list = cleanFolders(opts.Folders)
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
		envs := &agents.ProcessEnvs{Commands: commands}
		th.processEnv, th.processArgs = envs.Lookup, envs.Args
	}
	ix, err := index.New(index.Options{
		Settings: d.settingsFor, Counter: opts.Counter, CountCache: opts.CountCache, Overhead: opts.Overhead,
		Threshold: func(path string, t *transcript.Transcript, r gauge.Resolved) *gauge.AutoCompact {
			return th.of(path, t, r, d.folderOf(path))
		},
		OnChange: d.changed, OnContent: d.protect,
		Savings: opts.Savings, SavingsDelay: opts.SavingsDelay, HotBytes: opts.HotBytes, ColdBytes: opts.ColdBytes,
		Logger: opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	d.index = ix
	d.search = d.newSearching()
	d.watch = watch.New(watch.Options{
		Env: opts.Env, Folders: d.Folders, Config: func(folder string) *config.Config { return d.folderConfig(folder).Config },
		Index: ix, ConfigFileChanged: d.workspaceFileChanged,
		Debounce: opts.Debounce, Descriptors: opts.WatchDescriptors, CountEntries: opts.watchPerEntry, PollInterval: opts.PollInterval,
		Logger: opts.Logger,
	})
	return d, nil
}

func cleanFolders(folders []string) []string {
	var clean []string
	for _, f := range folders {
		if abs, err := filepath.Abs(f); err == nil {
			clean = append(clean, filepath.Clean(abs))
		}
	}
	return clean
}

// Now is the daemon's clock.
func (d *Daemon) Now() time.Time { return d.opts.Now() }

// Folders returns the workspace folders.
func (d *Daemon) Folders() []string {
	d.folders.mu.RLock()
	defer d.folders.mu.RUnlock()
	return slices.Clone(d.folders.list)
}

// Start begins watching and runs the cold scan in the background.
func (d *Daemon) Start(ctx context.Context) error {
	d.ctx, d.cancel = context.WithCancel(ctx)
	if err := d.watch.Start(d.ctx); err != nil {
		return err
	}
	d.wg.Go(func() { d.index.Run(d.ctx) })
	d.wg.Go(func() {
		found := d.watch.Scan(d.ctx)
		files := make([]index.Candidate, len(found))
		for i, c := range found {
			files[i] = index.Candidate{Path: c.Path, MTime: c.MTime}
		}
		d.index.Scan(d.ctx, files, d.opts.OnScan)
	})
	if d.search != nil {
		d.wg.Go(func() { d.runSearch(d.ctx) })
	}
	return nil
}

// changed hears of every new snapshot: the editor's gauge, and the
// search index's next indexing.
func (d *Daemon) changed(ev index.Event) {
	d.search.changed(ev.Path)
	if d.opts.OnChange != nil {
		d.opts.OnChange(ev)
	}
}

// ScanDone is closed when the cold scan has finished.
func (d *Daemon) ScanDone() <-chan struct{} { return d.index.ScanDone() }

// Close stops watching and waits for background work.
func (d *Daemon) Close() error {
	d.closeOnce.Do(func() {
		d.watch.Close()
		if d.cancel != nil {
			d.cancel()
		}
		d.wg.Wait()
	})
	return nil
}

// SetFolders replaces the workspace folders and watches the new ones.
func (d *Daemon) SetFolders(folders []string) {
	clean := cleanFolders(folders)
	d.folders.mu.Lock()
	d.folders.list = clean
	d.folders.mu.Unlock()
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
func (d *Daemon) Open(path string) (*index.Snapshot, error) {
	path = filepath.Clean(path)
	d.index.MarkOpened(path)
	// Outside every watched folder the file would change unseen.
	d.watch.Watch(filepath.Dir(path))
	return d.index.Open(path)
}

// Refresh re-reads path now (after a save, or when a watch event may have
// been missed) and returns its snapshot.
func (d *Daemon) Refresh(path string) (*index.Snapshot, error) {
	path = filepath.Clean(path)
	if err := d.index.Refresh(path); err != nil {
		return nil, err
	}
	return d.index.Snapshot(path), nil
}

// Snapshot returns the current snapshot of path, nil if not a tracked transcript.
func (d *Daemon) Snapshot(path string) *index.Snapshot { return d.index.Snapshot(path) }

// Snapshots returns every transcript's snapshot, most recently updated first.
func (d *Daemon) Snapshots() []*index.Snapshot { return d.index.Snapshots() }

// Active is the path of the conversation most recently appended to.
func (d *Daemon) Active() string { return d.index.Active() }

// Stats returns the index's counters.
func (d *Daemon) Stats() index.Stats { return d.index.Stats() }

// WatchedRoots lists what the current settings watch.
func (d *Daemon) WatchedRoots() []watch.WatchedRoot { return d.watch.WatchedRoots() }

// WatchStats reports the watcher's use of its descriptor bound.
func (d *Daemon) WatchStats() watch.Stats { return d.watch.Stats() }

// KneeBudget is the knee of path's last dry run's trade-off, 0 when none
// is known: what "Compact to fit…" suggests.
func (d *Daemon) KneeBudget(path string) int { return d.index.KneeBudget(path) }

// DryRunTurns runs the configured pipeline on path without writing
// anything and maps the result onto its turns (index.DryRunTurns).
func (d *Daemon) DryRunTurns(ctx context.Context, path string) (*index.DryRunTurns, error) {
	return d.index.DryRunTurns(ctx, path)
}

// Parsed returns path's transcript as the index holds it, for a
// compaction job to start from; nil when the index does not keep it hot.
func (d *Daemon) Parsed(path string) *jobs.Parsed { return d.index.Parsed(path) }

// JobRunning holds the background estimates back while a command runs
// (the one under way is cancelled and scheduled again): commands go
// first. Call the returned func when the command ends.
func (d *Daemon) JobRunning() func() { return d.index.JobRunning() }

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

// Readable reports whether a command that only reads path (handing it
// off writes a new session of the target agent, in that agent's folder)
// may take it: Allowed, or a session under an agent's folders of any
// project — what search finds.
func (d *Daemon) Readable(path string) bool {
	if d.Allowed(path) {
		return true
	}
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	roots := []string{d.opts.Env.SessionsDir()}
	for _, a := range agents.All() {
		if a.Everywhere == nil {
			continue
		}
		for _, r := range a.Everywhere(d.opts.Env) {
			roots = append(roots, r.Dir)
			if r.Scope != "" {
				roots = append(roots, r.Scope)
			}
		}
	}
	for _, root := range roots {
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
		for _, r := range d.watch.AgentRoots(a, folders) {
			if r.Scope != "" {
				roots = append(roots, r.Scope)
			} else {
				roots = append(roots, r.Dir)
			}
		}
	}
	return roots
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
