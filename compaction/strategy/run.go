package strategy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// removedPart marks a part removed in tok until the next flush.
const removedPart = -1

// A run is one pipeline execution's working state. Strategies mark parts
// and messages removed while they scan (indexes stay stable), and flush
// drops the marks between steps.
//
// It is one run's working state, shared by every strategy of the pipeline: hence more than a dozen
// fields.
type run struct {
	ctx     context.Context
	src     *transcript.Transcript
	counter *tokens.Counter
	counts  *Counts
	opts    Options
	hints   *hintSet

	msgs []transcript.Message
	// tok[i][j] is the token count of msgs[i].Parts[j], or removedPart.
	tok [][]int
	// srcIdx[i] is the source message msgs[i] copies.
	srcIdx    []int
	gone      []bool
	protected []bool

	// tailLen messages at the end are the keep-last turns: never touched
	// by a strategy (sanitize may still repair them).
	tailLen     int
	tailSrc     int
	keepLast    int
	alternation bool

	summaries []anchoredSummary
	cut       bool
	// kneeFit says the fit's budget is the trade-off's knee, not one the
	// caller asked for: room it need not fill.
	kneeFit  bool
	notes    []string
	tangents []Tangent
}

// anchoredSummary places a summary before the source message anchor, so it
// stays in the right spot while later steps remove messages.
type anchoredSummary struct {
	transcript.Summary
	anchor int
	tokens int
}

func newRun(ctx context.Context, t *transcript.Transcript, c *tokens.Counter, counts *Counts, opts Options) *run {
	r := &run{
		ctx: ctx, src: t, counter: c, counts: counts, opts: opts,
		hints:       newHintSet(opts.Hints),
		msgs:        make([]transcript.Message, len(t.Messages)),
		tok:         make([][]int, len(t.Messages)),
		srcIdx:      make([]int, len(t.Messages)),
		gone:        make([]bool, len(t.Messages)),
		alternation: format.RulesOf(t.Format).Alternation,
	}
	pins := pinned(t.Messages, opts.Pins)
	for i, m := range t.Messages {
		m.Parts = append([]transcript.Part(nil), m.Parts...)
		m.Pinned = m.Pinned || pins[i]
		r.msgs[i] = m
		r.tok[i] = append([]int(nil), counts.parts[i]...)
		r.srcIdx[i] = i
	}
	r.protected = protectedMessages(r.msgs)
	r.keepLast = max(opts.KeepLastTurns(), 0)
	turns := t.Turns
	if len(turns) == 0 {
		turns = transcript.BuildTurns(t.Messages)
	}
	switch {
	case r.keepLast == 0:
	case r.keepLast >= len(turns):
		r.tailLen = len(r.msgs)
	default:
		r.tailLen = len(r.msgs) - turns[len(turns)-r.keepLast].Start
	}
	r.tailSrc = len(r.msgs) - r.tailLen
	return r
}

// boundary is the index of the first keep-last message.
func (r *run) boundary() int { return len(r.msgs) - r.tailLen }

// editable reports whether a strategy may change message i at all.
func (r *run) editable(i int) bool { return i < r.boundary() && !r.gone[i] }

func (r *run) total() int {
	n := 0
	for i := range r.msgs {
		if r.gone[i] {
			continue
		}
		n += tokens.MessageOverhead
		for _, x := range r.tok[i] {
			if x > 0 {
				n += x
			}
		}
	}
	for _, s := range r.summaries {
		n += s.tokens + tokens.MessageOverhead
	}
	return n
}

// removePart marks part j of message i removed; it returns 1 if it was not already.
func (r *run) removePart(i, j int) int {
	if r.tok[i][j] == removedPart {
		return 0
	}
	r.tok[i][j] = removedPart
	return 1
}

// setText rewrites a part's model-visible text and recounts it.
func (r *run) setText(i, j int, text string) {
	p := &r.msgs[i].Parts[j]
	p.Text = text
	p.Changed = true
	r.tok[i][j] = r.counter.Part(p)
}

// setArgs rewrites a tool call's arguments and recounts it.
func (r *run) setArgs(i, j int, args string) {
	p := &r.msgs[i].Parts[j]
	p.Args = args
	p.Changed = true
	r.tok[i][j] = r.counter.Part(p)
}

// flush drops removed parts and messages left empty by them, and returns
// how many parts went away.
func (r *run) flush() int {
	removed := 0
	keep := 0
	// next[i] is the role of the first message after i that keeps a part.
	next := make([]transcript.Role, len(r.msgs)+1)
	for i := len(r.msgs) - 1; i >= 0; i-- {
		next[i] = next[i+1]
		if !r.gone[i] && r.liveParts(i) > 0 {
			next[i] = r.msgs[i].Role
		}
	}
	for i := range r.msgs {
		m := &r.msgs[i]
		had := len(m.Parts)
		if r.gone[i] {
			removed += r.liveParts(i)
			continue
		}
		parts, toks := m.Parts[:0], r.tok[i][:0]
		var firstRef *transcript.Ref
		for j := range m.Parts {
			if r.tok[i][j] == removedPart {
				removed++
				if firstRef == nil {
					ref := m.Parts[j].Ref
					firstRef = &ref
				}
				continue
			}
			parts = append(parts, m.Parts[j])
			toks = append(toks, r.tok[i][j])
		}
		m.Parts, r.tok[i] = parts, toks
		if had > 0 && len(parts) == 0 {
			// An emptied message goes, unless its neighbours would then
			// have the same role (or a model turn would come first) where
			// the API wants roles to alternate: then a one-line stand-in
			// keeps the alternation. (Gemini CLI records each tool
			// response twice; the second copy goes without a trace.)
			var prev transcript.Role
			if keep > 0 {
				prev = r.msgs[keep-1].Role
			}
			after := next[i+1]
			if !r.alternation || after == "" || prev != "" && prev != after || prev == "" && after != transcript.RoleAssistant {
				continue
			}
			p := transcript.Part{Kind: transcript.PartText, Text: "[compacted]", Ref: *firstRef, Changed: true}
			m.Parts = append(m.Parts, p)
			r.tok[i] = append(r.tok[i], r.counter.Part(&p))
			removed--
		}
		r.msgs[keep], r.tok[keep], r.srcIdx[keep], r.protected[keep] = r.msgs[i], r.tok[i], r.srcIdx[i], r.protected[i]
		keep++
	}
	// Strategies never touch the tail, but sanitize may repair it, so
	// recount it from the source indexes.
	newTail := 0
	for k := 0; k < keep; k++ {
		if r.srcIdx[k] >= r.tailSrc {
			newTail++
		}
	}
	r.msgs, r.tok, r.srcIdx, r.protected = r.msgs[:keep], r.tok[:keep], r.srcIdx[:keep], r.protected[:keep]
	r.gone = make([]bool, keep)
	r.tailLen = newTail
	return removed
}

