package strategy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// turns returns the turns of the current (flushed) messages.
func (r *run) turns() []transcript.Turn { return transcript.BuildTurns(r.msgs) }

// snapCut moves a cut at message index cut back to the start of its turn,
// and never past the keep-last boundary.
func (r *run) snapCut(turns []transcript.Turn, cut int) int {
	if b := r.boundary(); cut > b {
		cut = b
	}
	if cut <= 0 {
		return 0
	}
	if t := transcript.TurnOf(turns, cut); t >= 0 {
		cut = turns[t].Start
	}
	return cut
}

// cutBefore removes every unprotected message before index cut and
// reports whether anything went.
func (r *run) cutBefore(cut int) bool {
	any := false
	turns, removed := 0, 0
	var removedSrc []int
	for i := 0; i < cut && i < len(r.msgs); i++ {
		if r.protected[i] || r.gone[i] {
			continue
		}
		if transcript.StartsTurn(&r.msgs[i]) {
			turns++
		}
		removed += r.msgTokens(i)
		r.gone[i] = true
		removedSrc = append(removedSrc, r.srcIdx[i])
		any = true
	}
	if any {
		r.cut = true
		r.bridgeCut(cut, turns, removed, removedSrc)
	}
	return any
}

// bridgeCut mends the seams a cut leaves between kept messages of one
// role: a protected prompt kept before the cut would otherwise sit
// unanswered next to the first kept prompt (and Gemini's API rejects two
// user turns in a row). One removed message of the other role comes back
// as a one-line stand-in saying what was cut, so the model reads the first
// prompt as answered and knows turns are missing.
//
// Where roles must alternate (Gemini) a short message comes back whole when
// the stand-in would cost more; elsewhere the stand-in is written whenever
// the cut saves more than it costs, and the seam is left as it is when the
// cut was too small to pay for it.
//
// The stand-in names the recall handle of the messages the cut removed.
func (r *run) bridgeCut(cut, turns, removed int, removedSrc []int) {
	text := placeholderPrefix + "the rest of this turn was removed]"
	switch {
	case turns == 1:
		text = placeholderPrefix + "1 earlier turn removed]"
	case turns > 1:
		text = placeholderPrefix + fmt.Sprintf("%d earlier turns removed]", turns)
	}
	named := false
	prev := -1
	for i := 0; i <= cut && i < len(r.msgs); i++ {
		if r.gone[i] {
			continue
		}
		if prev >= 0 && i > prev+1 && r.msgs[prev].Role == r.msgs[i].Role {
			if k := r.standIn(prev, i); k >= 0 {
				m := &r.msgs[k]
				if !named {
					// Named once it is needed: rendering the span costs its size.
					text, named = recall.Placeholder(text, r.recallMessages(removedSrc)), true
				}
				p := transcript.Part{Kind: transcript.PartText, Text: text, Ref: standInRef(m), Changed: true}
				n := r.counter.Part(&p)
				switch {
				case n < r.msgTokens(k)-tokens.MessageOverhead, !r.alternation && n+tokens.MessageOverhead <= removed:
					m.Parts = []transcript.Part{p}
					r.tok[k] = []int{n}
				case !r.alternation:
					// too small a cut to pay for a stand-in
				}
				if r.alternation || len(m.Parts) == 1 && m.Parts[0].Text == text {
					r.gone[k] = false
				}
			}
		}
		prev = i
	}
}

// standIn picks the removed message between kept messages prev and i
// (of one role) that comes back as the stand-in: the latest of the other
// role (not a tool result) with a text block, since a codec rewrites a
// text block as text but keeps a tool call as it was — over a message of
// tool calls only (a turn interrupted after a call) the fork would hold
// the call again without its result. Where roles must alternate, the
// latest of the other role will do; elsewhere, with none of them, the
// seam stays (-1).
func (r *run) standIn(prev, i int) int {
	fallback := -1
	for k := i - 1; k > prev; k-- {
		m := &r.msgs[k]
		if m.Role == r.msgs[i].Role || m.Role == transcript.RoleTool || len(m.Parts) == 0 {
			continue
		}
		if slices.ContainsFunc(m.Parts, func(p transcript.Part) bool { return p.Kind == transcript.PartText }) {
			return k
		}
		if fallback < 0 && r.alternation {
			fallback = k
		}
	}
	return fallback
}

// standInRef is where a stand-in replacing m's content is written: over
// one of its text blocks when it has one, since a codec rewrites a text
// block as text but may keep a tool block (Anthropic's server_tool_use)
// as it was.
func standInRef(m *transcript.Message) transcript.Ref {
	for _, p := range m.Parts {
		if p.Kind == transcript.PartText {
			return p.Ref
		}
	}
	return m.Parts[0].Ref
}

