package daemon

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/compactd/compactd/daemon/platform"
)

// The watcher within its descriptor bound. kqueue (macOS, the BSDs) holds
// one descriptor per watched folder and one per file in it, against a
// per-process limit (256 by default on macOS): ~/.codex/sessions or
// Copilot CLI's session-state hold thousands of sessions. So the daemon
// counts what each watch costs; folders past the bound are polled
// instead, and a transcript that changes in a polled folder is watched on
// its own from a reserve kept for them, so the conversation in use stays
// live. inotify and Windows hold no descriptor per watch: no bound there
// unless asked, but a folder the OS refuses to watch is polled too.

// watchBudget is guarded by Daemon.mu.
type watchBudget struct {
	// max bounds the descriptors (0: none); perEntry counts a folder's
	// entries in its cost, as kqueue holds them.
	max      int
	perEntry bool
	// liveMax is the part of max kept for files watched one by one.
	liveMax int
	used    int
	cost    map[string]int
	// polled holds each polled folder's entries as last seen.
	polled map[string]map[string]entryStamp
	// live lists the files watched one by one, least recently changed first.
	live     []string
	limitHit bool
}

type entryStamp struct {
	size int64
	mod  time.Time
	dir  bool
}

func newWatchBudget(descriptors int, perEntry bool) watchBudget {
	b := watchBudget{perEntry: perEntry || kqueueWatcher, cost: map[string]int{}, polled: map[string]map[string]entryStamp{}}
	switch {
	case descriptors > 0:
		b.max = descriptors
	case descriptors == 0:
		b.max = defaultWatchDescriptors()
	}
	if b.max > 0 {
		b.liveMax = min(max(b.max/4, 1), 64)
	}
	return b
}

// readStamps lists dir's entries (nil when dir cannot be read).
func readStamps(dir string) map[string]entryStamp {
	des, err := platform.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make(map[string]entryStamp, len(des))
	for _, de := range des {
		fi, err := de.Info()
		if err != nil {
			continue
		}
		out[de.Name()] = entryStamp{size: fi.Size(), mod: fi.ModTime(), dir: fi.IsDir()}
	}
	return out
}

// take accounts cost descriptors for watching path, if they fit beside
// the live reserve.
func (b *watchBudget) take(path string, cost int) bool {
	if b.max > 0 && b.used+cost > b.max-b.liveMax {
		return false
	}
	b.used += cost
	b.cost[path] = cost
	return true
}

// release gives back what watching path held.
func (b *watchBudget) release(path string) {
	if c, ok := b.cost[path]; ok {
		b.used -= c
		delete(b.cost, path)
	}
	if i := slices.Index(b.live, path); i >= 0 {
		b.live = slices.Delete(b.live, i, i+1)
	}
}

// entryGone: kqueue dropped the descriptor of an entry of dir.
func (b *watchBudget) entryGone(dir string) {
	if b.perEntry && b.cost[dir] > 1 {
		b.cost[dir]--
		b.used--
	}
}

func (b *watchBudget) poll(dir string, entries map[string]entryStamp) {
	if entries == nil {
		entries = map[string]entryStamp{}
	}
	b.polled[dir] = entries
}

func (b *watchBudget) isPolled(dir string) bool {
	_, ok := b.polled[dir]
	return ok
}

// noteLimit reports whether the bound is reached for the first time.
func (b *watchBudget) noteLimit() bool {
	first := !b.limitHit
	b.limitHit = true
	return first
}

// WatchStats is what the watcher holds, for health checks (doctor).
type WatchStats struct {
	// Descriptors the watches hold as counted (kqueue: a folder and its
	// entries), against Limit (0: no bound).
	Descriptors int `json:"descriptors"`
	Limit       int `json:"limit"`
	// Folders watched, folders polled (past the bound or refused by the
	// OS), and transcripts of polled folders watched one by one.
	WatchedFolders int `json:"watchedFolders"`
	PolledFolders  int `json:"polledFolders"`
	LiveFiles      int `json:"liveFiles"`
	// LimitReached says the bound was reached: some folders are polled.
	LimitReached bool `json:"limitReached"`
}

