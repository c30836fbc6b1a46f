package summarize_test

import (
	"context"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestExtractiveRetentionReport checks the extractive summary against the
// pipeline's own retention report (strategy.Retain over facts.Extract): a
// view that keeps only the summary of a ~100k-token span must keep ≥ 95 %
// of the facts, in ≤ 3k tokens, and lose no fact but (at most) error lines.
func TestExtractiveRetentionReport(t *testing.T) {
	c := newCounter(t)
	for _, seed := range []uint64{1, 2, 3} {
		msgs, spanTokens := spanOfTokens(t, seed, 100_000)
		turns := transcript.BuildTurns(msgs)
		s, err := (&summarize.Extractive{Counter: c}).Summarize(context.Background(), summarize.Request{Messages: msgs, ToTurn: len(turns)})
		if err != nil {
			t.Fatal(err)
		}
		ret := strategy.Retain(msgs, &transcript.View{Summaries: []transcript.Summary{{Text: s.Text, ToTurn: len(turns)}}, Cut: true})
		kinds := map[string]int{}
		for _, f := range facts.Extract(msgs) {
			kinds[f.Kind]++
		}
		lostKinds := map[string]int{}
		for _, f := range ret.Lost {
			lostKinds[f.Kind]++
		}
		t.Logf("seed %d: span %d tokens → %d tokens; retention %.1f%% (%d/%d) facts %v lost %v", seed, spanTokens, c.Text(s.Text), 100*ret.Score, ret.Kept, ret.Total, kinds, lostKinds)
		if ret.Total != len(facts.Extract(msgs)) {
			t.Errorf("seed %d: the report checked %d facts, facts.Extract finds %d", seed, ret.Total, len(facts.Extract(msgs)))
		}
		if ret.Score < 0.95 {
			t.Errorf("seed %d: retention %.1f%% < 95%%; lost e.g. %v", seed, 100*ret.Score, ret.Lost[:min(8, len(ret.Lost))])
		}
		for _, f := range ret.Lost {
			// Error lines may go, and a command's spellings with another
			// output filter ("… | head -4") when the command itself stays.
			cmd, _, piped := strings.Cut(f.Text, " | ")
			if f.Kind == facts.Error || f.Kind == facts.Command && piped && strings.Contains(s.Text, "`"+strings.TrimSpace(cmd)) {
				continue
			}
			t.Errorf("seed %d: lost a %s fact: %q", seed, f.Kind, f.Text)
		}
		if c.Text(s.Text) > 3000 {
			t.Errorf("seed %d: %d tokens > 3000", seed, c.Text(s.Text))
		}
	}
}
