package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() {
	register(section{
		Name:    "summary",
		Summary: "extractive summary of a ~100k-token span of a generated session: size, time, fact retention",
		Run:     benchSummary,
	})
}

// summarySpanTokens is the span the extractive summarizer is measured on:
// what auto hands it when a session has outgrown half a 200k window.
const summarySpanTokens = 100_000

// benchSummary summarizes the leading turns of generated Claude Code
// sessions, about 100k tokens each, with the offline extractive
// summarizer and checks the summary against the pipeline's own retention
// report (strategy.Retain over facts.Extract).
func benchSummary(ctx context.Context, cfg *config) ([]row, error) {
	seeds, runs := []uint64{1, 2, 3}, 5
	if cfg.Quick {
		seeds, runs = []uint64{1, 2}, 3
	}
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		return nil, err
	}
	var (
		worstTokens, spanTokens int
		times                   []time.Duration
		kept, total             int
		lostKinds               = map[string]int{}
	)
	for _, seed := range seeds {
		span, n, turns, err := summarySpan(seed, counter)
		if err != nil {
			return nil, err
		}
		spanTokens = max(spanTokens, n)
		ext := &summarize.Extractive{Counter: counter}
		req := summarize.Request{Messages: span, ToTurn: turns}
		var s summarize.Summary
		for range runs {
			t0 := time.Now()
			s, err = ext.Summarize(ctx, req)
			if err != nil {
				return nil, fmt.Errorf("extractive summary of seed %d: %w", seed, err)
			}
			times = append(times, time.Since(t0))
		}
		worstTokens = max(worstTokens, counter.Text(s.Text))
		ret := strategy.Retain(span, &transcript.View{Summaries: []transcript.Summary{{Text: s.Text, ToTurn: turns}}, Cut: true})
		kept += ret.Kept
		total += ret.Total
		for _, f := range ret.Lost {
			lostKinds[f.Kind]++
		}
		cfg.logf("summary: seed %d: %d turns, %s tokens → %s tokens; retention %d/%d (lost %v)", seed, turns,
			tokens.Thousands(n), tokens.Thousands(counter.Text(s.Text)), ret.Kept, ret.Total, kindsOf(ret.Lost))
	}
	if total == 0 {
		return nil, errors.New("the generated spans hold no key facts to retain")
	}
	score := float64(kept) / float64(total)
	p50, worst := median(times), slowest(times)
	return []row{
		{Name: fmt.Sprintf("extractive summary size, ~%s-token span (largest of %d)", tokens.Thousands(summarySpanTokens), len(seeds)),
			Value: fmt.Sprintf("%s tokens (its own budget is 3,000)", tokens.Thousands(worstTokens))},
		{Name: fmt.Sprintf("extractive summary time (slowest of %d)", len(times)), Value: ms(worst)},
		{Name: "key facts kept (strategy.Retain over facts.Extract, all seeds)",
			Value: fmt.Sprintf("%.1f %% (%d of %d; lost: %s; checked against the summarizer's own fact list)", 100*score, kept, total, lostSummary(lostKinds))},
		{Name: "extractive summary time (median)", Value: ms(p50)},
		{Name: "largest span summarized", Value: fmt.Sprintf("%s tokens", tokens.Thousands(spanTokens))},
	}, nil
}

// summarySpan generates a Claude Code session and returns its leading whole
// turns adding up to at least summarySpanTokens, their token count and the
// number of turns.
func summarySpan(seed uint64, c *tokens.Counter) ([]transcript.Message, int, int, error) {
	codec, ok := format.Lookup(transcript.FormatClaudeCode)
	if !ok {
		return nil, 0, 0, errors.New("the Claude Code codec is not registered in compaction/format/all")
	}
	// Generated sessions run about 8 bytes a token (JSON framing, ids);
	// start there and grow until the span fits.
	for size := 10 * summarySpanTokens; size <= 80*summarySpanTokens; size *= 2 {
		raw := sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, TargetBytes: size})
		t, err := codec.Parse(raw)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("parse generated session %d: %w", seed, err)
		}
		n := 0
		for ti, turn := range t.Turns {
			for i := turn.Start; i < turn.End; i++ {
				n += c.Message(&t.Messages[i])
			}
			if n >= summarySpanTokens {
				return t.Messages[:turn.End], n, ti + 1, nil
			}
		}
	}
	return nil, 0, 0, fmt.Errorf("generated session %d never reached %d tokens", seed, summarySpanTokens)
}

func kindsOf(list []facts.Fact) map[string]int {
	out := map[string]int{}
	for _, f := range list {
		out[f.Kind]++
	}
	return out
}

func lostSummary(kinds map[string]int) string {
	if len(kinds) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range facts.Kinds() {
		if kinds[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
		}
	}
	return strings.Join(parts, ", ")
}