// WatchStats reports the watcher's use of its descriptor bound.
func (d *Daemon) WatchStats() WatchStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := WatchStats{Descriptors: d.wb.used, Limit: d.wb.max, PolledFolders: len(d.wb.polled), LiveFiles: len(d.wb.live), LimitReached: d.wb.limitHit}
	s.WatchedFolders = len(d.wb.cost) - len(d.wb.live)
	return s
}

// watchCost is what watching dir would hold, with its entries as now.
func (d *Daemon) watchCost(dir string) (int, map[string]entryStamp) {
	if !d.wb.perEntry && d.wb.max == 0 {
		return 1, nil
	}
	entries := readStamps(dir)
	if !d.wb.perEntry {
		return 1, entries
	}
	return 1 + len(entries), entries
}

// entryAdded: kqueue watches a new entry of a watched folder too. Past the
// bound, the folder is polled instead.
func (d *Daemon) entryAdded(p string) {
	dir := filepath.Dir(p)
	d.mu.Lock()
	if !d.wb.perEntry || d.wb.cost[dir] == 0 {
		d.mu.Unlock()
		return
	}
	d.wb.cost[dir]++
	d.wb.used++
	over := d.wb.max > 0 && d.wb.used > d.wb.max
	d.mu.Unlock()
	if !over {
		return
	}
	_ = d.watcher.Remove(dir)
	entries := readStamps(dir)
	d.mu.Lock()
	delete(d.watched, dir)
	d.wb.release(dir)
	d.wb.poll(dir, entries)
	d.mu.Unlock()
}

// watchLive watches p, a transcript that changed in a polled folder, on its
// own, so its next changes arrive at once; the least recently changed of
// those makes room when the reserve is full.
func (d *Daemon) watchLive(p string) {
	d.mu.Lock()
	if i := slices.Index(d.wb.live, p); i >= 0 {
		d.wb.live = append(slices.Delete(d.wb.live, i, i+1), p)
		d.mu.Unlock()
		return
	}
	if d.watched[p] || d.watched[filepath.Dir(p)] {
		d.mu.Unlock()
		return
	}
	var evict string
	if d.wb.liveMax > 0 && len(d.wb.live) >= d.wb.liveMax {
		evict = d.wb.live[0]
		d.wb.release(evict)
		delete(d.watched, evict)
	}
	d.wb.used++
	d.wb.cost[p] = 1
	d.wb.live = append(d.wb.live, p)
	d.watched[p] = true
	d.mu.Unlock()
	if evict != "" {
		_ = d.watcher.Remove(evict)
	}
	if err := d.watcher.Add(p); err != nil {
		d.mu.Lock()
		d.wb.release(p)
		delete(d.watched, p)
		d.mu.Unlock()
	}
}

// pollLoop looks at the polled folders every PollInterval and handles
// what changed there as the watcher's events would.
func (d *Daemon) pollLoop() {
	t := time.NewTicker(d.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		d.mu.Lock()
		dirs := make([]string, 0, len(d.wb.polled))
		for dir := range d.wb.polled {
			dirs = append(dirs, dir)
		}
		d.mu.Unlock()
		slices.Sort(dirs)
		for _, dir := range dirs {
			if d.ctx.Err() != nil {
				return
			}
			d.pollOnce(dir)
		}
	}
}

func (d *Daemon) pollOnce(dir string) {
	now := readStamps(dir)
	d.mu.Lock()
	before, ok := d.wb.polled[dir]
	if ok {
		if now == nil {
			delete(d.wb.polled, dir)
		} else {
			d.wb.polled[dir] = now
		}
	}
	d.mu.Unlock()
	if !ok {
		return
	}
	if now == nil {
		if _, err := os.Stat(dir); err != nil {
			d.handle(fsnotify.Event{Name: dir, Op: fsnotify.Remove})
		}
		return
	}
	for name, st := range now {
		p := filepath.Join(dir, name)
		old, seen := before[name]
		switch {
		case !seen:
			d.handle(fsnotify.Event{Name: p, Op: fsnotify.Create})
		case !st.dir && (st.size != old.size || !st.mod.Equal(old.mod)):
			d.handle(fsnotify.Event{Name: p, Op: fsnotify.Write})
		default:
			continue
		}
		if !st.dir && d.wanted(p) {
			d.watchLive(p)
		}
	}
	for name := range before {
		if _, ok := now[name]; !ok {
			d.handle(fsnotify.Event{Name: filepath.Join(dir, name), Op: fsnotify.Remove})
		}
	}
}