func (r *run) slidingWindow() (int, error) {
	n := r.opts.Events
	if n <= 0 {
		n = 40
	}
	r.cutBefore(r.snapCut(r.turns(), len(r.msgs)-n))
	return 0, nil
}

func (r *run) turnWindow() (int, error) {
	n := r.opts.Turns
	if n <= 0 {
		n = 10
	}
	turns := r.turns()
	if n < len(turns) {
		r.cutBefore(r.snapCut(turns, turns[len(turns)-n].Start))
	}
	return 0, nil
}

// msgTokens is message i's current count with framing.
func (r *run) msgTokens(i int) int {
	n := tokens.MessageOverhead
	for _, x := range r.tok[i] {
		if x > 0 {
			n += x
		}
	}
	return n
}

// tokenBudget keeps the newest whole turns that fit the budget, beside the
// protected messages (which always stay and count against it).
func (r *run) tokenBudget() (int, error) {
	budget := r.opts.Budget
	if budget <= 0 {
		budget = r.threshold()
	}
	if budget <= 0 {
		return 0, fmt.Errorf("needs a budget, or a context window to derive one from: set one (--budget N, or [compact] budget) or the window (--window N)")
	}
	turns := r.turns()
	cut := r.cutForBudget(turns, budget)
	if cut > r.boundary() {
		cut = r.boundary()
	}
	r.cutBefore(cut)
	if r.total() > budget {
		r.note("token-budget: the kept turns and protected messages take %d tokens, over the budget of %d", r.total(), budget)
	}
	return 0, nil
}

// cutForBudget returns the earliest turn start such that the protected
// messages before it plus everything from it on fit in budget; the
// keep-last boundary if none fits.
func (r *run) cutForBudget(turns []transcript.Turn, budget int) int {
	protectedBefore := make([]int, len(r.msgs)+1)
	for i := range r.msgs {
		protectedBefore[i+1] = protectedBefore[i]
		if r.protected[i] {
			protectedBefore[i+1] += r.msgTokens(i)
		}
	}
	suffix := 0
	cut := r.boundary()
	for t := len(turns) - 1; t >= 0; t-- {
		for i := turns[t].Start; i < turns[t].End; i++ {
			suffix += r.msgTokens(i)
		}
		kept := suffix + protectedBefore[turns[t].Start]
		if kept > budget {
			break
		}
		if turns[t].Start < cut {
			cut = turns[t].Start
		}
	}
	return cut
}

