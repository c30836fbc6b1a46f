package strategy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
)

// agentSession is a coding session shaped like Claude Code's: a first
// prompt, a pinned note, turns of reads, edits and test runs, and a last
// turn whose tool output alone is several times the budgets below.
func agentSession() *transcript.Transcript {
	b := newBuilder(transcript.FormatClaudeCode)
	b.prompt("Fix the reconcile bug in internal/ledger/reconcile.go; the nightly job double-counts refunds.")
	pin := b.prompt("Note: the staging database is ledger-staging.internal:5432, never touch prod.")
	b.t.Messages[pin].Pinned = true
	for turn := range 8 {
		b.prompt(fmt.Sprintf("Step %d: look at `settleBatch%d` next.", turn, turn))
		b.say(fmt.Sprintf("Reading internal/ledger/batch%d.go to find where `settleBatch%d` sums refunds.", turn, turn))
		b.tool("Read", map[string]string{"file_path": fmt.Sprintf("/src/app/internal/ledger/batch%d.go", turn)}, fileBody(fmt.Sprintf("settleBatch%d", turn), 120), false)
		b.tool("Edit", map[string]string{"file_path": fmt.Sprintf("/src/app/internal/ledger/batch%d.go", turn), "old_string": "sum += r", "new_string": "sum -= r"}, "ok", false)
		b.tool("Bash", map[string]string{"command": "go test ./internal/ledger/"}, "ok  \tgithub.com/x/ledger\t0.02s", false)
	}
	b.prompt("Now check `ReconcileLedger` end to end.")
	for i := range 6 {
		b.tool("Read", map[string]string{"file_path": fmt.Sprintf("/src/app/internal/ledger/end%d.go", i)}, fileBody(fmt.Sprintf("endToEnd%d", i), 150), false)
	}
	b.say("The end-to-end path is consistent now; next I will run the nightly job against staging.")
	return b.build()
}

// TestTokenBudgetReachesItsBudget: token-budget with the last turn kept
// used to return the whole last turn (several times the budget); now a
// budget is met, the last prompt stays, the pin stays, and what went is
// summarized.
func TestTokenBudgetReachesItsBudget(t *testing.T) {
	src := agentSession()
	c := counter(t)
	for _, keep := range []int{1, -1} {
		for _, budget := range []int{1200, 2600, 6000} {
			t.Run(fmt.Sprintf("keep-last %d, budget %d", keep, budget), func(t *testing.T) {
				v, rep := run1(t, src, Options{Strategies: []string{StrategyTokenBudget}, Budget: budget, KeepLast: keep, Summarizer: &summarize.Extractive{Counter: c}})
				if float64(rep.TokensAfter) > 1.05*float64(budget) {
					t.Errorf("%d tokens for a budget of %d (notes %q)", rep.TokensAfter, budget, rep.Notes)
				}
				text := viewText(v)
				for _, want := range []string{"Now check `ReconcileLedger` end to end.", "ledger-staging.internal:5432"} {
					if !strings.Contains(text, want) {
						t.Errorf("lost %q", want)
					}
				}
				if len(v.Summaries) != 1 {
					t.Errorf("%d summaries, want the one standing for what was cut", len(v.Summaries))
				}
			})
		}
	}
}

// TestBudgetKeepsThePinAndTheFrontier: at any budget the pinned message
// survives verbatim, and the summary says where the work stands.
func TestBudgetKeepsThePinAndTheFrontier(t *testing.T) {
	src := agentSession()
	c := counter(t)
	for _, strategies := range [][]string{{StrategyAuto}, {StrategyExtractive}, {StrategyTurnWindow}, {StrategyStripToolResults, StrategyDedupTools}} {
		v, rep := run1(t, src, Options{Strategies: strategies, Budget: 1500, Turns: 2, Summarizer: &summarize.Extractive{Counter: c}})
		if float64(rep.TokensAfter) > 1.05*1500 {
			t.Errorf("%v: %d tokens for 1500", strategies, rep.TokensAfter)
		}
		pinned := false
		for _, m := range v.Messages {
			pinned = pinned || m.Pinned && strings.Contains(m.Parts[0].Text, "ledger-staging.internal:5432")
		}
		if !pinned {
			t.Errorf("%v: the pinned message is gone", strategies)
		}
		if len(v.Summaries) == 0 {
			t.Fatalf("%v: no summary", strategies)
		}
		for _, want := range []string{"## Goal", "## Next action", "double-counts refunds"} {
			if !strings.Contains(v.Summaries[0].Text, want) {
				t.Errorf("%v: summary lacks %q:\n%s", strategies, want, v.Summaries[0].Text)
			}
		}
	}
}

// TestBudgetUsesItsRoom: a budget the pipeline's steps already meet is
// room for what they stripped, not a ceiling to stay far under.
func TestBudgetUsesItsRoom(t *testing.T) {
	src := agentSession()
	c := counter(t)
	_, bare := run1(t, src, Options{Summarizer: &summarize.Extractive{Counter: c}})
	budget := bare.TokensAfter * 2
	_, rep := run1(t, src, Options{Budget: budget, Summarizer: &summarize.Extractive{Counter: c}})
	if rep.TokensAfter > budget || rep.TokensAfter < budget*85/100 {
		t.Errorf("auto alone takes %d tokens; with a budget of %d it took %d", bare.TokensAfter, budget, rep.TokensAfter)
	}
}
