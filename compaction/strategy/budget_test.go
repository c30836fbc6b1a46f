package strategy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// budgetSources are real-shaped transcripts of every format the codecs
// read: each codec's own fixtures, and the shared corpus's real sessions
// when it is there.
func budgetSources(t *testing.T) map[string]*transcript.Transcript {
	t.Helper()
	out := map[string]*transcript.Transcript{}
	add := func(path, name string) {
		data, err := os.ReadFile(path)
		if err != nil {
			return
		}
		codec, err := format.Detect(path, data)
		if err != nil {
			return
		}
		tr, err := codec.Parse(data)
		if err != nil || len(tr.Messages) < 3 {
			return
		}
		out[name] = tr
	}
	fixtures, _ := filepath.Glob(filepath.Join("..", "format", "*", "testdata", "*"))
	for _, p := range fixtures {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && !strings.Contains(p, "golden") {
			add(p, filepath.ToSlash(strings.TrimPrefix(p, filepath.Join("..", "format")+string(filepath.Separator))))
		}
	}
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			add(p, "corpus/"+filepath.ToSlash(strings.TrimPrefix(p, corpus+string(filepath.Separator))))
		}
		return nil
	})
	return out
}

// systemTokens counts the agent's system prompt a format pins in the
// transcript (Codex's base instructions): it is not counted against a
// budget.
func systemTokens(c *tokens.Counter, msgs []transcript.Message) int {
	n := 0
	for i := range msgs {
		if msgs[i].Pinned && msgs[i].Role == transcript.RoleSystem {
			n += c.Message(&msgs[i])
		}
	}
	return n
}

// TestBudgetIsMetOnEveryFormat: for every strategy mix, a budget below the
// transcript's size is met within 5 % — or the report says why — the view
// keeps the APIs' invariants, and the fork is written in the format and
// reads back. Budgets are shares of each transcript, so small fixtures are
// cut as hard as long sessions.
func TestBudgetIsMetOnEveryFormat(t *testing.T) {
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	sources := budgetSources(t)
	formats := map[transcript.Format]bool{}
	pipelines := [][]string{
		{strategy.StrategyAuto},
		{strategy.StrategyExtractive},
		{strategy.StrategyTokenBudget},
		{strategy.StrategyTurnWindow, strategy.StrategyExtractive},
		{strategy.StrategyStripToolResults},
	}
	for name, tr := range sources {
		formats[tr.Format] = true
		total, err := strategy.CountTranscript(t.Context(), tr, c)
		if err != nil {
			t.Fatal(err)
		}
		fixed := systemTokens(c, tr.Messages)
		sourceOK := strategy.CheckTranscript(tr) == nil
		size := total.Total() - fixed
		for _, share := range []float64{0.6, 0.3} {
			budget := int(share * float64(size))
			if budget < 200 {
				continue
			}
			for _, pipe := range pipelines {
				t.Run(fmt.Sprintf("%s/%s/%d", name, strings.Join(pipe, "+"), budget), func(t *testing.T) {
					v, rep, err := strategy.Run(t.Context(), tr, c, strategy.Options{
						Strategies: pipe, Budget: budget, Turns: 1, KeepLast: new(1),
						Summarizer: &summarize.Extractive{Counter: c},
					})
					if err != nil {
						t.Fatal(err)
					}
					if err := strategy.Check(v); err != nil {
						t.Fatalf("view breaks the API invariants: %v", err)
					}
					got := rep.TokensAfter - fixed
					if float64(got) > 1.05*float64(budget) && !explained(rep) {
						t.Errorf("%d tokens for a budget of %d, and no note says why (notes %q)", got, budget, rep.Notes)
					}
					codec, _ := format.Lookup(tr.Format)
					out, err := codec.Fork(v, format.ForkOptions{SessionID: "00000000-0000-4000-8000-000000000002"})
					if err != nil {
						t.Fatalf("fork: %v", err)
					}
					re, err := codec.Parse(out)
					if err != nil {
						t.Fatalf("fork does not re-parse: %v", err)
					}
					if sourceOK {
						if err := strategy.CheckFork(re, tr); err != nil {
							t.Errorf("the fork breaks invariants its source kept: %v", err)
						}
					}
				})
			}
		}
	}
	t.Logf("%d transcripts in %d formats", len(sources), len(formats))
	if len(formats) < 10 {
		t.Errorf("only %d formats had fixtures to cut", len(formats))
	}
}

// explained reports whether a report says why a budget was not met.
func explained(rep *strategy.Report) bool {
	for _, n := range rep.Notes {
		if strings.Contains(n, "over the budget") {
			return true
		}
	}
	return false
}
