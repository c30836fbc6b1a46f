package daemon

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// SavingsFunc estimates, without writing anything, how many tokens each
// strategy would save on t. Strategies it cannot estimate are left out of
// the map and explained in the error.
type SavingsFunc func(ctx context.Context, t *transcript.Transcript, strategies []string, keepLast, window int) (map[string]int, error)

// StrategySavings is the SavingsFunc backed by the real pipeline: one
// strategy.Run per strategy, counting with the counter for t's model from
// counters, as a compaction of t would.
func StrategySavings(counters *tokens.CounterSet) SavingsFunc {
	return func(ctx context.Context, t *transcript.Transcript, strategies []string, keepLast, window int) (map[string]int, error) {
		c, err := counters.For(gauge.Resolve(t, gauge.Options{}).Info)
		if err != nil {
			return nil, err
		}
		out := map[string]int{}
		var failed []string
		for _, name := range strategies {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			_, rep, err := strategy.Run(ctx, t, c, strategy.Options{Strategies: []string{name}, KeepLast: keepLast, Window: window})
			if err != nil || rep == nil {
				failed = append(failed, fmt.Sprintf("%s: %v", name, err))
				continue
			}
			out[name] = max(rep.TokensBefore-rep.TokensAfter, 0)
		}
		if len(failed) > 0 {
			return out, fmt.Errorf("no estimate for %s", strings.Join(failed, "; "))
		}
		return out, nil
	}
}

// savingsWorker computes dry-run savings in the background, one file at a
// time, once a file has been quiet for a while: never on the hover path,
// and not once per appended line.
type savingsWorker struct {
	d       *Daemon
	fn      SavingsFunc
	mu      sync.Mutex
	pending map[string]time.Time
	wake    chan struct{}
}

func newSavingsWorker(d *Daemon) *savingsWorker {
	fn := d.opts.Savings
	if fn == nil {
		// Counters of their own, so the index's counters measure indexing alone.
		fn = StrategySavings(newCounterSet(d.opts.CountCache))
	}
	return &savingsWorker{d: d, fn: fn, pending: map[string]time.Time{}, wake: make(chan struct{}, 1)}
}

func (w *savingsWorker) schedule(path string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.pending[path] = time.Now()
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *savingsWorker) run(ctx context.Context) {
	delay := w.d.opts.SavingsDelay
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	scanDone := w.d.scanDone
	for {
		path, wait := w.next(delay, scanDone == nil)
		if path != "" {
			w.compute(ctx, path)
			continue
		}
		if wait > 0 {
			timer.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-timer.C:
		case <-scanDone:
			scanDone = nil // the deferred dry runs may go now
		}
	}
}

// next returns a path quiet for delay (the most recently active first, so
// the conversation in use gets its figures first), or how long to wait.
// While the cold scan runs (scanned false) only the conversation in use
// and transcripts the editor opened get dry runs: the others would take
// the scan's cores and hold a whole parsed transcript each while the
// scan drops it from memory, and most are evicted by the time the scan
// ends (a dry run needs the parsed form, so they get none until they
// change again).
func (w *savingsWorker) next(delay time.Duration, scanned bool) (string, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	best, bestAt := "", time.Time{}
	var wait time.Duration
	active := w.d.Active()
	for p, at := range w.pending {
		if !scanned && p != active && !w.d.opened(p) {
			continue
		}
		if quiet := now.Sub(at); quiet < delay {
			if rem := delay - quiet; wait == 0 || rem < wait {
				wait = rem
			}
			continue
		}
		if best == "" || at.After(bestAt) {
			best, bestAt = p, at
		}
	}
	if best != "" {
		delete(w.pending, best)
	}
	return best, wait
}

func (w *savingsWorker) compute(ctx context.Context, path string) {
	tr := w.d.entry(path, false)
	if tr == nil {
		return
	}
	tr.mu.Lock()
	t, seq := tr.t, tr.seq
	snap := tr.snap.Load()
	tr.mu.Unlock()
	if t == nil || snap == nil {
		return
	}
	set := w.d.Settings()
	savings, err := w.fn(ctx, t, set.SavingsStrategies(), set.KeepLast, snap.Window)
	if ctx.Err() != nil {
		return
	}
	tr.mu.Lock()
	cur := tr.snap.Load()
	if tr.seq != seq || cur == nil {
		tr.mu.Unlock()
		return // changed meanwhile; the change scheduled a new run
	}
	next := *cur
	next.Savings, next.SavingsPending, next.SavingsErr = savings, false, ""
	if err != nil {
		next.SavingsErr = err.Error()
		w.d.log.Debug("dry-run savings", "path", path, "err", err)
	}
	tr.snap.Store(&next)
	tr.mu.Unlock()
	w.d.emit(tr)
	// A dry run over a large transcript leaves garbage of its size.
	w.d.freeSoon()
}
