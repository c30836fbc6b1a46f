package strategy

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/salience"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// StrategyFit names the step that brings a pipeline's result within
// Options.Budget; it runs after the pipeline's own steps whenever a budget
// is set and the result is still over it.
const StrategyFit = "fit-budget"

// budgetSlack is the share of the budget a fit leaves for the difference
// between counting a summary alone and counting it in the fork.
const budgetSlack = 0.01

// fitBudget brings the view within Options.Budget. It keeps, verbatim, the
// newest messages (a contiguous suffix, so every tool call keeps its
// result and the API sees the conversation as it went) and summarizes the
// rest, choosing where to cut by what each side would carry: the suffix
// the salience of what its messages name, the summary the salience of the
// names it could hold in the tokens left — a set cover over the
// conversation's entities, weighted by recency and reuse
// (compaction/salience), not a window.
//
// Pinned messages, the current request and the newest step of the work
// (see frontier) always stay, and the summary stands before them (see
// summaryPlace): the agent resumes the turn it was in. The other
// protected messages (system and developer prompts, the first prompt,
// standing instructions) stay while they take under a tenth of the
// budget — the rest goes to what the conversation named; past that the
// summary carries their gist and a note says so.
func (r *run) fitBudget() (int, error) {
	budget := r.opts.Budget
	if budget <= 0 {
		return 0, nil
	}
	if r.total()-r.fixedTokens() <= budget && !(r.cut && len(r.summaries) == 0) {
		// It fits, and nothing was cut without a summary: a budget asked
		// for is room for what the steps stripped; the knee of the
		// trade-off is not.
		if !r.kneeFit {
			r.restoreWithin(budget + r.fixedTokens() - int(math.Ceil(budgetSlack*float64(budget))))
		}
		return 0, nil
	}
	// The agent's own system prompt, which its format keeps in the
	// transcript (Codex's base instructions) and the agent sends with every
	// request whatever the history, is beyond any compaction's reach: the
	// budget is for the rest.
	if fixed := r.fixedTokens(); fixed > 0 {
		r.note("%s: the agent's system prompt (%d tokens, sent with every request) is not counted against the %d-token budget", StrategyFit, fixed, budget)
		budget += fixed
	}
	target := budget - int(math.Ceil(budgetSlack*float64(r.opts.Budget)))
	r.dropSettledReasoning()
	if len(r.summaries) > 0 && r.total() > target {
		// An earlier step's summary: the fit's own reads the whole history,
		// so it stands for what that one did.
		r.summaries = nil
	}
	keep := r.fitKeep(target)
	stripped, keep := r.stripForBudget(target, keep)
	// The newest step stays, its bulky output stripped like the rest
	// (restored below while the budget allows).
	for _, i := range r.frontier() {
		keep[i] = true
	}
	// What the messages kept would name, from the view; what a summary
	// could name, from the source: the pipeline's steps stripped tool
	// output the summary may still quote names from.
	x := salience.Build(r.msgs, salience.Options{Cwd: r.src.Meta.Cwd})
	xs := salience.Build(r.src.Messages, salience.Options{Cwd: r.src.Meta.Cwd})
	mandatory := 0
	for i := range r.msgs {
		if keep[i] {
			mandatory += r.msgTokens(i)
		}
	}
	for _, s := range r.summaries {
		mandatory += s.tokens + tokens.MessageOverhead
	}
	cut := r.chooseCut(x, xs, keep, target-mandatory)
	if r.opts.Summarizer == nil {
		// Without a summarizer the suffix alone must fit.
		r.cutKeeping(r.firstFitting(cut, keep, target-mandatory), keep)
		r.note("%s: no summarizer is configured, so what was cut is not summarized", StrategyFit)
		r.explainOver(budget, mandatory)
		return stripped, nil
	}
	// Summarize, then adjust: a summary over its room moves the cut later;
	// one well under it (a short span says little) moves the cut earlier,
	// so the tokens left go to verbatim messages.
	shrink := 0 // what seams and stand-ins took beyond the estimate
	const attempts = 6
	done := false
	for attempt := 0; attempt < attempts && !done; attempt++ {
		suffix := r.liveFrom(cut, keep)
		room := target - mandatory - suffix - tokens.MessageOverhead - shrink
		if room < minSummaryTokens(target) && cut < len(r.msgs) {
			cut = r.laterCut(cut, keep)
			continue
		}
		if room <= 0 {
			break
		}
		undo := r.snapshot(len(r.msgs))
		wasCut, nSummaries := r.cut, len(r.summaries)
		if !r.summarizeBefore(cut, room, keep) {
			r.cutKeeping(r.firstFitting(cut, keep, target-mandatory), keep)
			done = true
			break
		}
		total := r.total()
		over := total > budget
		short := !over && attempt < attempts-1 && budget-total > budget/8
		if !over && !short {
			done = true
			break
		}
		undo()
		r.cut, r.summaries = wasCut, r.summaries[:nSummaries]
		if over {
			// What the cut's seams cost comes off the summary's room; a
			// cut that leaves the summary too little moves later.
			shrink += total - budget + budget/100
			if target-mandatory-suffix-shrink < minSummaryTokens(target) {
				shrink = 0
				cut = r.laterCut(cut, keep)
			}
			continue
		}
		c := r.earlierCut(cut, keep, budget-total)
		if c == cut {
			// Nothing earlier fits the slack: summarize as before.
			done = r.summarizeBefore(cut, room, keep)
			break
		}
		cut = c
	}
	if !done {
		// No summary fitted beside the messages kept: keep what fits.
		r.cutKeeping(r.firstFitting(cut, keep, target-mandatory), keep)
		r.note("%s: no summary fitted in the %d-token budget beside the messages kept", StrategyFit, r.opts.Budget)
	}
	r.restoreWithin(target)
	r.explainOver(budget, mandatory)
	return stripped, nil
}

