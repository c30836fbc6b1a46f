package strategy

import (
	"context"
	"slices"

	"github.com/compactd/compactd/compaction/salience"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// A TradePoint is one budget's compaction: what it takes and what it
// keeps, so a user picks the point worth its tokens.
type TradePoint struct {
	Budget int `json:"budget"`
	// Tokens is the result's size.
	Tokens int `json:"tokens"`
	// Kept is the share (0–1) of the conversation's names — files,
	// identifiers, commands, errors, URLs, each weighted by its salience —
	// that the result still names. compactd's own measure: it cannot say
	// what the rest of the conversation will need, only what the
	// conversation so far made salient.
	Kept float64 `json:"kept"`
	// Knee marks the point past which more tokens buy little: the budget
	// auto picks when none is set.
	Knee bool `json:"knee,omitempty"`
}

// tradeShares are the budgets a trade-off tries, as shares of the
// transcript's size.
var tradeShares = []float64{0.03, 0.06, 0.12, 0.25}

// TradeOffLimit is the largest transcript, in tokens, a trade-off is
// computed for (a dry run's, auto's knee): past it, four more compactions
// cost more than the choice is worth, and auto summarizes as without one.
const TradeOffLimit = 400_000

// minTradeBudget is the smallest budget a trade-off proposes.
const minTradeBudget = 1000

// kneeGain is the gain in Kept under which doubling a budget is not worth
// it.
const kneeGain = 0.04

// TradeOff compacts t with opts at three or four budgets between a few
// percent and a quarter of its size and reports each point, the knee
// marked. It returns nil for a transcript too small to trade anything.
// The points are measured with the offline summary whatever summarizer
// opts names: a trade-off must not call a model four times.
func TradeOff(ctx context.Context, t *transcript.Transcript, c *tokens.Counter, opts Options) ([]TradePoint, error) {
	counts := opts.Counts
	if !counts.Covers(t) {
		var err error
		if counts, err = CountTranscript(ctx, t, c); err != nil {
			return nil, err
		}
	}
	size := counts.Total()
	var budgets []int
	for _, f := range tradeShares {
		b := int(f * float64(size))
		if b >= minTradeBudget && b < size && !slices.Contains(budgets, b) {
			budgets = append(budgets, b)
		}
	}
	if len(budgets) < 2 {
		return nil, nil
	}
	x := salience.Build(t.Messages, salience.Options{Cwd: t.Meta.Cwd})
	total := 0.0
	for _, s := range x.Ranked() {
		total += s.Score
	}
	var out []TradePoint
	for _, b := range budgets {
		o := opts
		o.Budget, o.Counts, o.NoRetention, o.TradeOff = b, counts, true, false
		o.Summarizer = &summarize.Extractive{Counter: c}
		// Trials name nothing for recall: no version will hold them.
		o.Recall = nil
		v, rep, err := Run(ctx, t, c, o)
		if err != nil {
			return nil, err
		}
		out = append(out, TradePoint{Budget: b, Tokens: rep.TokensAfter, Kept: keptShare(x, v, total)})
	}
	out[knee(out)].Knee = true
	return out, nil
}

// knee is the first point whose next one gains under kneeGain.
func knee(points []TradePoint) int {
	for i := 0; i+1 < len(points); i++ {
		if points[i+1].Kept-points[i].Kept < kneeGain {
			return i
		}
	}
	return len(points) - 1
}

// keptShare is the salience-weighted share of x's entities that v names.
func keptShare(x *salience.Index, v *transcript.View, total float64) float64 {
	if total <= 0 {
		return 1
	}
	seen := map[*salience.Stat]bool{}
	kept := 0.0
	src := newSourceIndex(v.Source)
	note := func(text string) {
		salience.Scan(text, func(e salience.Entity) {
			if e.Kind == salience.Path {
				e.Text = salience.Relative(e.Text, v.Source.Meta.Cwd)
			}
			if s := x.Stat(e); s != nil && !seen[s] {
				seen[s] = true
				kept += s.Score
			}
		})
	}
	for i := range v.Messages {
		for _, p := range v.Messages[i].Parts {
			note(p.Text)
			note(p.Args)
			if si := src.message(&v.Messages[i]); p.Kind == transcript.PartToolCall && si >= 0 {
				// Commands are named by the call that runs them.
				for _, s := range x.Message(si) {
					if s.Kind == salience.Command && !seen[s] {
						seen[s] = true
						kept += s.Score
					}
				}
			}
		}
	}
	for _, s := range v.Summaries {
		note(s.Text)
	}
	return min(1, kept/total)
}
