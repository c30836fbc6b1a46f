package summarize

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/salience"
	"github.com/compactd/compactd/compaction/transcript"
)

// The execution frontier: what a continuing agent needs to pick the work
// up — the goal, what is done, what remains, the next action, the files
// touched with their last known state, the commands that work, the errors
// still open — in that order, then the names in play and the earlier
// requests. Within its budget the summary keeps the lines that carry the
// most salience per token (compaction/salience: recency and reuse, by who
// named what), a greedy set cover: a name already carried by another kept
// line, or by the messages kept verbatim after the summary, adds nothing.

// Frontier sections, in the order the summary writes them.
const (
	secGoal = iota
	secDone
	secRemaining
	secNext
	secFailing
	secState
	secFiles
	secCommands
	secErrors
	secRules
	secNames
	secEarlier
	secExcerpts
	secFacts
	nSections
)

var sectionTitles = [nSections]string{
	secGoal:      "Goal",
	secDone:      "Done",
	secRemaining: "Remaining",
	secNext:      "Next action",
	secFailing:   "Last failing output",
	secState:     "Working state (the last content written into each file)",
	secFiles:     "Files touched (last known state)",
	secCommands:  "Commands that work",
	secErrors:    "Open errors",
	secRules:     "Standing instructions",
	secNames:     "Names in play",
	secEarlier:   "Earlier requests and decisions",
	secExcerpts:  "Latest exchanges (verbatim, long outputs abridged)",
	secFacts:     titleOtherFacts,
}

// An fline is one candidate line of the summary.
type fline struct {
	sec  int
	text string
	// rank orders lines within a section (higher first).
	rank float64
	// base is what the line is worth beyond the names it carries.
	base   float64
	ents   []*salience.Stat
	tokens int
	must   bool
	chosen bool
}

type frontier struct {
	header string
	lines  []*fline
	index  *salience.Index
	// visible are the entities the messages kept after the summary name.
	visible map[*salience.Stat]bool
	cwd     string
	// factNames are the paths and identifiers the key facts name, as the
	// index spells them; top is the most salient name's score.
	factNames map[string]bool
	top       float64
	// workingCommands are the commands listed as working, by commandGist.
	workingCommands map[string]bool
}

// norm spells a name the way the index does.
func (f *frontier) norm(s string) string { return salience.Relative(s, f.cwd) }

// Line widths.
const (
	maxGoal     = 600
	maxRequest  = 400
	maxNext     = 320
	maxEarlier  = 260
	maxFileDesc = 120
)

// frontierOf reads the span to summarize and what stays after it.
func frontierOf(req Request) *frontier {
	all := make([]transcript.Message, 0, len(req.Messages)+len(req.Following))
	all = append(all, req.Messages...)
	all = append(all, req.Following...)
	x := salience.Build(all, salience.Options{Cwd: req.Cwd})
	f := &frontier{index: x, visible: map[*salience.Stat]bool{}, cwd: req.Cwd, factNames: map[string]bool{}, workingCommands: map[string]bool{}}
	for i := len(req.Messages); i < len(all); i++ {
		for _, s := range x.Message(i) {
			f.visible[s] = true
		}
	}
	f.header = fmt.Sprintf("Summary of turns %d–%d, written offline by compactd: the messages it stands for were removed.", req.FromTurn, req.ToTurn-1)
	if req.Cwd != "" {
		f.header += " Paths are relative to " + req.Cwd + "."
	}
	d := digestOf(req.Messages, req.FromTurn)
	top := 1.0
	if r := x.Ranked(); len(r) > 0 && r[0].Score > top {
		top = r[0].Score
	}
	f.top = top
	f.goal(d, top)
	f.tasks(d, top)
	f.next(req.Messages, req.FromTurn, top)
	f.files(d, top)
	f.state(d, top, req)
	f.failing(d, top)
	f.commands(d, top)
	f.errorLines(d, top)
	// Standing instructions are what a compaction must least lose: the
	// project's (CLAUDE.md, AGENTS.md) above all.
	for i, n := range d.instructions {
		// The user's rules first; a memory file's the agent reads again
		// when it starts.
		base := 1.5 * top
		if n.who == "project instructions" {
			base = top
		}
		f.add(&fline{sec: secRules, text: fmt.Sprintf("- %s: %s", n.who, n.text), rank: -float64(i), base: base})
	}
	f.earlier(d, top)
	if req.Fill {
		f.excerpts(req, top)
	}
	f.carry(d, top)
	// A name costs a few tokens: a budget of B lists at most about B/2.
	f.names(max(200, req.Budget))
	return f
}