// dropSettledReasoning removes the reasoning of every turn but one still
// in progress. The APIs do not put an earlier turn's reasoning in the
// model's context (Anthropic strips earlier thinking blocks, OpenAI
// discards earlier reasoning items) and the next request starts a new
// turn once the last one is settled, so under a budget it would take room
// and show the model nothing. A turn that ends in a tool call or result
// is still in progress: its reasoning stays, as the APIs require it to.
func (r *run) dropSettledReasoning() {
	from := len(r.msgs)
	if !r.settled() {
		from = 0
		for i := range r.msgs {
			if !r.gone[i] && transcript.StartsTurn(&r.msgs[i]) && r.msgs[i].Origin == transcript.OriginHuman {
				from = i
			}
		}
	}
	for i := 0; i < from; i++ {
		if r.gone[i] {
			continue
		}
		for j, p := range r.msgs[i].Parts {
			if p.Kind == transcript.PartReasoning || p.Kind == transcript.PartOpaque {
				r.removePart(i, j)
			}
		}
	}
	r.flush()
}

// settled reports whether the conversation ends between turns: with the
// assistant's answer (no call left without its result) or a new prompt.
func (r *run) settled() bool {
	for i := len(r.msgs) - 1; i >= 0; i-- {
		if r.gone[i] {
			continue
		}
		m := &r.msgs[i]
		if m.Role == transcript.RoleUser && m.Origin == transcript.OriginHuman {
			return true
		}
		if m.Role != transcript.RoleAssistant {
			return false
		}
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolCall {
				return false
			}
		}
		for _, p := range m.Parts {
			if p.Kind == transcript.PartText && strings.TrimSpace(p.Text) != "" {
				return true
			}
		}
	}
	return false
}

