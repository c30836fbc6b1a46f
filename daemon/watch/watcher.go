// Package watch finds and follows the workspace's transcripts: the roots
// each workspace folder's configuration watches (the folder itself, every
// registered agent's folders, the globs, minus [watch] exclude), fsnotify
// on them within a descriptor bound (bound.go: past it, folders are
// polled), the debounce of bursts of writes, and the sessions agents keep
// in databases, rendered as files (databases.go). It hands every file
// worth reading to the index (Options.Index) and knows nothing of what is
// in it.
//
// It must not import the daemon, the index or lsp (ARCHITECTURE.md).
package watch

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
)

// Index is what the watcher needs of the index: which files it tracks or
// found not to be transcripts, and reading one that changed.
type Index interface {
	Tracked(path string) bool
	TrackedPaths() []string
	// Ignored is the size at which path was found not to be a transcript.
	Ignored(path string) (int64, bool)
	Refresh(path string) error
}

// Options configure a Watcher.
type Options struct {
	Env agents.Env
	// Folders are the workspace folders now; Config is the configuration
	// of one of them (its [watch] section decides what is watched).
	Folders func() []string
	Config  func(folder string) *config.Config
	Index   Index
	// ConfigFileChanged is called (on a goroutine of its own) when a
	// workspace file (.compactd.toml) in a watched folder changed.
	ConfigFileChanged func()
	// Debounce coalesces bursts of writes to one file; 0 means 5 ms.
	Debounce time.Duration
	// Descriptors bounds the file descriptors the watcher holds.
	// macOS and the BSDs watch with kqueue, which holds one for every
	// watched folder and every file in it, against a per-process limit
	// of 256 by default: past the bound, folders are polled instead
	// (PollInterval) and the transcripts that change there are watched
	// one by one. 0 is the OS's default (a quarter of RLIMIT_NOFILE
	// with kqueue, no bound with inotify and on Windows, whose watches
	// hold no descriptor per file); negative means no bound.
	Descriptors int
	// CountEntries counts a folder's entries in its cost as kqueue does,
	// whatever the OS (tests of the bound run on Linux).
	CountEntries bool
	// PollInterval is how often folders beyond the watch bound (or that
	// the OS refused to watch) are looked at; 0 means 2 s.
	PollInterval time.Duration
	Logger       *slog.Logger
}

// A Watcher watches the roots of the workspace. Its methods are safe for
// concurrent use. Its fields past a dozen are the state of
// its three concerns — the watches within their bound, the roots' caches,
// the database sessions' renderings — and its lifetime.
type Watcher struct {
	opts Options
	log  *slog.Logger
	fw   *folderWatcher

	// mu guards watched, wb, timers and the roots' cache.
	mu      sync.Mutex
	watched map[string]bool
	wb      watchBudget
	timers  map[string]*time.Timer
	// watchMu serialises watch (see there).
	watchMu sync.Mutex
	// rootCache holds the agents' roots until addRoots looks again;
	// dbRoots are the agents' database roots as it last saw them.
	rootCache map[string][]agents.Root
	dbRoots   atomic.Pointer[[]root]
	// dbs renders the sessions agents keep in databases.
	dbs agentDBs

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a watcher; Start begins watching.
func New(opts Options) *Watcher {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 5 * time.Millisecond
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	w := &Watcher{opts: opts, log: opts.Logger, watched: map[string]bool{}, timers: map[string]*time.Timer{}}
	w.wb = newWatchBudget(opts.Descriptors, opts.CountEntries)
	return w
}

// Start begins watching: events and polling run in the background until
// Close. Roots are watched as Scan (or a change) walks them.
func (w *Watcher) Start(ctx context.Context) error {
	fw, err := newFolderWatcher()
	if err != nil {
		return fmt.Errorf("start the file watcher: %w", err)
	}
	w.fw = fw
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.wg.Go(w.watchLoop)
	w.wg.Go(w.pollLoop)
	return nil
}

// Started reports whether Start ran.
func (w *Watcher) Started() bool { return w.fw != nil }

// Scan watches every root and returns the files under them that may be
// transcripts: what the cold scan reads.
func (w *Watcher) Scan(ctx context.Context) []Candidate { return w.addRoots(ctx, nil) }

// Close stops watching and waits for the watcher's goroutines.
func (w *Watcher) Close() {
	// fsnotify first, while watchLoop still drains its events: on Windows
	// an Add under way (the cold scan's) finishes only then
	// (folderWatcher).
	if w.fw != nil {
		w.fw.Close()
	}
	if w.cancel != nil {
		w.cancel()
	}
	w.mu.Lock()
	for _, t := range w.timers {
		t.Stop()
	}
	w.mu.Unlock()
	w.wg.Wait()
	w.closeDBs()
}

// Watch watches dir (the folder of a transcript the editor opened,
// maybe outside every root), so its changes are seen; nothing before
// Start.
func (w *Watcher) Watch(dir string) {
	if w.fw != nil {
		w.watch(dir)
	}
}

// Schedule reads p again after the debounce delay, coalescing bursts.
func (w *Watcher) Schedule(p string) {
	if w.ctx != nil {
		w.schedule(p)
	}
}

// Reconfigure looks at the roots again after the folders or the
// configuration changed.
func (w *Watcher) Reconfigure() {
	w.dbRoots.Store(nil) // looked up again under the new configuration
	if w.fw != nil {
		w.wg.Go(func() { w.addRoots(w.ctx, nil) })
	}
}

// AgentRoots are agent a's roots for the folders that watch it, kept
// until the roots are looked at again (Copilot Chat's read VS Code's
// storage).
func (w *Watcher) AgentRoots(a *agents.Agent, folders []string) []agents.Root {
	key := a.Name + "\x00" + strings.Join(folders, "\x00")
	w.mu.Lock()
	rs, ok := w.rootCache[key]
	w.mu.Unlock()
	if ok {
		return rs
	}
	rs = a.Roots(w.opts.Env, folders)
	w.mu.Lock()
	if w.rootCache == nil {
		w.rootCache = map[string][]agents.Root{}
	}
	w.rootCache[key] = rs
	w.mu.Unlock()
	return rs
}

// ExpandHome expands a leading "~/" to the home folder.
func ExpandHome(env agents.Env, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(env.Home, rest)
	}
	return p
}
