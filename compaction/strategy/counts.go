package strategy

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/compactd/compactd/compaction/parallel"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// Counts are a transcript's per-part token counts, each part counted once.
// The daemon keeps them (it counts records anyway for the gauge) and passes
// them in Options.Counts so a dry run per strategy re-tokenizes nothing.
type Counts struct {
	src     *transcript.Transcript
	counter *tokens.Counter
	// parts[i][j] is the count of t.Messages[i].Parts[j].
	parts [][]int
	// approx[i] marks message i's count as an estimate (tokens.Count.Approx);
	// nil when the counts came from elsewhere (NewCounts).
	approx []bool
}

// CountTranscript counts every part of t's messages in parallel.
func CountTranscript(ctx context.Context, t *transcript.Transcript, c *tokens.Counter) (*Counts, error) {
	out := &Counts{src: t, counter: c, parts: make([][]int, len(t.Messages)), approx: make([]bool, len(t.Messages))}
	for i := range t.Messages {
		out.parts[i] = make([]int, len(t.Messages[i].Parts))
	}
	// Messages are claimed from a shared index, and a panic in a worker
	// reaches the caller (parallel.WaitGroup), where a job recovers it: a worker that
	// ended must not leave a feeder waiting on it.
	workers := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	var wg parallel.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(t.Messages) {
					return
				}
				m := &t.Messages[i]
				for j := range m.Parts {
					n := c.CountPart(&m.Parts[j])
					out.parts[i][j] = n.N
					out.approx[i] = out.approx[i] || n.Approx
				}
			}
		})
	}
	wg.Wait()
	if next.Load() < int64(len(t.Messages)) && ctx.Err() != nil {
		return nil, fmt.Errorf("count tokens: %w", ctx.Err())
	}
	return out, nil
}

// NewCounts wraps counts the caller already has: parts[i][j] is the count of
// t.Messages[i].Parts[j]. It returns an error when the shape does not match.
func NewCounts(t *transcript.Transcript, c *tokens.Counter, parts [][]int) (*Counts, error) {
	if len(parts) != len(t.Messages) {
		return nil, fmt.Errorf("counts cover %d messages, transcript has %d", len(parts), len(t.Messages))
	}
	for i := range parts {
		if len(parts[i]) != len(t.Messages[i].Parts) {
			return nil, fmt.Errorf("counts for message %d cover %d parts, it has %d", i, len(parts[i]), len(t.Messages[i].Parts))
		}
	}
	return &Counts{src: t, counter: c, parts: parts}, nil
}

// Covers reports whether c counts t's parts (the transcript they were
// counted for).
func (c *Counts) Covers(t *transcript.Transcript) bool { return c != nil && c.src == t }

// Messages returns each message's count as tokens.Counter.CountMessage
// gives it: its parts plus the per-message framing.
func (c *Counts) Messages() []tokens.Count {
	out := make([]tokens.Count, len(c.parts))
	for i := range c.parts {
		n := tokens.MessageOverhead
		for _, x := range c.parts[i] {
			n += x
		}
		out[i] = tokens.Count{N: n, Approx: c.approx != nil && c.approx[i]}
	}
	return out
}

// Counter is the counter the counts were made with.
func (c *Counts) Counter() *tokens.Counter { return c.counter }

// Part returns the count of t.Messages[msg].Parts[part].
func (c *Counts) Part(msg, part int) int { return c.parts[msg][part] }

// Total is the transcript's size as the model sees it: parts plus the
// per-message framing.
func (c *Counts) Total() int {
	n := 0
	for i := range c.parts {
		n += tokens.MessageOverhead
		for _, x := range c.parts[i] {
			n += x
		}
	}
	return n
}

// viewCounter counts a View's parts, reusing source counts for parts that
// are unchanged and counting rewritten ones.
type viewCounter struct {
	counts *Counts
	x      *sourceIndex
}

func newViewCounter(counts *Counts) *viewCounter {
	return &viewCounter{counts: counts, x: newSourceIndex(counts.src)}
}

// part counts p, a part of a view message copying source message si.
func (vc *viewCounter) part(si int, p *transcript.Part) int {
	if !p.Changed {
		if j := vc.x.part(si, p); j >= 0 {
			return vc.counts.parts[si][j]
		}
	}
	return vc.counts.counter.Part(p)
}