// namesShare is the most of a summary's budget its list of names takes.
const namesShare = 0.85

// rulesShare is the most of it standing instructions take: a memory file
// of a hundred rules would otherwise be the whole summary.
const rulesShare = 0.25

// factValue is what carrying one key fact adds to a line, as a share of
// the most salient name's score: the retention report counts them, so a
// summary with room keeps them all.
const factValue = 0.3

// carry links each key fact of the span (facts.Extract, the retention
// report's definition) to the lines quoting it, which gain a little value
// for each, and gives a line of its own to a fact no line quotes (a
// multi-line command, a path only a shell read named).
func (f *frontier) carry(d *digest, top float64) {
	for _, fact := range d.facts {
		value := factValue * top
		switch fact.Kind {
		case facts.Path, facts.Identifier:
			// Names: their salience counts them, and the list of names
			// carries them if nothing else does (see names).
			f.factNames[f.norm(fact.Text)] = true
			continue
		case facts.Command:
			if f.workingCommands[commandGist(fact.Text)] {
				continue // its section has it, under its latest spelling
			}
			value = 0.1 * top
		case facts.Decision:
			value = 0.1 * top // what reads as a decision is often narration
		}
		carried := false
		for _, l := range f.lines {
			// An excerpt is an abridged copy, not where a fact is kept.
			if l.sec != secExcerpts && strings.Contains(l.text, fact.Text) {
				carried = true
				if !(l.sec == secDone && fact.Kind == facts.Error) { // an error fixed since is history
					l.base += value
				}
			}
		}
		if !carried {
			f.add(&fline{sec: secFacts, text: "- " + fact.Kind + ": " + fact.Text, base: value})
		}
	}
}

func (f *frontier) add(l *fline) {
	if l.ents == nil {
		seen := map[*salience.Stat]bool{}
		salience.Scan(l.text, func(e salience.Entity) {
			if e.Kind == salience.Path {
				e.Text = salience.Relative(e.Text, f.cwd)
			}
			if s := f.index.Stat(e); s != nil && !seen[s] {
				seen[s] = true
				l.ents = append(l.ents, s)
			}
		})
	}
	f.lines = append(f.lines, l)
}

func (f *frontier) rel(p string) string { return salience.Relative(p, f.cwd) }

func (f *frontier) goal(d *digest, top float64) {
	if d.goal != nil {
		f.add(&fline{sec: secGoal, text: fmt.Sprintf("- User (T%d): %s", d.goal.turn, capText(d.goal.text, maxGoal)), rank: 2, must: true})
	}
	for i := len(d.requests) - 1; i >= 0; i-- {
		if r := d.requests[i]; r.who == "user" {
			f.add(&fline{sec: secGoal, text: fmt.Sprintf("- Latest request (T%d): %s", r.turn, capText(r.text, maxRequest)), rank: 1, base: 1.5 * top})
			break
		}
	}
}

func (f *frontier) tasks(d *digest, top float64) {
	for i, t := range d.tasks {
		switch t.status {
		case "completed", "done":
			f.add(&fline{sec: secDone, text: fmt.Sprintf("- %s (T%d)", t.text, t.turn), rank: float64(i), base: 0.05 * top})
		default:
			f.add(&fline{sec: secRemaining, text: fmt.Sprintf("- [%s] %s (T%d)", t.status, t.text, t.turn), rank: float64(-i), base: 0.4 * top})
		}
	}
	// What failed and works now, one line per command or tool: the latest
	// error quoted, the count of the others.
	type fixed struct {
		last  errorNote
		count int
	}
	bySource := map[string]*fixed{}
	var order []string
	for _, e := range d.errors {
		if e.resolved < 0 {
			continue
		}
		fx := bySource[e.source]
		if fx == nil {
			fx = &fixed{}
			bySource[e.source] = fx
			order = append(order, e.source)
		}
		fx.count++
		// The latest failure, quoted by its first error line: the
		// specific one, before the runner's summary ("FAIL", an exit code).
		if fx.count == 1 || e.turn > fx.last.turn {
			fx.last = e
		}
	}
	for _, src := range order {
		fx := bySource[src]
		more := ""
		if fx.count > 1 {
			more = fmt.Sprintf(" (and %d earlier errors)", fx.count-1)
		}
		f.add(&fline{sec: secDone, text: fmt.Sprintf("- %s works again (T%d); it had failed with: %s%s", src, fx.last.resolved, fx.last.line, more), rank: float64(fx.last.resolved), base: 0.05 * top})
	}
}