// restoreWithin gives back, while the view stays within budget, what the
// pipeline's steps replaced with placeholders — tool output, and the
// content of calls whose arguments were stripped (a file written) — best
// value first: the salience of the names a part holds that nothing else in
// the view names, per token it costs; then, while the budget lasts, the
// newest. A budget is room the agent asked to have filled. It reads the
// newest parts, a few times the room's worth, not every output of a long
// session. It returns how many parts it restored.
func (r *run) restoreWithin(budget int) int {
	spare := budget - r.total()
	if spare <= 0 {
		return 0
	}
	xs := salience.Build(r.src.Messages, salience.Options{Cwd: r.src.Meta.Cwd})
	visible := map[*salience.Stat]bool{}
	mark := func(text string) {
		salience.Scan(text, func(e salience.Entity) {
			if e.Kind == salience.Path {
				e.Text = salience.Relative(e.Text, r.src.Meta.Cwd)
			}
			if st := xs.Stat(e); st != nil {
				visible[st] = true
			}
		})
	}
	type restore struct {
		msg, part int
		orig      *transcript.Part
		tokens    int
		ents      []*salience.Stat
	}
	var cands []*restore
	x := newSourceIndex(r.src)
	for i := range r.msgs {
		if r.gone[i] {
			continue
		}
		si := r.srcIdx[i]
		for j := range r.msgs[i].Parts {
			p := &r.msgs[i].Parts[j]
			if r.tok[i][j] == removedPart {
				continue
			}
			if p.Kind == transcript.PartToolCall {
				mark(p.Args)
			} else {
				mark(p.Text)
			}
			if p.Kind != transcript.PartToolResult && p.Kind != transcript.PartToolCall || !p.Changed {
				continue
			}
			sj := x.part(si, p)
			if sj < 0 {
				continue
			}
			orig := &r.src.Messages[si].Parts[sj]
			if orig.Kind != p.Kind || orig.Text == p.Text && orig.Args == p.Args {
				continue
			}
			if c := (&restore{msg: i, part: j, orig: orig, tokens: r.counts.parts[si][sj] - r.tok[i][j]}); c.tokens > 0 {
				cands = append(cands, c)
			}
		}
	}
	for _, sm := range r.summaries {
		mark(sm.Text)
	}
	// The newest first, and of those, a few times what could come back:
	// not every output of a long session is read.
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].msg != cands[b].msg {
			return cands[a].msg > cands[b].msg
		}
		return cands[a].part < cands[b].part
	})
	examined, limit := 0, 8*spare
	for k, c := range cands {
		if examined > limit {
			cands = cands[:k]
			break
		}
		examined += c.tokens
		text := c.orig.Text
		if c.orig.Kind == transcript.PartToolCall {
			text = c.orig.Args
		}
		seen := map[*salience.Stat]bool{}
		salience.Scan(text, func(e salience.Entity) {
			if e.Kind == salience.Path {
				e.Text = salience.Relative(e.Text, r.src.Meta.Cwd)
			}
			if st := xs.Stat(e); st != nil && !seen[st] {
				seen[st] = true
				c.ents = append(c.ents, st)
			}
		})
	}
	gain := func(c *restore) float64 {
		v := 0.0
		for _, st := range c.ents {
			if !visible[st] {
				v += st.Score
			}
		}
		return v / float64(c.tokens)
	}
	// What names most that the view does not, per token, first; what
	// names nothing new is left out.
	restored := 0
	for spare > 0 && len(cands) > 0 {
		best, bestG := -1, 0.0
		for k, c := range cands {
			if c.tokens > spare {
				continue
			}
			if g := gain(c); g > bestG {
				best, bestG = k, g
			}
		}
		if best < 0 {
			// Nothing left names anything new: the newest output that
			// fits, as truncation would keep it.
			for k, c := range cands {
				if c.tokens <= spare {
					best = k
					break
				}
			}
		}
		if best < 0 {
			break
		}
		c := cands[best]
		cands = append(cands[:best], cands[best+1:]...)
		p := &r.msgs[c.msg].Parts[c.part]
		if c.orig.Kind == transcript.PartToolCall {
			p.Args = c.orig.Args
		} else {
			p.Text = c.orig.Text
		}
		r.tok[c.msg][c.part] += c.tokens
		spare -= c.tokens
		restored++
		for _, st := range c.ents {
			visible[st] = true
		}
	}
	return restored
}

// fixedTokens counts the messages a format pins as the agent's system
// prompt.
func (r *run) fixedTokens() int {
	n := 0
	for i := range r.msgs {
		if isSystemPrompt(&r.msgs[i]) && !r.gone[i] {
			n += r.msgTokens(i)
		}
	}
	return n
}

// isSystemPrompt reports whether m is the agent's system prompt as its
// codec pins it (Codex base instructions, an API request's system field).
func isSystemPrompt(m *transcript.Message) bool {
	return m.Pinned && m.Role == transcript.RoleSystem
}

// minSummaryTokens is the least a summary is given: a summary too small to
// say where the work stands is worth less than the messages it costs.
func minSummaryTokens(budget int) int { return min(600, max(budget/5, 150)) }

