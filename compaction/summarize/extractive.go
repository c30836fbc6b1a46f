package summarize

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/facts"
)

// DefaultExtractiveBudget is the extractive summary's size when the request
// sets no budget.
const DefaultExtractiveBudget = 3000

// Extractive is the offline, deterministic summarizer, the default when no
// model is configured. It writes the execution frontier — the goal, what
// is done, what remains, the next action, the files touched with their
// last known state, the commands that work, the errors still open — then
// the standing instructions, the names in play and the earlier requests,
// and fits it to the budget by keeping the lines that carry the most
// salience per token (compaction/salience: recency and reuse, weighted by
// who named what), a greedy cover of the conversation's names in which a
// name already carried — by another line, or by the messages kept after
// the summary (Request.Following) — adds nothing. Key facts (facts.Extract,
// the retention report's definition) add to the lines quoting them, and a
// fact no line quotes gets one of its own.
// No model, no network; the same span always gives the same summary.
type Extractive struct {
	// Counter measures the summary against the budget; nil estimates.
	Counter TokenCounter
	// Budget applies when the request sets none (0 = DefaultExtractiveBudget).
	Budget int
	// Now stamps summaries (nil = time.Now).
	Now func() time.Time
}

// Name reports the summarizer's name in pipelines and reports.
func (e *Extractive) Name() string { return "extractive" }

// Summarize implements Summarizer.
func (e *Extractive) Summarize(ctx context.Context, req Request) (Summary, error) {
	if len(req.Messages) == 0 {
		return Summary{}, ErrNothingToSummarize
	}
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	budget := req.Budget
	if budget <= 0 {
		budget = e.Budget
	}
	if budget <= 0 {
		budget = DefaultExtractiveBudget
	}
	var text string
	var n int
	if req.Merge {
		text, n = mergeOutline(req).fit(e.Counter, budget)
	} else {
		req.Budget = budget
		text, n = frontierOf(req).fit(e.Counter, budget)
	}
	text, redacted := Redact(text)
	if redacted > 0 {
		n = countTokens(e.Counter, text)
	}
	if strings.TrimSpace(text) == "" {
		return Summary{}, fmt.Errorf("extractive summary of turns %d–%d: %w", req.FromTurn, req.ToTurn-1, ErrBlank)
	}
	return Summary{
		Text:     text,
		FromTurn: req.FromTurn,
		ToTurn:   req.ToTurn,
		Tokens:   n,
		Model:    "extractive",
		Created:  now(e.Now),
		Redacted: redacted,
		Level:    mergeLevel(req),
	}, nil
}

// Line priorities: when the summary is over budget, lines are dropped
// lowest priority first, oldest first within a priority.
const (
	prioReply = iota
	prioRequest
	prioDoneTask
	prioResolvedError
	prioIdentifier
	prioMentioned
	prioCommand
	prioFact
	prioKey
)

type line struct {
	text   string
	prio   int
	tokens int
	drop   bool
	facts  []int // indices of the outline's facts this line contains
}

type section struct {
	title  string
	inline bool // a comma-separated list rather than bullets
	lines  []*line
}

type outline struct {
	header   string
	sections []*section
	nfacts   int // facts carried by lines (line.facts index them)
}

func (o *outline) add(title string, prio int, text string) {
	var s *section
	for _, x := range o.sections {
		if x.title == title {
			s = x
		}
	}
	if s == nil {
		s = &section{title: title, inline: title == titleIdentifiers}
		o.sections = append(o.sections, s)
	}
	s.lines = append(s.lines, &line{text: text, prio: prio})
}

const (
	titleGoal         = "Goal and standing instructions"
	titleDecisions    = "Decisions"
	titleFiles        = "Files touched"
	titleCommands     = "Commands run"
	titleErrors       = "Errors"
	titleTasks        = "Tasks"
	titleIdentifiers  = "Identifiers"
	titleConversation = "Who said what"
	titleOtherFacts   = "Other key facts"
)