// next is the assistant's last statement before the cut: what it was
// about to do, or what it asked.
func (f *frontier) next(msgs []transcript.Message, firstTurn int, top float64) {
	turns := transcript.BuildTurns(msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != transcript.RoleAssistant {
			continue
		}
		for j := len(m.Parts) - 1; j >= 0; j-- {
			p := &m.Parts[j]
			if p.Kind != transcript.PartText || strings.TrimSpace(p.Text) == "" {
				continue
			}
			text := lastSentences(p.Text, maxNext)
			turn := firstTurn + max(transcript.TurnOf(turns, i), 0)
			f.add(&fline{sec: secNext, text: fmt.Sprintf("- Assistant (T%d), last: %s", turn, text), rank: 1, base: top})
			return
		}
	}
}

// gist is a text's letters and digits, lower-cased: two notes with one
// gist say the same thing ("4. **All handlers** now use X" and "All
// handlers now use X").
func gist(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' && b.Len() > 0 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// commandGist is a command without the filters after its first pipe
// ("go test ./... 2>&1 | tail -20" and "… | tail -30" run one thing).
func commandGist(cmd string) string {
	if i := strings.Index(cmd, " | "); i > 0 {
		cmd = cmd[:i]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cmd), "2>&1"))
}

// lastSentences is the end of a text, up to about n bytes of whole
// sentences.
func lastSentences(text string, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if l = normalize(l); l != "" {
			lines = append(lines, l)
		}
	}
	var ss []string
	for _, l := range lines {
		ss = append(ss, sentences(l)...)
	}
	out := ""
	for i := len(ss) - 1; i >= 0; i-- {
		next := ss[i]
		if out != "" {
			next += " " + out
		}
		if len(next) > n && out != "" {
			break
		}
		out = next
	}
	return capText(out, n)
}

func (f *frontier) files(d *digest, top float64) {
	for _, p := range d.fileOrder {
		u := d.files[p]
		if len(u.actions) == 0 || len(u.actions) == 1 && u.actions[0] == "mentioned" {
			continue // a name in play, not a file worked on
		}
		acts := make([]string, 0, len(u.actions))
		for _, a := range u.actions {
			if a == "mentioned" {
				continue
			}
			if c := u.counts[a]; c > 1 {
				acts = append(acts, fmt.Sprintf("%s ×%d", a, c))
			} else {
				acts = append(acts, a)
			}
		}
		desc := capText(strings.Join(acts, ", "), maxFileDesc)
		f.add(&fline{sec: secFiles, text: fmt.Sprintf("- %s — %s; last %s T%d", f.rel(p), desc, u.lastAction, u.last), rank: float64(u.last), base: 0.02 * top})
	}
}

func (f *frontier) commands(d *digest, top float64) {
	// One line per command, whatever output filter followed it: the
	// latest spelling that worked.
	latest := map[string]*commandUse{}
	for _, c := range d.commandOrder {
		u := d.commands[c]
		if !u.lastOK || u.pending {
			continue
		}
		k := commandGist(u.cmd)
		if prev := latest[k]; prev == nil || u.last >= prev.last {
			latest[k] = u
		}
	}
	for k := range latest {
		f.workingCommands[k] = true
	}
	for _, c := range d.commandOrder {
		u := d.commands[c]
		if latest[commandGist(u.cmd)] != u {
			continue
		}
		runs := ""
		if u.runs > 1 {
			runs = fmt.Sprintf(" ×%d", u.runs)
		}
		l := &fline{sec: secCommands, text: fmt.Sprintf("- `%s` → ok%s, last T%d", u.cmd, runs, u.last), rank: float64(u.last), base: 0.03 * top}
		if s := f.index.Stat(salience.Entity{Kind: salience.Command, Text: u.cmd}); s != nil {
			l.ents = append(l.ents, s)
		}
		f.add(l)
	}
}

func (f *frontier) errorLines(d *digest, top float64) {
	for _, e := range d.errors {
		if e.resolved >= 0 {
			continue
		}
		f.add(&fline{sec: secErrors, text: fmt.Sprintf("- T%d %s: %s", e.turn, e.source, e.line), rank: float64(e.turn), base: 0.2 * top})
	}
}

