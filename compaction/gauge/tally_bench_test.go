package gauge_test

import (
	"context"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// BenchmarkTallyAppend measures what the breakdown adds to one append of a
// few messages to a large transcript: advancing the tally from its mark
// and deriving the breakdown. It must not grow with the transcript.
func BenchmarkTallyAppend(b *testing.B) {
	for _, size := range []int{1 << 20, 50 << 20} {
		b.Run(map[int]string{1 << 20: "1MB", 50 << 20: "50MB"}[size], func(b *testing.B) {
			src := sessiongen.ClaudeCode(sessiongen.Options{Seed: 1, TargetBytes: size})
			c, _ := format.Lookup(transcript.FormatClaudeCode)
			t, err := c.Parse(src)
			if err != nil {
				b.Fatal(err)
			}
			counter, _ := tokens.New(tokens.O200kBase)
			counts, _ := counter.CountMessages(context.Background(), t.Messages)
			g := gauge.Compute(t, counts, gauge.Options{})
			tally := gauge.Tally{}.Advance(t, counts, 0, gauge.TallyOptions{})
			kept := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// The last message changed: resume from the mark.
				tally = tally.Advance(t, counts, len(t.Messages)-1, gauge.TallyOptions{})
				_ = tally.Breakdown(g, t, counts, gauge.BreakdownOptions{Kept: &kept})
				_ = tally.EstimateError()
			}
		})
	}
}
