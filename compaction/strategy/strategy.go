package strategy

import (
	"context"
	"errors"
	"fmt"

	"github.com/compactd/compactd/compaction/parallel"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// The pipeline's defaults: what an unset field of Options takes, and what
// the configuration's defaults are (config.Default reads them here).
const (
	DefaultKeepLast           = 1
	DefaultBufferTurns        = 4
	DefaultSummarizeThreshold = 0.5
)

// Options configure one compaction run. The zero value is usable: it runs
// "auto" keeping the last turn. A number that can be zero on purpose
// (KeepLast, BufferTurns) is a pointer: nil takes the pipeline's default,
// a set value means itself, 0 included.
//
// Each field is one setting or input of the pipeline (the configuration builds them in
// config.CompactOptions): hence more than a dozen.
type Options struct {
	// Strategies are applied left to right; empty means ["auto"].
	Strategies []string
	// KeepLast turns at the end are never touched: nil keeps
	// DefaultKeepLast, 0 none.
	KeepLast *int
	// Window is the model's context window in tokens (for ratios and
	// the auto summarize threshold).
	Window int
	// Budget is token-budget's target; 0 derives it from Window
	// (SummarizeThreshold of it).
	Budget int
	// Pins are the messages (PinKey) the user asked to keep verbatim in
	// every compaction: every strategy keeps them, and a budget counts them.
	Pins []string `json:",omitempty"`
	// Hints override the shipped per-tool defaults, field by field. Keys
	// may be glob patterns ("cargo_*").
	Hints map[string]ToolHint
	// Summarizer, when set, backs the summarizing steps.
	Summarizer summarize.Summarizer

	// SummarizeThreshold is the fraction of Window above which auto calls
	// the Summarizer after its mechanical steps; 0 means 0.5.
	SummarizeThreshold float64
	// BufferTurns are the recent turns summarize leaves verbatim (at least
	// KeepLast); they shrink towards KeepLast when they alone exceed the
	// threshold. nil means DefaultBufferTurns; 0 none beyond KeepLast.
	BufferTurns *int
	// Events is how many trailing messages sliding-window keeps; 0 means 40.
	Events int
	// Turns is how many trailing turns turn-window keeps; 0 means 10.
	Turns int
	// Counts are the source's per-part token counts when the caller has
	// them cached (the daemon does); nil counts them here.
	Counts *Counts
	// SummaryBudget caps a summary's tokens (passed to the Summarizer); 0
	// lets the summarizer choose.
	SummaryBudget int
	// TradeOff fills Report.TradeOff: the pipeline at three or four
	// budgets, for a dry run to show what each keeps.
	TradeOff bool `json:",omitempty"`
	// NoRetention leaves Report.Retention empty: for estimates that need
	// the token figures alone (checking every key fact of a long
	// transcript costs more than compacting it).
	NoRetention bool `json:",omitempty"`

	// Tangents backs classify-tangents; nil skips that step with a note.
	Tangents TangentClassifier `json:"-"`
	// ConfirmedTangents are the source turn numbers (Tangent.Turn) the
	// user approved removing. classify-tangents removes a turn only when
	// it is confirmed and the classifier names it in this run too;
	// otherwise it only lists it in Report.Tangents.
	ConfirmedTangents []int `json:",omitempty"`
	// ConfirmAllTangents approves every tangent the classifier names in
	// this run (the CLI's --remove-tangents).
	ConfirmAllTangents bool `json:",omitempty"`

	// Recall names what each placeholder and summary replaces (a
	// recall.Book's Handle): the stand-in carries the handle, and the
	// caller keeps the content under it for the agent to recall. nil
	// writes no handles.
	Recall func(content string) string `json:"-"`
}

// KeepLastTurns is KeepLast as the run takes it: DefaultKeepLast when
// unset.
func (o Options) KeepLastTurns() int {
	if o.KeepLast == nil {
		return DefaultKeepLast
	}
	return *o.KeepLast
}

// BufferTurnCount is BufferTurns as the run takes it: DefaultBufferTurns
// when unset.
func (o Options) BufferTurnCount() int {
	if o.BufferTurns == nil {
		return DefaultBufferTurns
	}
	return *o.BufferTurns
}

// check refuses the numbers no run can take.
func (o Options) check() error {
	switch {
	case o.KeepLastTurns() < 0:
		return fmt.Errorf("compact: keep-last must be 0 or more turns, not %d", o.KeepLastTurns())
	case o.BufferTurnCount() < 0:
		return fmt.Errorf("compact: buffer turns must be 0 or more, not %d", o.BufferTurnCount())
	}
	return nil
}

// ToolHint says how compaction treats one tool's calls.
type ToolHint struct {
	Request  string `toml:"request" json:"request,omitempty"`   // keep | strip | remove
	Response string `toml:"response" json:"response,omitempty"` // keep | strip | remove
	Dedup    *bool  `toml:"dedup" json:"dedup,omitempty"`
	Subsumes *bool  `toml:"subsumes" json:"subsumes,omitempty"`
}

// Step reports one strategy's effect.
type Step struct {
	Strategy      string `json:"strategy"`
	EventsRemoved int    `json:"eventsRemoved"`
	TokensSaved   int    `json:"tokensSaved"`
	// EventsStripped counts parts rewritten to a placeholder (kept, smaller).
	EventsStripped int `json:"eventsStripped,omitempty"`
}

// Retention says how many key facts of the original (facts.Extract)
// survive.
type Retention struct {
	Score float64      `json:"score"`
	Kept  int          `json:"kept"`
	Total int          `json:"total"`
	Lost  []facts.Fact `json:"lost"`
	// ContentsLost are the files whose contents the conversation held (a
	// read's result) and the view no longer does anywhere: the agent would
	// have to read them again. Their paths may survive in placeholders,
	// which is why the score alone does not show it.
	ContentsLost []string `json:"contentsLost,omitempty"`
}

// Report is what a run did.
type Report struct {
	TokensBefore int       `json:"tokensBefore"`
	TokensAfter  int       `json:"tokensAfter"`
	Steps        []Step    `json:"steps"`
	Retention    Retention `json:"retention"`
	// Notes explain skipped steps (a failed summarizer, an empty notes file).
	Notes []string `json:"notes,omitempty"`
	// MessagesBefore and MessagesAfter count model-visible messages.
	MessagesBefore int `json:"messagesBefore"`
	MessagesAfter  int `json:"messagesAfter"`
	// Tangents are the turns classify-tangents found, removed or (when not
	// confirmed) only listed, in turn order.
	Tangents []Tangent `json:"tangents,omitempty"`
	// TradeOff is the pipeline at a few budgets (Options.TradeOff), the
	// knee marked.
	TradeOff []TradePoint `json:"tradeOff,omitempty"`
}

// Run compacts t with opts.Strategies applied left to right, then sanitizes
// the result so it satisfies Check. It never modifies t. A failing
// summarizer never fails the run: the step is skipped with a Report note.
func Run(ctx context.Context, t *transcript.Transcript, c *tokens.Counter, opts Options) (*transcript.View, *Report, error) {
	if t == nil {
		return nil, nil, errors.New("compact: no transcript")
	}
	if c == nil {
		return nil, nil, errors.New("compact: no token counter")
	}
	names, err := expandStrategies(opts.Strategies)
	if err != nil {
		return nil, nil, err
	}
	if err := ValidateHints(opts.Hints); err != nil {
		return nil, nil, err
	}
	if err := opts.check(); err != nil {
		return nil, nil, err
	}
	counts := opts.Counts
	if counts == nil || counts.src != t {
		counts, err = CountTranscript(ctx, t, c)
		if err != nil {
			return nil, nil, err
		}
	}
	// The source's key facts do not depend on the steps: extract them on
	// another core while the steps run.
	var want []facts.Fact
	var extracting parallel.WaitGroup // a panic there reaches this goroutine
	if !opts.NoRetention {
		extracting.Go(func() { want = facts.Extract(t.Messages) })
	}
	r := newRun(ctx, t, c, counts, opts)
	rep := &Report{TokensBefore: r.total(), MessagesBefore: len(t.Messages)}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("compact: %w", err)
		}
		steps, err := r.apply(name)
		if err != nil {
			return nil, nil, err
		}
		rep.Steps = append(rep.Steps, steps...)
	}
	if r.opts.Budget > 0 {
		st, err := r.step(StrategyFit, r.fitBudget)
		if err != nil {
			return nil, nil, err
		}
		rep.Steps = append(rep.Steps, st)
	}
	if st := r.sanitize(); st.EventsRemoved > 0 || st.TokensSaved != 0 {
		rep.Steps = append(rep.Steps, st)
	}
	if opts.TradeOff {
		points, err := TradeOff(ctx, t, c, opts)
		if err != nil {
			return nil, nil, err
		}
		rep.TradeOff = points
	}
	v := r.view()
	rep.TokensAfter = r.total()
	rep.MessagesAfter = len(v.Messages)
	rep.Notes = r.notes
	rep.Tangents = r.tangents
	if !opts.NoRetention {
		extracting.Wait()
		rep.Retention = retainFacts(want, t.Messages, v)
	}
	return v, rep, nil
}