// summarize archives everything older than the buffer turns into one
// summary placed where history was cut. It reads the history as the source
// has it, so a window that cut turns first leaves them summarized, not
// lost: pipeline order is free. A failed or blank summary skips the step
// with a note: compaction never fails for want of a summary.
func (r *run) summarize() (int, error) {
	if r.opts.Summarizer == nil {
		r.note("summarize skipped: no summarizer is configured")
		return 0, nil
	}
	turns := r.turns()
	keep := r.keepLast
	buffer := max(r.opts.BufferTurnCount(), 0)
	if buffer < keep {
		buffer = keep
	}
	// The buffer is capped by tokens: when its turns alone exceed the
	// threshold it shrinks, down to the keep-last turns.
	if limit := r.threshold(); limit > 0 {
		for buffer > keep && buffer <= len(turns) && r.suffixTokens(turns[len(turns)-buffer].Start) > limit {
			buffer--
		}
	}
	cut := len(r.msgs)
	if buffer > 0 && buffer < len(turns) {
		cut = turns[len(turns)-buffer].Start
	}
	cut = r.snapCut(turns, cut)
	if buffer >= len(turns) || cut <= 0 {
		if !r.cut || len(r.summaries) > 0 {
			r.note("summarize skipped: only %d turns, all within the %d recent turns kept verbatim", len(turns), buffer)
			return 0, nil
		}
		// An earlier step cut history and kept these turns: summarize what
		// it cut, before the first message it did not protect.
		cut = r.firstUnprotected()
	}
	anchor := len(r.src.Messages)
	if cut < len(r.msgs) {
		anchor = r.srcIdx[cut]
	}
	archived := r.archivedSpan(anchor)
	if len(archived) == 0 {
		return 0, nil
	}
	srcTurns := r.src.Turns
	if len(srcTurns) == 0 {
		srcTurns = transcript.BuildTurns(r.src.Messages)
	}
	to := len(srcTurns)
	if cut < len(r.msgs) {
		to = transcript.TurnOf(srcTurns, anchor)
	}
	from := 0
	// What the span costs in the source: a summary is worth writing only
	// well under it.
	span := 0
	for i := range anchor {
		span += tokens.MessageOverhead
		for _, n := range r.counts.parts[i] {
			span += n
		}
	}
	budget := r.opts.SummaryBudget
	if budget <= 0 {
		budget = min(summarize.DefaultExtractiveBudget, max(300, span/4))
	}
	var following []transcript.Message
	for i := cut; i < len(r.msgs); i++ {
		if !r.gone[i] {
			following = append(following, r.msgs[i])
		}
	}
	sum, err := r.opts.Summarizer.Summarize(r.ctx, summarize.Request{
		Messages: archived, FromTurn: from, ToTurn: max(to, from+1), Budget: budget,
		Following: following, Cwd: r.src.Meta.Cwd, Recall: r.opts.Recall,
	})
	name := r.opts.Summarizer.Name()
	switch {
	case err != nil:
		r.note("summarize skipped: %s failed: %v", name, err)
		return 0, nil
	case strings.TrimSpace(sum.Text) == "":
		r.note("summarize skipped: %s returned a blank summary", name)
		return 0, nil
	}
	// Cut, then measure what went since the source: the cut may bring a
	// removed message back as a stand-in to keep roles alternating. A
	// summary that would not make the view smaller than the source's span
	// is not worth its loss; undo the cut.
	undo := r.snapshot(cut)
	wasCut := r.cut
	before := r.liveTokens(cut)
	r.cutBefore(cut)
	saved := before - r.liveTokens(cut)
	if wasCut && len(r.summaries) == 0 {
		// An earlier step cut this history without a summary: the summary
		// stands for that too.
		saved = span - r.liveTokens(cut)
	}
	if sumTokens := r.counter.Text(sum.Text) + tokens.MessageOverhead; sumTokens >= saved {
		undo()
		r.cut = wasCut
		r.note("summarize skipped: the %d-token summary is no smaller than the %d tokens it would replace", sumTokens, saved)
		return 0, nil
	}
	r.cut = true
	text := sum.Text
	if h := r.recallSpan(r.srcIdx[0], anchor); h != "" {
		text = strings.TrimRight(text, "\n") + "\n\n" + recall.SummaryNote(h)
	}
	r.summaries = append(r.summaries, anchoredSummary{
		Summary: transcript.Summary{Text: text, FromTurn: from, ToTurn: to},
		anchor:  anchor,
		tokens:  r.counter.Text(text),
	})
	return 0, nil
}

// archivedSpan is the history before source message anchor as a summary
// reads it: the messages the view still holds as the pipeline left them
// (tool output already stripped costs nothing to read again), and those
// an earlier step removed from the source, so a window that cut turns
// first leaves them summarized, not lost.
func (r *run) archivedSpan(anchor int) []transcript.Message {
	inView := make(map[int]int, len(r.msgs))
	for i, si := range r.srcIdx {
		if !r.gone[i] {
			inView[si] = i
		}
	}
	out := make([]transcript.Message, 0, anchor)
	for si := range anchor {
		if vi, ok := inView[si]; ok {
			out = append(out, r.msgs[vi])
		} else {
			out = append(out, r.src.Messages[si])
		}
	}
	return out
}

// firstUnprotected is the index of the first message a strategy may
// remove, len(msgs) when none.
func (r *run) firstUnprotected() int {
	for i := range r.msgs {
		if !r.gone[i] && !r.protected[i] {
			return i
		}
	}
	return len(r.msgs)
}

// liveTokens counts the messages before index end that are still in the view.
func (r *run) liveTokens(end int) int {
	n := 0
	for i := 0; i < end && i < len(r.msgs); i++ {
		if !r.gone[i] {
			n += r.msgTokens(i)
		}
	}
	return n
}

// snapshot records the view state of messages before end and returns a
// function that puts it back.
func (r *run) snapshot(end int) func() {
	end = min(end, len(r.msgs))
	gone := append([]bool(nil), r.gone[:end]...)
	parts := make([][]transcript.Part, end)
	toks := make([][]int, end)
	for i := 0; i < end; i++ {
		parts[i], toks[i] = r.msgs[i].Parts, r.tok[i]
	}
	return func() {
		copy(r.gone, gone)
		for i := 0; i < end; i++ {
			r.msgs[i].Parts, r.tok[i] = parts[i], toks[i]
		}
	}
}

func (r *run) suffixTokens(from int) int {
	n := 0
	for i := from; i < len(r.msgs); i++ {
		n += r.msgTokens(i)
	}
	return n
}