// fitKeep marks what stays whatever the budget: pins, the current request,
// and the protected messages while they take under a tenth of it.
func (r *run) fitKeep(budget int) []bool {
	keep := make([]bool, len(r.msgs))
	last := -1
	for i := range r.msgs {
		if r.gone[i] {
			continue
		}
		if r.msgs[i].Pinned {
			keep[i] = true
		}
		if transcript.StartsTurn(&r.msgs[i]) && r.msgs[i].Origin == transcript.OriginHuman {
			last = i
		}
	}
	budget = r.opts.Budget // the conversation's share: without the system prompt
	// The keep-last turns stay whole while they leave a summary room in
	// the budget; past that the budget wins and only their prompt is sure
	// to.
	tail := 0
	for i := r.boundary(); i < len(r.msgs); i++ {
		if !r.gone[i] {
			tail += r.msgTokens(i)
		}
	}
	whole := tail <= budget-minSummaryTokens(budget)
	if whole {
		for i := r.boundary(); i < len(r.msgs); i++ {
			keep[i] = !r.gone[i]
		}
	} else if r.tailLen > 0 {
		r.note("%s: the last %d turns take %d tokens, too many for the %d-token budget: they are compacted too", StrategyFit, r.keepLast, tail, budget)
	}
	if last >= 0 {
		keep[last] = true
		// A long request is clipped only when the turns kept whole are not
		// whole already.
		if n := r.msgTokens(last); n > budget/4 && !(whole && last >= r.boundary()) {
			r.clipText(last, budget/4)
		}
	}
	room := int(0.1 * float64(budget))
	for i := range r.msgs {
		if keep[i] && !isSystemPrompt(&r.msgs[i]) {
			room -= r.msgTokens(i)
		}
	}
	var relaxed []string
	for i := range r.msgs {
		if !r.protected[i] || keep[i] || r.gone[i] {
			continue
		}
		if n := r.msgTokens(i); n <= room {
			keep[i] = true
			room -= n
		} else {
			relaxed = append(relaxed, fmt.Sprintf("%s message %d (%d tokens)", r.msgs[i].Role, r.srcIdx[i], n))
		}
	}
	if len(relaxed) > 0 {
		r.note("%s: %d protected messages did not fit a tenth of the %d-token budget and are summarized instead: %s", StrategyFit, len(relaxed), budget, strings.Join(relaxed, ", "))
	}
	return keep
}

// clipText shortens message i's text parts to about n tokens in all,
// keeping each part's head and tail.
func (r *run) clipText(i, n int) {
	m := &r.msgs[i]
	for j := range m.Parts {
		p := &m.Parts[j]
		if p.Kind != transcript.PartText || r.tok[i][j] <= n {
			continue
		}
		chars := max(200, len(p.Text)*n/max(r.tok[i][j], 1))
		r.setText(i, j, summarize.Truncate(p.Text, chars))
	}
}

// stripForBudget replaces bulky tool results with placeholders everywhere
// but in kept messages when what is left is over budget: a budget comes
// before the keep-last turn's tool output, which the agent can read again.
func (r *run) stripForBudget(budget int, keep []bool) (int, []bool) {
	if r.total() <= budget {
		return 0, keep
	}
	stripped := 0
	for _, tp := range r.pairs() {
		if tp.result == noLoc || keep[tp.result.msg] || keep[tp.call.msg] {
			continue
		}
		n := r.tok[tp.result.msg][tp.result.part]
		res := r.part(tp.result)
		if n < StripFloor || res.Signed || isPlaceholderText(res.Text) {
			continue
		}
		text := resultPlaceholder(r.part(tp.call), res, n)
		if r.counter.Text(text) < n {
			r.setText(tp.result.msg, tp.result.part, text)
			stripped++
			for _, c := range tp.copies {
				if r.tok[c.msg][c.part] != removedPart {
					r.setText(c.msg, c.part, text)
				}
			}
		}
	}
	for i := range r.msgs {
		if keep[i] || r.gone[i] {
			continue
		}
		for j, p := range r.msgs[i].Parts {
			if (p.Kind == transcript.PartReasoning || p.Kind == transcript.PartOpaque) && r.tok[i][j] != removedPart {
				r.removePart(i, j)
			}
		}
	}
	r.flushKeep(&keep)
	return stripped, keep
}

// flushKeep flushes and carries the keep marks over to the new indexes.
func (r *run) flushKeep(keep *[]bool) {
	before := append([]int(nil), r.srcIdx...)
	marked := map[int]bool{}
	for i, k := range *keep {
		if k {
			marked[before[i]] = true
		}
	}
	r.flush()
	out := make([]bool, len(r.msgs))
	for i := range r.msgs {
		out[i] = marked[r.srcIdx[i]]
	}
	*keep = out
}

