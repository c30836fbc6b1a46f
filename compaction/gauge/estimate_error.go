package gauge

import (
	"fmt"
	"sort"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// How the estimate error is measured. Between two usage points the API's
// figure grows by what was added to the conversation, and our count of
// the same messages should grow alike: the part outside the transcript
// (system prompt, tools) cancels. One such span is not a measurement,
// though: a first request without tools, a cache entry lost, a system
// prompt changed between requests all move the reported figure with no
// message behind it ("−98 %" on a session whose first usage point came
// from a small request). So the error is the median over several spans,
// and it is shown only when the spans agree.
const (
	// MinErrorSpans is how many spans between usage points a shown error needs.
	MinErrorSpans = 3
	// minSpanTokens merges consecutive usage points until the API's figure
	// grew by this much: a handful of tokens of framing would otherwise
	// swamp a short span's ratio.
	minSpanTokens = 512
	// maxErrorSpread is how far apart the middle half of the spans' errors
	// may lie for the median to describe our counting.
	maxErrorSpread = 0.5
	// maxErrorSpans is how many recent spans are used.
	maxErrorSpans = 32
)

// ErrorEstimate is our counter's error against the API's figures.
type ErrorEstimate struct {
	// Error is the median relative error, negative when we count fewer
	// tokens than the API; nil when it is not shown (see Note).
	Error *float64 `json:"error"`
	// Spans is how many spans between usage points were measured.
	Spans int `json:"spans"`
	// Note says why the error is hidden, or what it was measured on.
	Note string `json:"note"`
}

// measureError computes the estimate error from usage points in message
// order (cumulative counts at each).
func measureError(points []usagePoint) ErrorEstimate {
	var errs []float64
	anchor := -1
	for i, p := range points {
		if p.reported <= 0 {
			continue
		}
		if anchor < 0 {
			anchor = i
			continue
		}
		a := points[anchor]
		rep := p.reported - a.reported
		switch {
		case rep < 0:
			// The context shrank (the agent compacted, a branch was
			// rewound): start over from here.
			anchor = i
		case rep >= minSpanTokens:
			counted := p.counted - a.counted
			errs = append(errs, float64(counted-rep)/float64(rep))
			anchor = i
		}
	}
	if len(errs) > maxErrorSpans {
		errs = errs[len(errs)-maxErrorSpans:]
	}
	e := ErrorEstimate{Spans: len(errs)}
	if len(errs) < MinErrorSpans {
		e.Note = fmt.Sprintf("not enough usage points: %d %s between them, %d needed", len(errs), plural(len(errs), "span"), MinErrorSpans)
		return e
	}
	sort.Float64s(errs)
	q1, med, q3 := quantile(errs, 0.25), quantile(errs, 0.5), quantile(errs, 0.75)
	if q3-q1 > maxErrorSpread {
		e.Note = fmt.Sprintf("the %d spans between usage points disagree (%+.0f %% to %+.0f %% in the middle half): caching or requests outside the conversation move the reported figure", len(errs), 100*q1, 100*q3)
		return e
	}
	e.Error = &med
	e.Note = fmt.Sprintf("median of %d spans between usage points", len(errs))
	return e
}

// quantile of sorted xs, linearly interpolated.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	pos := q * float64(len(xs)-1)
	lo := int(pos)
	if lo+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	f := pos - float64(lo)
	return xs[lo]*(1-f) + xs[lo+1]*f
}

// usagePoints walks every message for its usage points.
func usagePoints(t *transcript.Transcript, counts []tokens.Count) []usagePoint {
	var out []usagePoint
	cum := 0
	for i := range t.Messages {
		if i >= len(counts) {
			break
		}
		cum += counts[i].N
		if u := t.Messages[i].Usage; u != nil {
			out = append(out, usagePoint{msg: i, reported: u.ContextTokens(), counted: cum})
		}
	}
	return out
}

// EstimateError is the error measured on the tally's recent usage points.
func (tl Tally) EstimateError() ErrorEstimate { return measureError(tl.cur.usage) }
