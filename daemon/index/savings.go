package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// SavingsInput is what dry-run savings are estimated from.
type SavingsInput struct {
	Transcript *transcript.Transcript
	// Parts are the counts of Transcript's parts the index already has
	// (Parts[i][j] for Messages[i].Parts[j]; a nil row is a message it
	// counted whole), counted with Counter; nil when it has none.
	Parts   [][]int
	Counter *tokens.Counter
	// Strategies are the ones to estimate, each alone with Options: the
	// pipeline a compaction of the transcript runs (config.CompactOptions).
	Strategies []string
	Options    strategy.Options

	// skipped says why no estimates are computed.
	skipped error
	// counts and stats are the transcript's message counts and figures.
	counts []tokens.Count
	stats  transcript.Stats
}

// SavingsFunc estimates, without writing anything, how many tokens each
// strategy would save. Strategies it cannot estimate are left out of the
// map and explained in the error.
type SavingsFunc func(ctx context.Context, in SavingsInput) (map[string]int, error)

// StrategySavings is the SavingsFunc backed by the real pipeline: one
// strategy.Run per strategy, counting with in.Counter (else the counter
// for the transcript's model from counters), as a compaction would, and
// reusing the index's part counts so nothing is counted twice.
func StrategySavings(counters *tokens.CounterSet) SavingsFunc {
	return func(ctx context.Context, in SavingsInput) (map[string]int, error) {
		t := in.Transcript
		c := in.Counter
		if c == nil {
			var err error
			if c, err = counters.For(gauge.Resolve(t, gauge.Options{}).Info); err != nil {
				return nil, err
			}
		}
		counts, err := KnownCounts(ctx, t, c, in.Parts)
		if err != nil {
			return nil, err
		}
		out := map[string]int{}
		var failed []string
		for _, name := range in.Strategies {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			opts := in.Options
			opts.Strategies, opts.Counts, opts.NoRetention = []string{name}, counts, true
			// Placeholders name their recall handles, as a compaction writes them.
			opts.Recall = recall.NewBook(nil).Handle
			_, rep, err := strategy.Run(ctx, t, c, opts)
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

// KnownCounts completes the index's part counts (counting the messages it
// counted whole) into strategy.Counts; without them it counts every part.
func KnownCounts(ctx context.Context, t *transcript.Transcript, c *tokens.Counter, parts [][]int) (*strategy.Counts, error) {
	if len(parts) != len(t.Messages) {
		return strategy.CountTranscript(ctx, t, c)
	}
	full := make([][]int, len(parts))
	for i, row := range parts {
		m := &t.Messages[i]
		if row != nil && len(row) == len(m.Parts) {
			full[i] = row
			continue
		}
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		full[i] = make([]int, len(m.Parts))
		for j := range m.Parts {
			full[i][j] = c.Part(&m.Parts[j])
		}
	}
	return strategy.NewCounts(t, c, full)
}

// savingsWorker computes dry-run savings in the background, one file at a
// time, once a file has been quiet for a while: never on the hover path,
// and not once per appended line. A newer change to the file cancels the
// run under way; a run that took long waits longer before the next, so
// the estimates never take more than a share of the machine; commands
// (compaction jobs) go first.
type savingsWorker struct {
	x  *Index
	fn SavingsFunc

	mu      sync.Mutex
	pending map[string]time.Time
	// notBefore holds back the next run of a path whose last run was long.
	notBefore map[string]time.Time
	// running is the path being computed and how to cancel it.
	running string
	cancel  context.CancelFunc
	wake    chan struct{}
	// jobs counts commands running: the worker waits while any does.
	jobs atomic.Int32
}

// backoff is how many times its own duration a run keeps the next run of
// the same transcript waiting: estimates take at most a third of a core.
const backoff = 2

func newSavingsWorker(x *Index) *savingsWorker {
	fn := x.opts.Savings
	if fn == nil {
		// Counters of their own, so the index's counters measure indexing alone.
		fn = StrategySavings(newCounterSet(x.opts.CountCache))
	}
	return &savingsWorker{x: x, fn: fn, pending: map[string]time.Time{}, notBefore: map[string]time.Time{}, wake: make(chan struct{}, 1)}
}

func (w *savingsWorker) schedule(path string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.pending[path] = time.Now()
	if w.running == path && w.cancel != nil {
		w.cancel() // its figures would be for content already gone
	}
	w.mu.Unlock()
	w.poke()
}

func (w *savingsWorker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// jobStarted holds the estimates back while a command runs, cancelling
// the one under way (it is scheduled again); the returned func ends that.
func (w *savingsWorker) jobStarted() func() {
	if w == nil {
		return func() {}
	}
	w.jobs.Add(1)
	w.mu.Lock()
	if w.cancel != nil {
		w.pending[w.running] = time.Now()
		w.cancel()
	}
	w.mu.Unlock()
	return func() {
		w.jobs.Add(-1)
		w.poke()
	}
}

func (w *savingsWorker) run(ctx context.Context) {
	delay := w.x.opts.SavingsDelay
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	scanDone := w.x.scan.done
	for {
		path, wait := "", time.Duration(0)
		if w.jobs.Load() == 0 {
			path, wait = w.next(delay, scanDone == nil)
		}
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
// the scan's cores.
func (w *savingsWorker) next(delay time.Duration, scanned bool) (string, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	best, bestAt := "", time.Time{}
	var wait time.Duration
	active := w.x.Active()
	candidates := maps.Keys(w.pending)
	if !scanned {
		// Only these may go: look them up rather than go through every
		// pending path, which the scan adds one by one (a walk per file
		// scanned is quadratic in the transcripts, each lookup taking the
		// index's lock the scan's workers need).
		candidates = slices.Values(append(w.x.openedPaths(), active))
	}
	for p := range candidates {
		at, ok := w.pending[p]
		if !ok {
			continue
		}
		ready := at.Add(delay * w.x.readCost(p))
		if nb := w.notBefore[p]; nb.After(ready) {
			ready = nb
		}
		if rem := ready.Sub(now); rem > 0 {
			if wait == 0 || rem < wait {
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
	tr := w.x.entry(path, false)
	if tr == nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.mu.Lock()
	w.running, w.cancel = path, cancel
	w.mu.Unlock()
	start := time.Now()
	defer func() {
		w.x.log.Debug("dry-run savings computed", "path", path, "elapsed", time.Since(start), "canceled", ctx.Err() != nil)
		w.mu.Lock()
		w.running, w.cancel = "", nil
		w.notBefore[path] = time.Now().Add(backoff * time.Since(start))
		w.mu.Unlock()
	}()

	in, seq, ok := w.x.savingsInput(ctx, tr, false)
	if errors.Is(in.skipped, errNotInUse) {
		w.settle(tr, seq, in.skipped)
		return
	}
	if !ok {
		return
	}
	set := w.x.settings(path)
	in.Strategies = savingsStrategies(set.Compact.Strategies)
	in.Options = set.CompactOptions(in.Options.Window, config.Overrides{})
	savings, err := w.estimate(ctx, path, in)
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
		w.x.log.Debug("dry-run savings", "path", path, "err", err)
	}
	tr.snap.Store(&next)
	tr.mu.Unlock()
	w.x.emit(tr)
	// A dry run over a large transcript leaves garbage of its size.
	w.x.freeSoon()
	w.x.enforceBudget(nil, false)
}

// estimate runs the estimates of path: a panic in them is a failed
// estimate (and a line in the log), never the server's end.
func (w *savingsWorker) estimate(ctx context.Context, path string, in SavingsInput) (_ map[string]int, err error) {
	defer jobs.Recovered(&err, "estimate the savings of "+path, w.x.log)
	return w.fn(ctx, in)
}

// errNotInUse is why a cold transcript gets no new estimates: reading it
// whole for them is kept for the conversation in use.
var errNotInUse = errors.New("savings are estimated for the conversation in use; this one is not read again for them until it changes")

// settle ends the pending estimates of tr's snapshot seq without new
// figures (the last ones stay), saying why.
func (w *savingsWorker) settle(tr *tracked, seq uint64, why error) {
	tr.mu.Lock()
	cur := tr.snap.Load()
	if tr.seq != seq || cur == nil || !cur.SavingsPending {
		tr.mu.Unlock()
		return
	}
	next := *cur
	next.SavingsPending, next.SavingsErr = false, why.Error()
	tr.snap.Store(&next)
	tr.mu.Unlock()
	w.x.emit(tr)
}

// savingsInput is what the estimates for tr start from, and the Seq of the
// snapshot they are for: a hot entry's parts (a copy of the message and
// record lists, which appends and trimming change in place), else the
// file read again whole, held only while the estimates run.
func (x *Index) savingsInput(ctx context.Context, tr *tracked, asked bool) (SavingsInput, uint64, bool) {
	tr.mu.Lock()
	snap := tr.snap.Load()
	seq := tr.seq
	if snap == nil {
		tr.mu.Unlock()
		return SavingsInput{}, 0, false
	}
	in := SavingsInput{Options: strategy.Options{Window: snap.Window}}
	if tr.t != nil && tr.hot.Load() {
		in.Transcript = readerCopy(tr.t)
		in.counts = slices.Clone(tr.counts)
		in.stats = tr.stats
		in.Counter = x.savingsIx.counterFor(tr.path, tr.t, tr.stats)
		if in.Counter.ID() == tr.countedWith {
			in.Parts = slices.Clone(tr.parts)
		}
		tr.mu.Unlock()
		return in, seq, true
	}
	tr.mu.Unlock()
	if !asked && tr.refreshing.Load() > 0 {
		// A Refresh of the file is under way: its snapshot may be out
		// before the file is marked active, and a stale request would
		// settle it as not in use. The Refresh schedules the estimates
		// again when it is done.
		return SavingsInput{}, seq, false
	}
	if !asked && !tr.opened.Load() && tr.path != x.Active() {
		// Cold and not in use: an old session changed (a resumed one
		// gets its figures once it is the active one).
		return SavingsInput{skipped: errNotInUse}, seq, false
	}
	// Cold: read the file whole into an entry of its own, counted with
	// the estimates' counters (the index's measure indexing alone).
	tmp := &tracked{path: tr.path, ctx: ctx}
	tmp.wantHot.Store(true)
	if _, err := tmp.update(x.savingsIx); err != nil || tmp.t == nil {
		return SavingsInput{}, 0, false
	}
	in.Transcript, in.Parts, in.Counter = readerCopy(tmp.t), slices.Clone(tmp.parts), x.savingsIx.counterFor(tr.path, tmp.t, tmp.stats)
	in.counts, in.stats = slices.Clone(tmp.counts), tmp.stats
	if (tr.opened.Load() || tr.path == x.Active()) && tmp.t.Size <= maxAdopt {
		// The conversation in use keeps this parse: its commands and its
		// next estimates start from it.
		tmp.ctx = nil
		x.adopt(tr, tmp)
	}
	return in, seq, true
}

// followAside reads what tmp's file gained, as the index would: a codec's
// panic there is an error (and a line in the log), never the server's end.
func (x *Index) followAside(tmp *tracked, trimmer format.Trimmer, fi os.FileInfo) (err error) {
	defer jobs.Recovered(&err, "read "+tmp.path, x.log)
	_, err = tmp.follow(x.savingsIx, trimmer, fi)
	return err
}

// maxAdopt is the largest transcript (its source bytes) whose parse the
// index keeps hot when its estimates read it whole: a larger one is read
// again for each estimate (and for each command) rather than held.
const maxAdopt = 128 << 20

// adopt makes tmp, a hot parse of tr's file made on the side, tr's own,
// when tr is trimmed and its file is still the one tmp read: tmp reads
// what was appended since, then tr takes its state. It reports whether
// it did.
func (x *Index) adopt(tr, tmp *tracked) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	trimmer, ok := tr.codec.(format.Trimmer)
	if !ok || tr.t == nil || tr.hot.Load() || tmp.t == nil || tmp.codec != tr.codec || tmp.ino != tr.ino || sourcefile.Compressed(tr.path) {
		return false
	}
	fi, err := os.Stat(tr.path)
	if err != nil || platform.FileID(tr.path, fi) != tr.ino || fi.Size() < tmp.position() {
		return false
	}
	if fi.Size() > tmp.position() {
		if err := x.followAside(tmp, trimmer, fi); err != nil {
			return false
		}
	}
	if tmp.position() != tr.position() || len(tmp.t.Messages) != len(tr.t.Messages) {
		return false // the index is behind or ahead: next time
	}
	tr.t, tr.counts, tr.parts, tr.same, tr.countedWith, tr.stats = tmp.t, tmp.counts, tmp.parts, tmp.same, tmp.countedWith, tmp.stats
	tr.lineStarts, tr.scanned, tr.rawFrom, tr.trimmed = tmp.lineStarts, tmp.scanned, tmp.rawFrom, 0
	tr.skip, tr.long = tmp.skip, tmp.long
	tr.tally = tmp.tally
	tr.hot.Store(true)
	return true
}

// readCost is how many quiet delays the estimates of path wait for: one
// for a hot transcript, one more for each 32 MB of a cold one they must
// read whole (so a large transcript an agent is writing is read in its
// pauses, not between two lines).
func (x *Index) readCost(path string) time.Duration {
	tr := x.entry(path, false)
	if tr == nil || tr.hot.Load() {
		return 1
	}
	if s := tr.snap.Load(); s != nil {
		return 1 + time.Duration(s.Size/(32<<20))
	}
	return 1
}

// Parsed returns path's transcript as the index holds it, for a
// compaction job to start from (jobs.Request.Parsed): only while the index
// keeps it hot, in a JSON Lines format; nil otherwise.
func (x *Index) Parsed(path string) *jobs.Parsed {
	tr := x.entry(filepath.Clean(path), false)
	if tr == nil {
		return nil
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	trimmer, ok := tr.codec.(format.Trimmer)
	if !ok || tr.t == nil || !tr.hot.Load() || tr.skip != nil || len(tr.long) > 0 || sourcefile.Compressed(path) {
		return nil
	}
	// Detached: the job appends to it what the file gained since, while
	// the index goes on appending to its own; the two chains sharing the
	// codec's maps and arrays was a data race that could end the server
	// (concurrent map writes) or corrupt either parse.
	return &jobs.Parsed{Transcript: trimmer.Detach(tr.t), Codec: trimmer, Parts: slices.Clone(tr.parts), CounterID: tr.countedWith}
}

// JobRunning holds the background estimates back while a command runs
// (the one under way is cancelled and scheduled again): commands go
// first. Call the returned func when the command ends.
func (x *Index) JobRunning() func() { return x.savings.jobStarted() }

// readerCopy is t for a reader on another goroutine: its message and
// record lists copied (the index changes their elements in place when it
// trims and drops bytes), the parts shared (never changed once made).
func readerCopy(t *transcript.Transcript) *transcript.Transcript {
	c := *t
	c.Messages = slices.Clone(t.Messages)
	c.Records = slices.Clone(t.Records)
	return &c
}

// commonStrategies are the strategies whose dry-run savings are always
// shown beside the configured pipeline's.
var commonStrategies = []string{"strip-reasoning", "strip-tool-results", "dedup-tools", "strip-attachments", "extractive", "auto"}

// savingsStrategies is the list dry-run savings are computed for: the
// common strategies, the configured pipeline's, and always "auto" (the
// gauge notification reports it).
func savingsStrategies(configured []string) []string {
	out := slices.Clone(commonStrategies)
	for _, x := range configured {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