// cutStarts are the indexes a kept suffix may start at: a human prompt or
// an assistant message (never a tool result, whose call would be cut
// off), and len(msgs) for no suffix at all.
func (r *run) cutStarts() []int {
	var out []int
	for i := 1; i < len(r.msgs); i++ {
		m := &r.msgs[i]
		if m.Role == transcript.RoleAssistant || transcript.StartsTurn(m) {
			out = append(out, i)
		}
	}
	return append(out, len(r.msgs))
}

// liveFrom counts the messages from cut on that are not kept anyway.
func (r *run) liveFrom(cut int, keep []bool) int {
	n := 0
	for i := cut; i < len(r.msgs); i++ {
		if !r.gone[i] && !keep[i] {
			n += r.msgTokens(i)
		}
	}
	return n
}

// chooseCut picks where the kept suffix starts. For each possible start it
// estimates what the result would carry: the salience of every entity the
// suffix names, plus what a summary in the tokens left could name — the
// most salient entities the suffix lacks, at what writing each costs —
// and takes the start that carries most.
func (r *run) chooseCut(x, xs *salience.Index, keep []bool, room int) int {
	ranked := xs.Ranked()
	cost := make([]int, len(ranked))
	for i, s := range ranked {
		cost[i] = len(s.Text)/3 + 2
	}
	starts := r.cutStarts()
	inSuffix := map[*salience.Stat]bool{}
	best, bestV := len(r.msgs), math.Inf(-1)
	suffixV, suffixT := 0.0, 0
	next := len(r.msgs) // messages [next, len) are counted in the suffix
	for k := len(starts) - 1; k >= 0; k-- {
		c := starts[k]
		for i := next - 1; i >= c; i-- {
			if r.gone[i] || keep[i] {
				continue
			}
			suffixT += r.msgTokens(i)
			for _, v := range x.Message(i) {
				if s := xs.Stat(v.Entity); s != nil && !inSuffix[s] {
					inSuffix[s] = true
					suffixV += s.Score
				}
			}
		}
		next = c
		left := room - suffixT - tokens.MessageOverhead
		if left < 0 {
			break
		}
		if left < minSummaryTokens(room) && c > 0 {
			continue
		}
		v := suffixV + packValue(ranked, cost, inSuffix, left)
		if v > bestV {
			best, bestV = c, v
		}
	}
	return best
}

// packValue is what a summary of size tokens could carry: the most
// salient entities not already in the suffix, each at its cost, with a
// fifth of the tokens for the frontier's prose.
func packValue(ranked []*salience.Stat, cost []int, skip map[*salience.Stat]bool, tokens int) float64 {
	left := tokens * 4 / 5
	v := 0.0
	for i, s := range ranked {
		if skip[s] {
			continue
		}
		if cost[i] > left {
			break
		}
		left -= cost[i]
		v += s.Score
	}
	return v
}

// earlierCut is the earliest suffix start before cut whose extra
// messages fit in slack tokens; cut when none does.
func (r *run) earlierCut(cut int, keep []bool, slack int) int {
	best := cut
	base := r.liveFrom(cut, keep)
	starts := r.cutStarts()
	for k := len(starts) - 1; k >= 0; k-- {
		c := starts[k]
		if c >= cut {
			continue
		}
		if r.liveFrom(c, keep)-base > slack {
			break
		}
		best = c
	}
	return best
}

// laterCut is the next suffix start after cut.
func (r *run) laterCut(cut int, keep []bool) int {
	for _, c := range r.cutStarts() {
		if c > cut {
			return c
		}
	}
	return len(r.msgs)
}

// firstFitting is the earliest start at or after cut whose suffix fits room.
func (r *run) firstFitting(cut int, keep []bool, room int) int {
	for _, c := range r.cutStarts() {
		if c >= cut && r.liveFrom(c, keep) <= room {
			return c
		}
	}
	return len(r.msgs)
}

