package daemon

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/index"
)

// AutoCompactor runs the opt-in automatic compaction: when a transcript's
// gauge crosses the trigger, it compacts the transcript into a fork, once
// per crossing. It never compacts in place, and a fork it wrote triggers
// only by growing past the trigger itself, so it cannot loop.
//
// A crossing is the trigger starting to fire for a transcript seen below
// it. A transcript already over the trigger when first seen (the cold scan
// of old sessions) crosses when it next grows: it is being worked on.
type AutoCompactor struct {
	// Trigger returns path's trigger and whether auto-compaction is on
	// for it now (Daemon.AutoTrigger).
	Trigger func(path string) (strategy.Trigger, bool)
	// Compact compacts path into a fork (Daemon.AutoCompact).
	Compact func(ctx context.Context, path string) (*Compaction, error)
	// Done reports each finished automatic compaction.
	Done func(path string, res *Compaction, err error)
	Log  *slog.Logger

	mu    sync.Mutex
	state map[string]*autoState
	wg    sync.WaitGroup
	// started counts the compactions Observe started.
	started atomic.Int64
}

type autoState struct {
	observed bool  // a snapshot was seen (not only registered as a fork)
	above    bool  // the trigger fired at the last snapshot
	size     int64 // the file's size at the last snapshot
	pending  bool  // above when first seen: fire on the next growth
	running  bool
	fork     bool // written by an automatic compaction
}

// Observe takes a transcript's new snapshot and starts a fork compaction
// when it crosses the trigger. It returns at once; the compaction runs
// until done or ctx ends.
func (a *AutoCompactor) Observe(ctx context.Context, snap *index.Snapshot) {
	if snap == nil || a.Compact == nil || a.Trigger == nil {
		return
	}
	trig, on := a.Trigger(snap.Path)
	if !on {
		return
	}
	fires := trig.Fires(snap.Tokens, snap.Window, len(snap.Turns))

	a.mu.Lock()
	if a.state == nil {
		a.state = map[string]*autoState{}
	}
	st := a.state[snap.Path]
	if st == nil {
		st = &autoState{}
		a.state[snap.Path] = st
	}
	grew := snap.Size > st.size
	crossing := false
	if !st.observed {
		st.observed = true
		st.pending = fires && !st.fork
	} else {
		crossing = fires && (!st.above || (st.pending && grew))
	}
	st.above, st.size = fires, snap.Size
	if !fires {
		st.pending = false
	}
	if !crossing || st.running {
		a.mu.Unlock()
		return
	}
	st.pending, st.running = false, true
	a.mu.Unlock()

	a.wg.Add(1)
	a.started.Add(1)
	go func() {
		defer a.wg.Done()
		res, err := a.Compact(ctx, snap.Path)
		a.mu.Lock()
		st.running = false
		if err == nil && res != nil && res.Open != "" {
			a.markFork(res.Open)
		}
		a.mu.Unlock()
		if a.Log != nil {
			a.Log.Info("auto-compaction", "path", snap.Path, "tokens", snap.Tokens, "err", err)
		}
		if a.Done != nil {
			a.Done(snap.Path, res, err)
		}
	}()
}

// markFork records path as written by an automatic compaction: what it
// holds when seen is its starting point, never a crossing. a.mu is held.
func (a *AutoCompactor) markFork(path string) {
	st := a.state[path]
	if st == nil {
		st = &autoState{}
		a.state[path] = st
	}
	st.fork, st.pending = true, false
}

// Forget drops a transcript that went away.
func (a *AutoCompactor) Forget(path string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if st := a.state[path]; st != nil && !st.running {
		delete(a.state, path)
	}
}

// Started is how many automatic compactions have been started.
func (a *AutoCompactor) Started() int64 { return a.started.Load() }

// Wait blocks until the running compactions ended (cancel their context
// first to make it quick).
func (a *AutoCompactor) Wait() { a.wg.Wait() }