func (f *frontier) earlier(d *digest, top float64) {
	for i, r := range d.requests {
		who := r.who
		base := 0.03 * top
		if who == "earlier summary" {
			base = 0.05 * top
		}
		f.add(&fline{sec: secEarlier, text: fmt.Sprintf("- T%d %s: %s", r.turn, who, capText(r.text, maxEarlier)), rank: float64(i), base: base})
	}
	seen := map[string]bool{}
	for i, n := range d.decisions {
		k := gist(n.text)
		if seen[k] {
			continue
		}
		seen[k] = true
		f.add(&fline{sec: secEarlier, text: fmt.Sprintf("- T%d %s decided: %s", n.turn, n.who, capText(n.text, maxEarlier)), rank: float64(i) - 0.5, base: 0.05 * top})
	}
}

// names lists every entity as an item of the inline list: the cheapest
// way to keep a name the rest of the summary does not carry.
func (f *frontier) names(limit int) {
	for i, s := range f.index.Ranked() {
		if i >= limit && !f.factNames[s.Text] {
			continue // past what any budget of this summary could list
		}
		text := s.Text
		if s.Kind == salience.Command {
			text = "`" + text + "`"
		}
		l := &fline{sec: secNames, text: text, rank: s.Score, ents: []*salience.Stat{s}}
		if f.factNames[s.Text] {
			// A key fact's name (the retention report checks it): cheap to
			// keep, so kept whenever the budget allows.
			l.base = 0.5 * f.top
		}
		f.lines = append(f.lines, l)
	}
}

// fit chooses the lines within budget tokens and renders them.
func (f *frontier) fit(c TokenCounter, budget int) (string, int) {
	covered := map[*salience.Stat]bool{}
	for s := range f.visible {
		covered[s] = true
	}
	used := countTokens(c, f.header) + 1
	inSection := [nSections]int{}
	headerCost := func(sec int) int {
		if inSection[sec] > 0 {
			return 0
		}
		return countTokens(c, "## "+sectionTitles[sec]) + 2
	}
	// The names in play are an index beside the frontier, not the
	// frontier: they get at most namesShare of the budget.
	names, namesCap := 0, int(namesShare*float64(budget))
	rules, rulesCap := 0, int(rulesShare*float64(budget))
	take := func(l *fline) {
		used += l.tokens + headerCost(l.sec)
		switch l.sec {
		case secNames:
			names += l.tokens
		case secRules:
			rules += l.tokens
		}
		inSection[l.sec]++
		l.chosen = true
		for _, s := range l.ents {
			covered[s] = true
		}
	}
	for _, l := range f.lines {
		if l.sec == secNames {
			l.tokens = countTokens(c, l.text) + 1 // ", "
		} else {
			l.tokens = countTokens(c, l.text) + 1
		}
		if l.must {
			take(l)
		}
	}
	value := func(l *fline) float64 {
		v := l.base
		for _, s := range l.ents {
			if !covered[s] {
				v += s.Score
			}
		}
		return v
	}
	q := &lineQueue{}
	for _, l := range f.lines {
		if !l.chosen {
			if v := value(l); v > 0 {
				heap.Push(q, queued{l, v / float64(l.tokens+headerCost(l.sec))})
			}
		}
	}
	// Lazy greedy: a line's density only falls as others are taken, so the
	// top of the queue, once re-valued, is taken if it still leads.
	for q.Len() > 0 && used < budget {
		top := heap.Pop(q).(queued)
		v := value(top.l)
		if v <= 0 {
			continue
		}
		cost := top.l.tokens + headerCost(top.l.sec)
		d := v / float64(cost)
		if q.Len() > 0 && d < (*q)[0].density {
			heap.Push(q, queued{top.l, d})
			continue
		}
		if used+cost > budget || top.l.sec == secNames && names+cost > namesCap || top.l.sec == secRules && rules+cost > rulesCap {
			continue
		}
		take(top.l)
	}
	text := f.render()
	n := countTokens(c, text)
	// Line counts are estimates of the rendered whole: drop the least
	// dense lines until it fits.
	for n > budget {
		var worst *fline
		worstD := 0.0
		for _, l := range f.lines {
			if !l.chosen || l.must {
				continue
			}
			d := (l.base + entScore(l)) / float64(l.tokens)
			if worst == nil || d < worstD {
				worst, worstD = l, d
			}
		}
		if worst == nil {
			break
		}
		worst.chosen = false
		text = f.render()
		n = countTokens(c, text)
	}
	return text, n
}