func (r *run) liveParts(i int) int {
	n := 0
	for _, x := range r.tok[i] {
		if x != removedPart {
			n++
		}
	}
	return n
}

// view renders the working state as a View.
func (r *run) view() *transcript.View {
	v := &transcript.View{Source: r.src, Cut: r.cut}
	v.Messages = make([]transcript.Message, len(r.msgs))
	copy(v.Messages, r.msgs)
	for _, s := range r.summaries {
		sum := s.Summary
		sum.Before = len(r.msgs)
		for k := range r.srcIdx {
			if r.srcIdx[k] >= s.anchor {
				sum.Before = k
				break
			}
		}
		v.Summaries = append(v.Summaries, sum)
	}
	return v
}

func (r *run) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// step runs one strategy function and measures it.
func (r *run) step(name string, fn func() (stripped int, err error)) (Step, error) {
	before := r.total()
	stripped, err := fn()
	if err != nil {
		return Step{}, fmt.Errorf("%s: %w", name, err)
	}
	removed := r.flush()
	return Step{Strategy: name, EventsRemoved: removed, EventsStripped: stripped, TokensSaved: before - r.total()}, nil
}

func (r *run) apply(name string) ([]Step, error) {
	if name == StrategyAuto {
		var steps []Step
		for _, n := range autoPipeline {
			st, err := r.apply(n)
			if err != nil {
				return nil, err
			}
			steps = append(steps, st...)
		}
		threshold := r.threshold()
		switch {
		case threshold == 0 || r.total() <= threshold:
		case r.opts.Summarizer == nil:
			r.note("after the mechanical steps the conversation still takes %d tokens, above the summarize threshold of %d; no summarizer is configured", r.total(), threshold)
		case r.opts.Budget == 0 && r.opts.Summarizer.Name() == StrategyExtractive && r.counts.Total() <= TradeOffLimit:
			// No budget asked: fit to the knee of the trade-off, the point
			// past which more tokens keep little more. (A model's or the
			// notes file's summary keeps its own span-by-span way.)
			o := r.opts
			o.Strategies, o.Counts = []string{StrategyAuto}, r.counts
			points, err := TradeOff(r.ctx, r.src, r.counter, o)
			if err != nil {
				return nil, err
			}
			if i := slices.IndexFunc(points, func(p TradePoint) bool { return p.Knee }); i >= 0 {
				// Without a budget asked, the keep-last turns stay whole.
				tail := r.suffixTokens(r.boundary())
				r.opts.Budget = max(points[i].Budget, tail+2*minSummaryTokens(points[i].Budget))
				r.kneeFit = true
				r.note("auto: %d tokens after the mechanical steps, above the summarize threshold of %d: fitted to %d tokens, the knee of the trade-off (%.0f %% of the conversation's names kept)", r.total(), threshold, points[i].Budget, 100*points[i].Kept)
				return steps, nil
			}
			fallthrough
		default:
			st, err := r.apply(StrategySummarize)
			if err != nil {
				return nil, err
			}
			steps = append(steps, st...)
		}
		return steps, nil
	}
	fn := map[string]func() (int, error){
		StrategyStripReasoning:   r.stripReasoning,
		StrategyStripToolResults: r.stripToolResults,
		StrategyDedupTools:       r.dedupTools,
		StrategyStripAttachments: r.stripAttachments,
		StrategyPruneTools:       r.pruneTools,
		StrategySlidingWindow:    r.slidingWindow,
		StrategyTurnWindow:       r.turnWindow,
		StrategyTokenBudget:      r.tokenBudget,
		StrategySummarize:        r.summarize,
		StrategyExtractive:       r.summarize,
		StrategyNotes:            r.summarize,
		StrategyClassifyTangents: r.classifyTangents,
	}[name]
	if fn == nil {
		return nil, fmt.Errorf("unknown strategy %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	st, err := r.step(name, fn)
	if err != nil {
		return nil, err
	}
	return []Step{st}, nil
}

// threshold is the token count above which auto summarizes, 0 if unknown.
func (r *run) threshold() int {
	if r.opts.Window <= 0 {
		return 0
	}
	f := r.opts.SummarizeThreshold
	if f <= 0 {
		f = DefaultSummarizeThreshold
	}
	return int(f * float64(r.opts.Window))
}