// frontier is the newest step of the work — the last assistant message and
// the results of its calls — which every fit keeps whatever the budget:
// the agent resumes from it, and a fork without it would have the agent
// start the step over. Context injected after it (a developer message, an
// environment note) is not part of it.
func (r *run) frontier() []int {
	last := -1
	for i := len(r.msgs) - 1; i >= 0; i-- {
		if !r.gone[i] && r.msgs[i].Role == transcript.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	out := []int{last}
	for i := last + 1; i < len(r.msgs); i++ {
		if !r.gone[i] && slices.ContainsFunc(r.msgs[i].Parts, func(p transcript.Part) bool { return p.Kind == transcript.PartToolResult }) {
			out = append(out, i)
		}
	}
	return out
}

// summaryPlace is where the summary of the messages before cut stands:
// before the kept suffix, and never after the latest request, the newest
// step or the keep-last turns kept whole, even when the cut falls inside
// or after them — a summary is history, and the turn the agent resumes
// comes last (Claude Code and Gemini CLI read a conversation from its last
// summary on, and a Codex rollout must not end with a compacted record).
func (r *run) summaryPlace(cut int, keep []bool) int {
	place := cut
	if b := r.boundary(); b < place && b < len(r.msgs) && keep[b] {
		place = b
	}
	if f := r.frontier(); len(f) > 0 && f[0] < place && keep[f[0]] {
		place = f[0]
	}
	for i := place - 1; i >= 0; i-- {
		if !r.gone[i] && transcript.StartsTurn(&r.msgs[i]) && r.msgs[i].Origin == transcript.OriginHuman {
			if keep[i] {
				place = i
			}
			break
		}
	}
	return place
}

// cutKeeping removes every message before cut that is not kept.
func (r *run) cutKeeping(cut int, keep []bool) {
	saved := append([]bool(nil), r.protected...)
	for i := range r.protected {
		r.protected[i] = keep[i]
	}
	r.cutBefore(cut)
	copy(r.protected, saved)
}

// summarizeBefore summarizes the messages before cut into at most budget
// tokens and cuts them (the kept ones stay); false when the summarizer
// gave nothing usable.
func (r *run) summarizeBefore(cut, budget int, keep []bool) bool {
	// The summary reads the whole history as it was, not as the
	// pipeline's steps left it: a result stripped to a placeholder, in the
	// cut span or in the messages kept, still names what it named. What
	// the kept messages show (Following) it need not repeat.
	archived := r.src.Messages
	if cut == 0 || len(archived) == 0 {
		return false
	}
	place := r.summaryPlace(cut, keep)
	var following []transcript.Message
	for i := place; i < len(r.msgs); i++ {
		if !r.gone[i] && (i >= cut || keep[i]) {
			following = append(following, r.msgs[i])
		}
	}
	srcTurns := r.src.Turns
	if len(srcTurns) == 0 {
		srcTurns = transcript.BuildTurns(r.src.Messages)
	}
	from := max(transcript.TurnOf(srcTurns, r.srcIdx[0]), 0)
	to, anchor := len(srcTurns), len(r.src.Messages)
	if cut < len(r.msgs) {
		to = transcript.TurnOf(srcTurns, r.srcIdx[cut])
	}
	if place < len(r.msgs) {
		anchor = r.srcIdx[place]
	}
	sum, err := r.opts.Summarizer.Summarize(r.ctx, summarize.Request{
		Messages: archived, FromTurn: from, ToTurn: max(to, from+1), Budget: budget,
		Following: following, Cwd: r.src.Meta.Cwd, Recall: r.opts.Recall, Fill: true,
	})
	name := r.opts.Summarizer.Name()
	switch {
	case err != nil:
		r.note("%s: %s failed: %v", StrategyFit, name, err)
		return false
	case strings.TrimSpace(sum.Text) == "":
		r.note("%s: %s returned a blank summary", StrategyFit, name)
		return false
	}
	r.cutKeeping(cut, keep)
	r.cut = true
	r.summaries = append(r.summaries, anchoredSummary{
		Summary: transcript.Summary{Text: sum.Text, FromTurn: from, ToTurn: to},
		anchor:  anchor,
		tokens:  r.counter.Text(sum.Text),
	})
	return true
}

// explainOver notes why a result is still over budget.
func (r *run) explainOver(budget, mandatory int) {
	total := r.total()
	if total <= budget {
		return
	}
	switch {
	case mandatory >= budget:
		r.note("%s: %d tokens, over the budget of %d: pinned messages, the current request and earlier summaries alone take %d", StrategyFit, total, budget, mandatory)
	default:
		r.note("%s: %d tokens, over the budget of %d: no cut of this conversation fits it", StrategyFit, total, budget)
	}
}

// isPlaceholderText reports whether a result is already a placeholder.
func isPlaceholderText(s string) bool { return strings.HasPrefix(s, placeholderPrefix) }