func entScore(l *fline) float64 {
	v := 0.0
	for _, s := range l.ents {
		v += s.Score
	}
	return v
}

func (f *frontier) render() string {
	var b strings.Builder
	b.WriteString(f.header)
	b.WriteString("\n")
	bySection := [nSections][]*fline{}
	for _, l := range f.lines {
		if l.chosen {
			bySection[l.sec] = append(bySection[l.sec], l)
		}
	}
	for sec, ls := range bySection {
		if len(ls) == 0 {
			continue
		}
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].rank > ls[j].rank })
		fmt.Fprintf(&b, "\n## %s\n", sectionTitles[sec])
		if sec == secNames {
			texts := make([]string, len(ls))
			for i, l := range ls {
				texts[i] = l.text
			}
			b.WriteString(strings.Join(texts, ", "))
			b.WriteString("\n")
			continue
		}
		for _, l := range ls {
			b.WriteString(l.text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

type queued struct {
	l       *fline
	density float64
}

type lineQueue []queued

func (q lineQueue) Len() int { return len(q) }
func (q lineQueue) Less(i, j int) bool {
	if q[i].density != q[j].density {
		return q[i].density > q[j].density
	}
	return q[i].l.text < q[j].l.text
}
func (q lineQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *lineQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *lineQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// Working-state weights, as shares of the most salient name's score: what
// a continuation that goes on editing a file needs is what it last put
// there, and what it goes on fixing is the output that still fails.
const (
	stateValue   = 1.0
	failingValue = 1.0
	// excerptValue is what a verbatim line of the latest exchanges is
	// worth beyond its names, the newest first: it fills what room the
	// frontier leaves.
	excerptValue = 0.1
	// stateShareMax is the most of the budget one file's content takes
	// verbatim; past it the summary quotes its head and names its recall
	// handle.
	stateShareMax = 0.2
	// failingLines is how much of a failing output's end is quoted.
	failingBytes = 1500
	maxExcerpt   = 1200
	maxExcerptIO = 500
)

// state quotes, for every file the span wrote, the last content written
// into it (an edit's new text, a write's whole content), newest first in
// value; a content the messages kept after the summary already show is
// left out.
func (f *frontier) state(d *digest, top float64, req Request) {
	var following *strings.Builder
	lastTurn := req.FromTurn
	for _, p := range d.fileOrder {
		if u := d.files[p]; u.written != nil {
			lastTurn = max(lastTurn, u.writtenTurn)
		}
	}
	budget := max(req.Budget, 200)
	for _, p := range d.fileOrder {
		u := d.files[p]
		if u.written == nil {
			continue
		}
		content := strings.Trim(u.written.Content, "\n")
		if following == nil {
			following = &strings.Builder{}
			for i := range req.Following {
				writeModelText(following, &req.Following[i])
			}
		}
		if first := firstSignificantLine(content); first != "" && strings.Contains(following.String(), first) {
			continue
		}
		what := "last edit, new text"
		if u.written.Whole {
			what = "last written whole"
		}
		head := fmt.Sprintf("- `%s` (T%d, %s):", f.rel(p), u.writtenTurn, what)
		limit := int(stateShareMax * float64(budget) * 3) // bytes, about 3 a token
		body := content
		if len(body) > limit {
			body = capLines(body, limit)
			if req.Recall != nil {
				head += " (abridged; all of it: recall " + req.Recall(u.written.Content) + ")"
			} else {
				head += " (abridged)"
			}
		}
		age := float64(lastTurn - u.writtenTurn)
		f.add(&fline{sec: secState, text: head + "\n```\n" + body + "\n```", rank: float64(u.writtenTurn),
			base: stateValue * top * math.Exp2(-age/4)})
	}
}

// failing quotes the end of the last output that failed and that nothing
// since answered with a success: the error a continuation goes on fixing.
func (f *frontier) failing(d *digest, top float64) {
	if len(d.failures) == 0 {
		return
	}
	// The latest failure that says what failed: a search that found
	// nothing exits 1 with nothing to quote.
	var fl failure
	for k := len(d.failures) - 1; k >= 0 && fl.text == ""; k-- {
		if t := d.failures[k].text; !facts.IsPlaceholder(t) && len(facts.ErrorLines(t, 1)) > 0 {
			fl = d.failures[k]
		}
	}
	text := strings.TrimSpace(fl.text)
	if text == "" {
		return
	}
	if len(text) > failingBytes {
		text = "…" + text[runeStart(text, len(text)-failingBytes):]
	}
	f.add(&fline{sec: secFailing, text: fmt.Sprintf("- T%d %s failed:\n```\n%s\n```", fl.turn, fl.source, text), base: failingValue * top})
}

// excerpts offers the span's latest messages verbatim (a long text or
// output abridged to its head and tail), newest first in value, within
// what a budget of this size could hold.
func (f *frontier) excerpts(req Request, top float64) {
	msgs := req.Messages
	turns := transcript.BuildTurns(msgs)
	room := 4 * 4 * max(req.Budget, 200) // bytes worth reading: four budgets' worth
	k := 0
	for i := len(msgs) - 1; i >= 0 && room > 0; i-- {
		m := &msgs[i]
		if m.Origin == transcript.OriginInjected || m.Origin == transcript.OriginSummary || m.Role == transcript.RoleSystem || m.Role == transcript.RoleDeveloper {
			continue
		}
		turn := req.FromTurn + max(transcript.TurnOf(turns, i), 0)
		for j := len(m.Parts) - 1; j >= 0; j-- {
			p := &m.Parts[j]
			var text string
			switch p.Kind {
			case transcript.PartText:
				if strings.TrimSpace(p.Text) == "" || facts.IsPlaceholder(p.Text) {
					continue
				}
				who := "assistant"
				if m.Role == transcript.RoleUser {
					who = "user"
				}
				body := abridge(strings.TrimSpace(p.Text), maxExcerpt)
				if f.quoted(normalize(body)) {
					continue // the goal or a request line has it already
				}
				text = fmt.Sprintf("- T%d %s: %s", turn, who, body)
			case transcript.PartToolCall:
				text = fmt.Sprintf("- T%d → %s %s", turn, p.ToolName, abridge(callGist(p), maxExcerptIO))
			case transcript.PartToolResult:
				if strings.TrimSpace(p.Text) == "" || facts.IsPlaceholder(p.Text) {
					continue
				}
				text = fmt.Sprintf("- T%d ← %s", turn, abridge(strings.TrimSpace(p.Text), maxExcerptIO))
			default:
				continue
			}
			room -= len(text)
			f.add(&fline{sec: secExcerpts, text: text, rank: float64(i) + float64(j)/1000, base: excerptValue * top * math.Pow(0.9, float64(k))})
			k++
		}
	}
}

// quoted reports whether a line of the frontier already holds text.
func (f *frontier) quoted(text string) bool {
	for _, l := range f.lines {
		if l.sec != secExcerpts && strings.Contains(l.text, text) {
			return true
		}
	}
	return false
}

// callGist is what a call did, in a line: its command, else its target
// and arguments.
func callGist(p *transcript.Part) string {
	args := facts.Args(p.Args)
	if cmd := facts.CommandText(args); cmd != "" {
		return cmd
	}
	if args == nil {
		return p.Args
	}
	return normalize(p.Args)
}

// abridge keeps text whole up to n bytes, else its head and tail.
func abridge(text string, n int) string {
	if len(text) <= n {
		return text
	}
	h := runeStart(text, n*2/3)
	t := runeStart(text, len(text)-n/3)
	return text[:h] + " … " + text[t:]
}

// capLines keeps the whole lines of text that fit n bytes, marking how
// many were left.
func capLines(text string, n int) string {
	lines := strings.Split(text, "\n")
	used := 0
	for i, l := range lines {
		if used+len(l)+1 > n && i > 0 {
			return strings.Join(lines[:i], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-i)
		}
		used += len(l) + 1
	}
	return text
}

// firstSignificantLine is the first line of text that says something
// (at least 12 bytes once trimmed).
func firstSignificantLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); len(l) >= 12 {
			return l
		}
	}
	return ""
}

// writeModelText writes what the model reads of m: its texts, results
// and calls' arguments.
func writeModelText(b *strings.Builder, m *transcript.Message) {
	for _, p := range m.Parts {
		switch p.Kind {
		case transcript.PartToolCall:
			b.WriteString(p.Args)
			if a := facts.Args(p.Args); a != nil {
				for _, w := range facts.WrittenArgs(p.ToolName, a, p.Args) {
					b.WriteString(w.Content)
				}
			}
		default:
			b.WriteString(p.Text)
		}
		b.WriteByte('\n')
	}
}
