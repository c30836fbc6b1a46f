package tokens

import (
	"context"
	"sync/atomic"

	"github.com/compactd/compactd/compaction/parallel"

	"github.com/compactd/compactd/compaction/transcript"
)

// parallel runs fn(0..n-1) on the counter's workers and waits for them.
func (c *Counter) parallel(n int, fn func(i int)) {
	_ = c.parallelCtx(context.Background(), n, fn)
}

// parallelCtx is parallel that stops handing out work once ctx is done.
// Items are claimed one at a time from a shared index, so one huge item
// does not hold back a batch of small ones.
func (c *Counter) parallelCtx(ctx context.Context, n int, fn func(i int)) error {
	workers := min(c.workers, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			fn(i)
		}
		return nil
	}
	// A panic in fn reaches the caller (parallel.WaitGroup), where a job recovers it,
	// instead of ending the process from a worker goroutine.
	var next atomic.Int64
	var wg parallel.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// CountMessages counts msgs in parallel across the counter's workers;
// counts[i] is msgs[i]'s tokens including MessageOverhead. It returns the
// context's error, and no counts, if ctx ends first.
func (c *Counter) CountMessages(ctx context.Context, msgs []transcript.Message) ([]Count, error) {
	counts := make([]Count, len(msgs))
	if err := c.parallelCtx(ctx, len(msgs), func(i int) { counts[i] = c.CountMessage(&msgs[i]) }); err != nil {
		return nil, err
	}
	return counts, nil
}

// CountTexts counts texts in parallel, like CountMessages.
func (c *Counter) CountTexts(ctx context.Context, texts []string) ([]Count, error) {
	counts := make([]Count, len(texts))
	if err := c.parallelCtx(ctx, len(texts), func(i int) { counts[i] = c.CountText(texts[i]) }); err != nil {
		return nil, err
	}
	return counts, nil
}

// Sum adds counts up.
func Sum(counts []Count) Count {
	var n Count
	for _, k := range counts {
		n = n.Add(k)
	}
	return n
}
