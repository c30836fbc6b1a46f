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
	for _, keep := range []int{1, 0} {
		for _, budget := range []int{1200, 2600, 6000} {
			t.Run(fmt.Sprintf("keep-last %d, budget %d", keep, budget), func(t *testing.T) {
				v, rep := run1(t, src, Options{Strategies: []string{StrategyTokenBudget}, Budget: budget, KeepLast: new(keep), Summarizer: &summarize.Extractive{Counter: c}})
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

// cursorSession is shaped like Cursor's agent transcripts, which record
// the assistant's tool calls and never their results.
func cursorSession() *transcript.Transcript {
	b := newBuilder(transcript.FormatCursorAgent)
	for turn := range 6 {
		b.prompt(fmt.Sprintf("Step %d: refactor pkg/step%d.go", turn, turn))
		for k := range 3 {
			b.ids++
			b.add(transcript.RoleAssistant, transcript.OriginAgent,
				transcript.Part{Kind: transcript.PartReasoning, Text: strings.Repeat("thinking about the refactor ", 40)},
				text1(fmt.Sprintf("Reading pkg/step%d.go part %d", turn, k)),
				transcript.Part{Kind: transcript.PartToolCall, ToolCallID: fmt.Sprintf("c%d", b.ids), ToolName: "read_file", Args: fmt.Sprintf(`{"target_file":"pkg/step%d.go"}`, turn)})
		}
		b.say(fmt.Sprintf("Step %d is done.", turn))
	}
	return b.build()
}

// TestToolCallsWithoutResultsSurvive: on Cursor transcripts the sanitize
// pass used to drop every tool call (none has a result); a call its source
// never answered is not compaction's to repair.
func TestToolCallsWithoutResultsSurvive(t *testing.T) {
	src := cursorSession()
	calls := len(callIDs(transcript.NewView(src), transcript.PartToolCall))
	for _, opts := range []Options{{}, {Strategies: []string{StrategyStripReasoning}}, {Strategies: []string{StrategyTurnWindow}, Turns: 2}} {
		v, rep := run1(t, src, opts)
		got := len(callIDs(v, transcript.PartToolCall))
		want := calls
		if opts.Strategies != nil && opts.Strategies[0] == StrategyTurnWindow {
			want = 6 // the two turns kept, three calls each
		}
		if got != want {
			t.Errorf("%v: %d tool calls kept, want %d (steps %+v)", opts.Strategies, got, want, rep.Steps)
		}
	}
}

// TestPipelineOrderIsFree: turn-window before extractive used to leave
// nothing to summarize (the window had cut it); the summary reads the
// source, so both orders keep what the window cut, summarized.
func TestPipelineOrderIsFree(t *testing.T) {
	src := agentSession()
	c := counter(t)
	for _, order := range [][]string{{StrategyTurnWindow, StrategyExtractive}, {StrategyExtractive, StrategyTurnWindow}} {
		v, rep := run1(t, src, Options{Strategies: order, Turns: 2, BufferTurns: new(2), Summarizer: &summarize.Extractive{Counter: c}})
		if len(v.Summaries) != 1 {
			t.Fatalf("%v: %d summaries (notes %q)", order, len(v.Summaries), rep.Notes)
		}
		for _, want := range []string{"double-counts refunds", "settleBatch0"} {
			if !strings.Contains(v.Summaries[0].Text, want) {
				t.Errorf("%v: the summary lacks %q from the turns the window cut:\n%s", order, want, v.Summaries[0].Text)
			}
		}
	}
}

// TestBufferTurnsNone: BufferTurns 0 (buffer_turns = 0 in the
// configuration) keeps only the keep-last turns verbatim; unset, the
// default of four.
func TestBufferTurnsNone(t *testing.T) {
	src := agentSession()
	c := counter(t)
	turns := transcript.BuildTurns(src.Messages)
	for _, tc := range []struct {
		name     string
		buffer   *int
		verbatim int
	}{{"0", new(0), 1}, {"unset", nil, 4}, {"2", new(2), 2}} {
		v, _ := run1(t, src, Options{Strategies: []string{StrategyExtractive}, BufferTurns: tc.buffer, KeepLast: new(1), Summarizer: &summarize.Extractive{Counter: c}})
		if len(v.Summaries) != 1 {
			t.Fatalf("buffer %s: no summary", tc.name)
		}
		after := v.Messages[v.Summaries[0].Before:]
		if got := len(transcript.BuildTurns(after)); got != tc.verbatim {
			t.Errorf("buffer %s: %d turns verbatim after the summary, want %d (of %d)", tc.name, got, tc.verbatim, len(turns))
		}
	}
}

// TestTradeOff: the dry run's trade-off compacts at a few budgets, each
// within its budget, keeping more as it grows, one knee marked; auto with
// no budget fits to that knee once it is over its summarize threshold.
func TestTradeOff(t *testing.T) {
	src := agentSession()
	c := counter(t)
	opts := Options{Summarizer: &summarize.Extractive{Counter: c}}
	points, err := TradeOff(t.Context(), src, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) < 3 {
		t.Fatalf("%d points: %+v", len(points), points)
	}
	knees := 0
	for i, p := range points {
		if float64(p.Tokens) > 1.05*float64(p.Budget) {
			t.Errorf("point %d: %d tokens for %d", i, p.Tokens, p.Budget)
		}
		if i > 0 && p.Kept+0.02 < points[i-1].Kept {
			t.Errorf("point %d keeps %.2f, less than the smaller budget's %.2f", i, p.Kept, points[i-1].Kept)
		}
		if p.Knee {
			knees++
		}
	}
	if knees != 1 {
		t.Errorf("%d knees in %+v", knees, points)
	}
	_, rep := run1(t, src, Options{Window: 4000, Summarizer: &summarize.Extractive{Counter: c}})
	var fitted bool
	for _, n := range rep.Notes {
		fitted = fitted || strings.Contains(n, "the knee of the trade-off")
	}
	if !fitted {
		t.Errorf("auto over its threshold did not fit to the knee: notes %q", rep.Notes)
	}
}

func TestKnee(t *testing.T) {
	for _, tc := range []struct {
		kept []float64
		want int
	}{
		{[]float64{0.5, 0.7, 0.72, 0.9}, 1},
		{[]float64{0.5, 0.52, 0.9}, 0},
		{[]float64{0.3, 0.5, 0.7, 0.9}, 3},
	} {
		var ps []TradePoint
		for _, k := range tc.kept {
			ps = append(ps, TradePoint{Kept: k})
		}
		if got := knee(ps); got != tc.want {
			t.Errorf("knee(%v) = %d, want %d", tc.kept, got, tc.want)
		}
	}
}

// TestPinsSurviveEveryStrategy: a message named in Options.Pins (PinKey)
// stays, verbatim, whatever the strategies and the budget.
func TestPinsSurviveEveryStrategy(t *testing.T) {
	src := agentSession()
	c := counter(t)
	var target *transcript.Message
	for i := range src.Messages {
		if strings.Contains(messageText(&src.Messages[i]), "Reading internal/ledger/batch2.go") {
			target = &src.Messages[i]
		}
	}
	if target == nil {
		t.Fatal("no message to pin")
	}
	pins := []string{PinKey(target)}
	for _, name := range Names() {
		if name == StrategySummarize || name == StrategyNotes || name == StrategyClassifyTangents {
			continue
		}
		for _, budget := range []int{0, 1500} {
			if budget == 0 && name == StrategyTokenBudget {
				continue // it needs one
			}
			v, _ := run1(t, src, Options{Strategies: []string{name}, Pins: pins, Budget: budget, Turns: 1, Events: 3, BufferTurns: new(0), Summarizer: &summarize.Extractive{Counter: c}})
			found := false
			for i := range v.Messages {
				found = found || messageText(&v.Messages[i]) == messageText(target)
			}
			if !found {
				t.Errorf("%s, budget %d: the pinned message is gone", name, budget)
			}
		}
	}
}

// TestExtractiveOnAModestSession: a session of a few short turns, in the
// formats whose strategies were reported to do nothing (Qwen Code,
// Copilot CLI, Cursor), is summarized and gets smaller.
func TestExtractiveOnAModestSession(t *testing.T) {
	for _, f := range []transcript.Format{transcript.FormatQwenCode, transcript.FormatCopilotCLI, transcript.FormatCursorAgent} {
		b := newBuilder(f)
		b.prompt("Add input validation to api/handler.go and keep the public API as it is.")
		for turn := range 7 {
			b.prompt(fmt.Sprintf("Step %d: handle the %s case in `validate%d`.", turn, []string{"empty", "oversized", "unicode", "negative", "null", "duplicate", "stale"}[turn], turn))
			b.tool("read_file", map[string]string{"path": fmt.Sprintf("api/validate%d.go", turn)}, fileBody(fmt.Sprintf("validate%d", turn), 12), false)
			b.say(fmt.Sprintf("validate%d now rejects that case; tests pass.", turn))
		}
		src := b.build()
		c := counter(t)
		v, rep := run1(t, src, Options{Strategies: []string{StrategyExtractive}, Summarizer: &summarize.Extractive{Counter: c}})
		if len(v.Summaries) != 1 || rep.TokensAfter >= rep.TokensBefore {
			t.Errorf("%s: %d summaries, %d → %d tokens (notes %q)", f, len(v.Summaries), rep.TokensBefore, rep.TokensAfter, rep.Notes)
		}
	}
}
