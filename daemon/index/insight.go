package index

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/config"
)

// Insight is what a snapshot says beyond the gauge's figure: what fills
// the window, how far our count is to be trusted, and what the
// conversation costs. It is computed with the snapshot, from the counts
// the index holds, in time proportional to what changed.
type Insight struct {
	// Breakdown is nil until the transcript was counted.
	Breakdown *gauge.Breakdown
	// EstimateError is our counter's error against the API's figures.
	EstimateError gauge.ErrorEstimate
	// Cost and Price are nil when the model has no price.
	Cost  *pricing.Figures
	Price *pricing.Price
	// LastResponse is when the response the gauge counts from came (zero
	// when unknown): the provider's cache was last warmed then.
	LastResponse time.Time
}

// Economics prices compacting saved tokens out of a window holding tokens,
// at now: the one-time cache write of what is kept, the saving per turn,
// the break-even, and whether the cache is already cold. nil without a
// price.
func (in Insight) Economics(tokens, saved int, now time.Time) *pricing.Economics {
	if in.Price == nil {
		return nil
	}
	idle := time.Duration(-1)
	if !in.LastResponse.IsZero() {
		idle = max(now.Sub(in.LastResponse), 0)
	}
	e := in.Price.Economics(tokens, saved, idle)
	return &e
}

// SavingPerTurn is what removing saved tokens from the context saves on
// each later turn; nil without a price.
func (in Insight) SavingPerTurn(tokens, saved int) *pricing.Saving {
	if in.Price == nil {
		return nil
	}
	s := in.Price.PerTurnSaving(tokens, saved)
	return &s
}

// withWindow is the insight under another context window (settings
// changed while the parsed transcript was evicted).
func (in Insight) withWindow(w int) Insight {
	if in.Breakdown != nil {
		b := *in.Breakdown
		b.ContextWindow = w
		in.Breakdown = &b
	}
	return in
}

// tallyOptions are how the entry's tally counts under the current
// settings: the price of the transcript's model, and where appends may
// still change messages.
func (tr *tracked) tallyOptions(ix *indexer, t *transcript.Transcript, set *Settings) gauge.TallyOptions {
	model := gauge.Resolve(t, gauge.Options{Model: set.Gauge.Model, Registry: ix.registry, Stats: &tr.stats})
	opts := gauge.TallyOptions{Images: model.Info.Provider.ImagePricing(), CountText: ix.counterFor(tr.path, t, tr.stats).Text}
	table := set.prices
	if table == nil {
		table = pricing.Builtin()
	}
	if p, ok := table.Lookup(model.Model); ok {
		opts.Price = &p
	}
	if trimmer, ok := tr.codec.(format.Trimmer); ok {
		opts.Floor = trimmer.Floor(t)
	}
	opts.AllUsage = ix.allUsage
	return opts
}

// advanceTally carries the entry's tally to nt, just counted (tr.same
// and tr.counts describe it). It runs before the index drops any part of
// nt's messages (format.Trimmer), so every message is tallied whole once.
// tr.mu is held.
func (tr *tracked) advanceTally(ix *indexer, nt *transcript.Transcript) {
	opts := tr.tallyOptions(ix, nt, ix.settings(tr.path))
	tr.tally = tr.tally.Advance(nt, tr.counts, tr.same, opts)
}

// insightOf derives the snapshot's insight from the entry's tally. Callers
// hold tr.mu; g is the snapshot's gauge and turns its per-turn figures.
func insightOf(tr *tracked, ix *indexer, set *Settings, g gauge.Gauge, turns []TurnInfo) Insight {
	t := tr.t
	opts := tr.tallyOptions(ix, t, set)
	// The settings' prices may have changed since the tally last read a
	// message: only the usage is read again, which a trimmed transcript
	// keeps.
	tr.tally = tr.tally.Reprice(t, opts.Price)
	var in Insight
	in.Price = opts.Price
	kept := keptTokens(turns, set.KeepLast())
	b := tr.tally.Breakdown(g, t, tr.counts, gauge.BreakdownOptions{KeepLast: set.KeepLast(), Kept: &kept})
	in.Breakdown = &b
	in.EstimateError = tr.tally.EstimateError()
	if at := g.ReportedAt; at >= 0 && at < len(t.Messages) {
		in.LastResponse = t.Messages[at].Timestamp
	}
	if in.Price != nil {
		c := in.Price.FiguresOf(tr.tally.Session(), g.Tokens, g.Reported)
		in.Cost = &c
	}
	return in
}

