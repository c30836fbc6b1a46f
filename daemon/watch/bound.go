package watch

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
// Copilot CLI's session-state hold thousands of sessions. So the watcher
// counts what each watch costs; folders past the bound are polled
// instead, and a transcript that changes in a polled folder is watched on
// its own from a reserve kept for them, so the conversation in use stays
// live. inotify and Windows hold no descriptor per watch: no bound there
// unless asked, but a folder the OS refuses to watch is polled too.

// watchBudget is guarded by Watcher.mu.
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

// Stats is what the watcher holds, for health checks (doctor).
type Stats struct {
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

// Stats reports the watcher's use of its descriptor bound.
func (w *Watcher) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Stats{Descriptors: w.wb.used, Limit: w.wb.max, PolledFolders: len(w.wb.polled), LiveFiles: len(w.wb.live), LimitReached: w.wb.limitHit}
	s.WatchedFolders = len(w.wb.cost) - len(w.wb.live)
	return s
}

// watchCost is what watching dir would hold, with its entries as now.
func (w *Watcher) watchCost(dir string) (int, map[string]entryStamp) {
	if !w.wb.perEntry && w.wb.max == 0 {
		return 1, nil
	}
	entries := readStamps(dir)
	if !w.wb.perEntry {
		return 1, entries
	}
	return 1 + len(entries), entries
}

// entryAdded: kqueue watches a new entry of a watched folder too. Past the
// bound, the folder is polled instead.
func (w *Watcher) entryAdded(p string) {
	dir := filepath.Dir(p)
	w.mu.Lock()
	if !w.wb.perEntry || w.wb.cost[dir] == 0 {
		w.mu.Unlock()
		return
	}
	w.wb.cost[dir]++
	w.wb.used++
	over := w.wb.max > 0 && w.wb.used > w.wb.max
	w.mu.Unlock()
	if !over {
		return
	}
	_ = w.fw.Remove(dir)
	entries := readStamps(dir)
	w.mu.Lock()
	delete(w.watched, dir)
	w.wb.release(dir)
	w.wb.poll(dir, entries)
	w.mu.Unlock()
}

// watchLive watches p, a transcript that changed in a polled folder, on its
// own, so its next changes arrive at once; the least recently changed of
// those makes room when the reserve is full.
func (w *Watcher) watchLive(p string) {
	w.mu.Lock()
	if i := slices.Index(w.wb.live, p); i >= 0 {
		w.wb.live = append(slices.Delete(w.wb.live, i, i+1), p)
		w.mu.Unlock()
		return
	}
	if w.watched[p] || w.watched[filepath.Dir(p)] {
		w.mu.Unlock()
		return
	}
	var evict string
	if w.wb.liveMax > 0 && len(w.wb.live) >= w.wb.liveMax {
		evict = w.wb.live[0]
		w.wb.release(evict)
		delete(w.watched, evict)
	}
	w.wb.used++
	w.wb.cost[p] = 1
	w.wb.live = append(w.wb.live, p)
	w.watched[p] = true
	w.mu.Unlock()
	if evict != "" {
		_ = w.fw.Remove(evict)
	}
	if err := w.fw.Add(p); err != nil {
		w.mu.Lock()
		w.wb.release(p)
		delete(w.watched, p)
		w.mu.Unlock()
	}
}

// pollLoop looks at the polled folders every PollInterval and handles
// what changed there as the watcher's events would.
func (w *Watcher) pollLoop() {
	t := time.NewTicker(w.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
		w.mu.Lock()
		dirs := make([]string, 0, len(w.wb.polled))
		for dir := range w.wb.polled {
			dirs = append(dirs, dir)
		}
		w.mu.Unlock()
		slices.Sort(dirs)
		for _, dir := range dirs {
			if w.ctx.Err() != nil {
				return
			}
			w.pollOnce(dir)
		}
	}
}

func (w *Watcher) pollOnce(dir string) {
	now := readStamps(dir)
	w.mu.Lock()
	before, ok := w.wb.polled[dir]
	if ok {
		if now == nil {
			delete(w.wb.polled, dir)
		} else {
			w.wb.polled[dir] = now
		}
	}
	w.mu.Unlock()
	if !ok {
		return
	}
	if now == nil {
		if _, err := os.Stat(dir); err != nil {
			w.handle(fsnotify.Event{Name: dir, Op: fsnotify.Remove})
		}
		return
	}
	for name, st := range now {
		p := filepath.Join(dir, name)
		old, seen := before[name]
		switch {
		case !seen:
			w.handle(fsnotify.Event{Name: p, Op: fsnotify.Create})
		case !st.dir && (st.size != old.size || !st.mod.Equal(old.mod)):
			w.handle(fsnotify.Event{Name: p, Op: fsnotify.Write})
		default:
			continue
		}
		if !st.dir && w.wanted(p) {
			w.watchLive(p)
		}
	}
	for name := range before {
		if _, ok := now[name]; !ok {
			w.handle(fsnotify.Event{Name: filepath.Join(dir, name), Op: fsnotify.Remove})
		}
	}
}