func (d *digest) outline(from, to int) *outline {
	o := &outline{header: fmt.Sprintf("Summary of turns %d–%d (extractive, written offline without a model).", from, to-1)}
	if d.goal != nil {
		o.add(titleGoal, prioKey, fmt.Sprintf("T%d user asked: %s", d.goal.turn, d.goal.text))
	}
	for _, n := range d.instructions {
		o.add(titleGoal, prioKey, fmt.Sprintf("T%d %s: %s", n.turn, n.who, n.text))
	}
	for _, n := range d.decisions {
		o.add(titleDecisions, prioFact, fmt.Sprintf("T%d %s: %s", n.turn, n.who, n.text))
	}
	for _, p := range d.fileOrder {
		f := d.files[p]
		acts := make([]string, 0, len(f.actions))
		for _, a := range f.actions {
			if c := f.counts[a]; c > 1 {
				acts = append(acts, fmt.Sprintf("%s ×%d", a, c))
			} else {
				acts = append(acts, a)
			}
		}
		prio := prioFact
		if len(f.actions) == 1 && f.actions[0] == "mentioned" {
			prio = prioMentioned
		}
		o.add(titleFiles, prio, fmt.Sprintf("%s — %s", p, strings.Join(acts, ", ")))
	}
	for _, c := range d.commandOrder {
		u := d.commands[c]
		var outcome string
		switch {
		case u.pending && u.runs == 1:
			outcome = "no result recorded"
		case u.failures == 0:
			outcome = "ok"
		case u.lastOK:
			outcome = fmt.Sprintf("failed %d, then ok", u.failures)
		default:
			outcome = "FAILED"
			if u.failures > 1 {
				outcome = fmt.Sprintf("FAILED ×%d", u.failures)
			}
		}
		runs := ""
		if u.runs > 1 {
			runs = fmt.Sprintf(" ×%d", u.runs)
		}
		prio := prioCommand
		if u.failures > 0 {
			prio = prioFact
		}
		o.add(titleCommands, prio, fmt.Sprintf("`%s`%s → %s", c, runs, outcome))
	}
	for _, e := range d.errors {
		status, prio := "open", prioFact
		if e.resolved >= 0 {
			status, prio = fmt.Sprintf("resolved T%d", e.resolved), prioResolvedError
		}
		o.add(titleErrors, prio, fmt.Sprintf("T%d %s: %s — %s", e.turn, e.source, e.line, status))
	}
	for _, t := range d.tasks {
		prio := prioKey
		if t.status == "completed" {
			prio = prioDoneTask
		}
		o.add(titleTasks, prio, fmt.Sprintf("[%s] %s (T%d %s)", t.status, t.text, t.turn, t.who))
	}
	for _, id := range d.identifiers {
		o.add(titleIdentifiers, prioIdentifier, "`"+id+"`")
	}
	// Who said what, interleaved by turn: requests first within a turn.
	conv := append(append([]note(nil), d.requests...), d.replies...)
	sort.SliceStable(conv, func(i, j int) bool { return conv[i].turn < conv[j].turn })
	for _, n := range conv {
		prio := prioReply
		if n.who != "assistant" {
			prio = prioRequest
		}
		o.add(titleConversation, prio, fmt.Sprintf("T%d %s: %s", n.turn, n.who, n.text))
	}
	o.carry(d.facts)
	return o
}

// carry links each fact to the lines that contain it verbatim and gives a
// line of its own to any fact no line contains (a multi-line command, a
// path only a shell read named), so fit can keep every fact.
func (o *outline) carry(list []facts.Fact) {
	var all []*line
	for _, s := range o.sections {
		all = append(all, s.lines...)
	}
	o.nfacts = len(list)
	for i, f := range list {
		carried := false
		for _, l := range all {
			if strings.Contains(l.text, f.Text) {
				l.facts = append(l.facts, i)
				carried = true
			}
		}
		if !carried {
			o.add(titleOtherFacts, prioFact, f.Kind+": "+f.Text)
			s := o.sections[len(o.sections)-1]
			s.lines[len(s.lines)-1].facts = []int{i}
		}
	}
}