// keptTokens is what the last keepLast turns hold: compaction never
// touches them.
func keptTokens(turns []TurnInfo, keepLast int) int {
	n := 0
	for i := max(len(turns)-keepLast, 0); i < len(turns); i++ {
		n += turns[i].Tokens
	}
	return n
}

// DryRunTurns is what the configured compaction would take from each turn
// of a transcript, for views that highlight it.
type DryRunTurns struct {
	// Seq is the snapshot the dry run describes.
	Seq        uint64
	Strategies []string
	// TokensBefore and TokensAfter are the transcript's count before and
	// after (the dry run's report).
	TokensBefore, TokensAfter int
	Turns                     []gauge.TurnChange
	// TradeOff is the pipeline at a few budgets, the knee marked (the
	// offline summary stands in for a configured model: a preview calls
	// none); nil for a transcript too small, or too large to preview.
	TradeOff []strategy.TradePoint
}

// KneeBudget is the knee of path's last dry run's trade-off, 0 when none
// is known: what "Compact to fit…" suggests.
func (x *Index) KneeBudget(path string) int {
	tr := x.entry(filepath.Clean(path), false)
	if tr == nil {
		return 0
	}
	c := tr.dryRun.Load()
	if c == nil {
		return 0
	}
	for _, p := range c.TradeOff {
		if p.Knee {
			return p.Budget
		}
	}
	return 0
}

// DryRunTurns runs the configured pipeline on path without writing
// anything and maps the result onto its turns. It is computed on request
// (a view opening) and kept until the transcript changes.
func (x *Index) DryRunTurns(ctx context.Context, path string) (*DryRunTurns, error) {
	tr := x.entry(filepath.Clean(path), false)
	if tr == nil {
		return nil, fmt.Errorf("%s is not a tracked transcript", path)
	}
	tr.mu.Lock()
	snap := tr.snap.Load()
	if snap == nil {
		tr.mu.Unlock()
		return nil, fmt.Errorf("%s is not indexed yet", path)
	}
	if c := tr.dryRun.Load(); c != nil && c.Seq == snap.Seq {
		tr.mu.Unlock()
		return c, nil
	}
	tr.mu.Unlock()
	// The index's hot parse (a copy: the index trims in place), or the
	// file read whole when it keeps the transcript trimmed.
	in, _, ok := x.savingsInput(ctx, tr, true)
	if !ok || in.Transcript == nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s could not be read again for the dry run", path)
	}
	t, counts := in.Transcript, in.counts
	c := x.ix.counterFor(tr.path, t, in.stats)
	if len(counts) != len(t.Messages) {
		var err error
		if counts, err = c.CountMessages(ctx, t.Messages); err != nil {
			return nil, err
		}
	}
	known, err := KnownCounts(ctx, t, c, in.Parts)
	if err != nil {
		return nil, err
	}
	opts := x.settings(tr.path).CompactOptions(snap.Window, config.Overrides{})
	opts.Counts, opts.NoRetention = known, true
	opts.Recall = recall.NewBook(nil).Handle // as a compaction writes its placeholders
	if opts.Summarizer == nil {
		opts.Summarizer = &summarize.Extractive{Counter: c}
	}
	opts.TradeOff = opts.Budget == 0 && known.Total() <= strategy.TradeOffLimit
	v, rep, err := strategy.Run(ctx, t, c, opts)
	if err != nil {
		return nil, fmt.Errorf("dry run of %s: %w", path, err)
	}
	out := &DryRunTurns{
		Seq: snap.Seq, Strategies: opts.Strategies, TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter,
		Turns:    gauge.TurnChanges(t, counts, v, func(m *transcript.Message) int { return c.CountMessage(m).N }, c.Text),
		TradeOff: rep.TradeOff,
	}
	tr.dryRun.Store(out)
	return out, nil
}