// mergeOutline folds earlier summaries: lines under the same heading are
// gathered, duplicates dropped, and the ones a summary owes its facts to
// ranked above narration. Works for extractive summaries and, roughly, for
// any Markdown summary with headings.
func mergeOutline(req Request) *outline {
	o := &outline{header: fmt.Sprintf("Summary of turns %d–%d (extractive merge of %d earlier summaries).", req.FromTurn, req.ToTurn-1, len(req.Messages))}
	seen := map[string]bool{}
	for i := range req.Messages {
		title := titleConversation
		for _, raw := range strings.Split(messageText(&req.Messages[i]), "\n") {
			l := strings.TrimSpace(raw)
			switch {
			case l == "" || strings.HasPrefix(l, "Summary of turns "):
				continue
			case strings.HasPrefix(l, "#"):
				title = strings.TrimSpace(strings.TrimLeft(l, "#"))
				continue
			}
			prio := prioFact
			switch title {
			case titleConversation, sectionTitles[secEarlier]:
				prio = prioRequest
			case titleIdentifiers, sectionTitles[secNames]:
				prio = prioIdentifier
			case titleGoal, sectionTitles[secGoal], sectionTitles[secRules], sectionTitles[secRemaining], sectionTitles[secNext], sectionTitles[secErrors]:
				prio = prioKey
			}
			if title == titleIdentifiers || title == sectionTitles[secNames] {
				for _, id := range strings.Split(l, ", ") {
					if id = strings.TrimSpace(id); id != "" && !seen[title+id] {
						seen[title+id] = true
						o.add(title, prio, id)
					}
				}
				continue
			}
			l = strings.TrimPrefix(strings.TrimPrefix(l, "- "), "* ")
			if !seen[title+l] {
				seen[title+l] = true
				o.add(title, prio, l)
			}
		}
	}
	return o
}

func (o *outline) render() string {
	var b strings.Builder
	b.WriteString(o.header)
	b.WriteString("\n")
	for _, s := range o.sections {
		first := true
		for _, l := range s.lines {
			if l.drop {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n## %s\n", s.title)
			}
			switch {
			case s.inline && first:
				b.WriteString(l.text)
			case s.inline:
				b.WriteString(", " + l.text)
			default:
				b.WriteString("- " + l.text + "\n")
			}
			first = false
		}
		if s.inline && !first {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// fit renders the outline within budget tokens, dropping lines by
// priority — but a line that is the last to carry a key fact only after
// every other line. It counts each line once and re-counts the whole only
// to confirm, so fitting stays linear in the outline's size.
func (o *outline) fit(c TokenCounter, budget int) (string, int) {
	text := o.render()
	n := countTokens(c, text)
	if n <= budget {
		return text, n
	}
	var all []*line
	for _, s := range o.sections {
		for _, l := range s.lines {
			l.tokens = countTokens(c, l.text) + 2
			all = append(all, l)
		}
	}
	// Stable: within a priority, older lines (earlier in the outline) go
	// first, since recent history sits nearer the kept turns.
	sort.SliceStable(all, func(i, j int) bool { return all[i].prio < all[j].prio })
	// carriers counts, per fact, the lines still kept that contain it.
	carriers := make([]int, o.nfacts)
	for _, l := range all {
		for _, f := range l.facts {
			carriers[f]++
		}
	}
	lastCarrier := func(l *line) bool {
		for _, f := range l.facts {
			if carriers[f] == 1 {
				return true
			}
		}
		return false
	}
	// First pass spares the last carriers of facts; the second drops
	// whatever it must.
	for pass := 0; pass < 2 && n > budget; pass++ {
		for i := 0; n > budget && i < len(all); {
			excess := n - budget
			for freed := 0; freed < excess && i < len(all); i++ {
				l := all[i]
				if l.drop || (pass == 0 && lastCarrier(l)) {
					continue
				}
				l.drop = true
				freed += l.tokens
				for _, f := range l.facts {
					carriers[f]--
				}
			}
			text = o.render()
			n = countTokens(c, text)
		}
	}
	return text, n
}
