package summarize

import (
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/compactd/compactd/compaction/parallel"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/internal/match"
	"github.com/compactd/compactd/compaction/transcript"
)

// Widths notes are capped to. Error lines are capped by facts.ErrorLines,
// so the summary quotes them exactly as the retention report finds them.
const (
	maxSentence = 240
	maxCommand  = 200
	maxErrLine  = 160 // a first line standing in for a failure without error lines
	maxProse    = 160
	maxLine     = 300
)

// A note is something someone said or did in a turn.
type note struct {
	turn int
	who  string
	text string
}

type fileUse struct {
	path    string
	actions []string
	counts  map[string]int
	turn    int
	// last is the turn of the latest action and lastAction what it was:
	// the file's last known state.
	last       int
	lastAction string
	// written is the last content a call wrote into the file in the span
	// (an edit's new text, a write's whole content), writtenTurn its turn.
	written     *facts.Write
	writtenTurn int
}

func (f *fileUse) add(action string) {
	if f.counts == nil {
		f.counts = map[string]int{}
	}
	if f.counts[action] == 0 {
		f.actions = append(f.actions, action)
	}
	f.counts[action]++
}

type commandUse struct {
	cmd      string
	turn     int
	last     int // turn of the latest run
	runs     int
	failures int
	lastOK   bool
	pending  bool // ran, no result seen in the span
}

type errorNote struct {
	turn     int
	key      string // the command or tool+path that failed, to spot a later success
	source   string // how to name it in the summary
	line     string
	resolved int // turn of the later success, -1 when open
}

// A failure is a failed command or tool call's output, kept whole so
// the summary can quote the end of the last one still failing.
type failure struct {
	turn   int
	key    string
	source string
	text   string
}

type task struct {
	turn   int
	who    string
	text   string
	status string // open, in_progress, completed
}

// A digest is what a span says, organized for summaries and facts.
//
// It is one summary's working state, shared by the steps that fill it: hence more than a dozen
// fields.
type digest struct {
	goal         *note
	requests     []note
	replies      []note
	instructions []note
	decisions    []note
	tasks        []task
	files        map[string]*fileUse
	fileOrder    []string
	commands     map[string]*commandUse
	commandOrder []string
	errors       []errorNote
	// failures are the failed results no later run of the same command
	// or call answered with a success, oldest first.
	failures    []failure
	identifiers []string
	seen        map[string]bool
	// mentioned caches what each text names (mentions).
	mentioned map[string]mentioned
	// facts are the span's key facts (facts.Extract): the summary keeps
	// every one it can within its budget.
	facts []facts.Fact
}

type pendingCall struct {
	turn    int
	tool    string
	command string
	key     string
	source  string
}

// The expressions are compiled on first use, not at start: every command
// links this package, and one that never runs it (a status line, a gauge)
// paid for compiling them on each run.
var (
	reURL  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://\S+`) })
	rePath = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:~|\.{1,2})?/?(?:[A-Za-z0-9_.@\-]+/)+[A-Za-z0-9_.@\-]+|\b[A-Za-z0-9_\-]+\.(?:go|py|ts|tsx|js|jsx|mjs|rs|java|kt|c|h|cc|cpp|hpp|rb|php|cs|swift|md|json|jsonl|toml|yaml|yml|sql|sh|lua|txt|mod|sum|lock|cfg|ini|html|css|proto|vue|svelte|dart|ex|exs|zig)\b`)
	})
	reExt        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,5}$`) })
	reIdentifier = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_.:()<>\\-]{1,60})`|\\b(?:[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Za-z][a-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z][a-z0-9]*\\.[A-Z][A-Za-z0-9]*)\\b")
	})
	reRule     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:must|never|always)\b`) })
	reInstruct = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:[-*>]\s*)?(?:please\s+|and\s+)?(?:always|never|don't|do not|must|make sure|remember to|ensure|avoid|from now on|keep using|only use|stick to|no more)\b|(?i)\bfrom now on\b`)
	})
	reDecision = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:decided|decide to|decision|i'll use|i will use|we'll use|we will use|let's use|let's go with|let's keep|going with|go with|i'm going to use|chose|choosing|opted|opt for|instead of|rather than|switch(?:ed|ing)? to|the fix is|the root cause|because)\b`)
	})
	reTask = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:\b(?:TODO|FIXME)\b[:\s]|^\s*[-*]\s*\[ \]\s+|^\s*(?:next steps?|remaining|still need to|left to do|open question|follow[- ]up)\b)`)
	})
)

// decisionWords and taskWords are words every match of reDecision and
// reTask holds, lower-cased: a line without any cannot match, and most
// lines have none. The expressions fold case in Go's backtracker, which
// made them most of the summary's time.
var (
	decisionWords = []string{"decid", "decision", "use", "go with", "going with", "keep", "chose", "choosing", "opt", "instead of", "rather than", "switch", "the fix is", "the root cause", "because"}
	taskWords     = []string{"todo", "fixme", "[ ]", "next step", "remaining", "still need to", "left to do", "open question", "follow"}
)

// pathRuns and identifierRuns run rePath and reIdentifier only where a
// match can be (see match): a path holds a slash or a dot; an identifier a
// backtick, an underscore, or a capital after a lower-case letter, a digit
// or a dot.
var (
	pathRuns = sync.OnceValue(func() *match.Runs {
		return match.NewRuns(rePath(), match.WordBytes+".@-~/", func(run string) bool { return strings.ContainsAny(run, "/.") })
	})
	identifierRuns = sync.OnceValue(func() *match.Runs { return match.NewRuns(reIdentifier(), match.WordBytes+".:()<>-`", mayBeIdentifier) })
)

func mayBeIdentifier(run string) bool {
	for i := 0; i < len(run); i++ {
		switch c := run[i]; {
		case c == '`' || c == '_':
			return true
		case c >= 'A' && c <= 'Z' && i > 0:
			if p := run[i-1]; p >= 'a' && p <= 'z' || p >= '0' && p <= '9' || p == '.' {
				return true
			}
		}
	}
	return false
}

func isDecision(s string) bool { return match.MayHold(s, decisionWords) && reDecision().MatchString(s) }
func isTask(s string) bool     { return match.MayHold(s, taskWords) && reTask().MatchString(s) }

// digestOf reads a span; firstTurn numbers its first turn.
func digestOf(msgs []transcript.Message, firstTurn int) *digest {
	// The key facts are read beside the digest, on another core: neither
	// needs the other until the outline.
	var keyFacts []facts.Fact
	var extracting parallel.WaitGroup // a panic there reaches this goroutine
	extracting.Go(func() { keyFacts = facts.Extract(msgs) })
	d := &digest{files: map[string]*fileUse{}, commands: map[string]*commandUse{}, seen: map[string]bool{}, mentioned: scanAllMentions(msgs)}
	defer func() { extracting.Wait(); d.facts = keyFacts }()
	calls := map[string]pendingCall{}
	turns := transcript.BuildTurns(msgs)
	for ti, t := range turns {
		turn := firstTurn + ti
		for i := t.Start; i < t.End; i++ {
			m := &msgs[i]
			var lastProse string
			for pi := range m.Parts {
				p := &m.Parts[pi]
				switch p.Kind {
				case transcript.PartText:
					d.prose(m, turn, p.Text)
					if m.Role == transcript.RoleAssistant && strings.TrimSpace(p.Text) != "" {
						lastProse = p.Text
					}
				case transcript.PartToolCall:
					c := d.toolCall(turn, p)
					if p.ToolCallID != "" {
						calls[p.ToolCallID] = c
					}
				case transcript.PartToolResult:
					c, ok := calls[p.ToolCallID]
					if !ok {
						c = pendingCall{turn: turn, tool: p.ToolName, key: "tool:" + p.ToolName, source: p.ToolName}
					}
					delete(calls, p.ToolCallID)
					d.toolResult(turn, c, p)
				}
			}
			if lastProse != "" {
				d.replies = append(d.replies, note{turn: turn, who: "assistant", text: capText(firstSentence(lastProse), maxProse)})
			}
		}
	}
	return d
}

func (d *digest) prose(m *transcript.Message, turn int, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	switch {
	case m.Origin == transcript.OriginInjected || m.Role == transcript.RoleSystem || m.Role == transcript.RoleDeveloper:
		// CLAUDE.md, AGENTS.md and system prompts: only their rules matter here.
		for _, line := range strings.Split(text, "\n") {
			if s := normalize(line); s != "" && (reInstruct().MatchString(s) || reRule().MatchString(s)) {
				d.addInstruction(note{turn: turn, who: "project instructions", text: capText(strings.TrimSpace(line), maxLine)})
			}
		}
		d.mentions(text, turn)
		return
	case m.Origin == transcript.OriginSummary:
		// An earlier summary: keep its lines as notes of their own.
		for _, line := range strings.Split(text, "\n") {
			if s := normalize(line); s != "" {
				d.requests = append(d.requests, note{turn: turn, who: "earlier summary", text: capText(s, maxSentence)})
			}
		}
		return
	}
	who := "assistant"
	human := m.Role == transcript.RoleUser
	if human {
		who = "user"
		first := capText(normalize(text), maxSentence*2)
		if d.goal == nil {
			d.goal = &note{turn: turn, who: who, text: first}
		} else {
			d.requests = append(d.requests, note{turn: turn, who: who, text: capText(normalize(text), maxProse)})
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if human && reRule().MatchString(line) {
			d.addInstruction(note{turn: turn, who: who, text: capText(strings.TrimSpace(line), maxLine)})
		}
		if !human && isDecision(line) && len(line) <= maxLine {
			d.decisions = appendNote(d.decisions, d.seen, "decision", note{turn: turn, who: who, text: strings.TrimSpace(line)})
		}
		lineTask := isTask(line)
		if lineTask {
			d.addTask(task{turn: turn, who: who, text: capText(normalize(line), maxSentence), status: "open"})
		}
		for _, s := range sentences(line) {
			if len(s) < 8 {
				continue
			}
			if !lineTask && isTask(s) {
				d.addTask(task{turn: turn, who: who, text: capText(s, maxSentence), status: "open"})
			}
			switch {
			case human && reInstruct().MatchString(s):
				d.addInstruction(note{turn: turn, who: who, text: capText(s, maxSentence)})
			case isDecision(s):
				d.decisions = appendNote(d.decisions, d.seen, "decision", note{turn: turn, who: who, text: capText(s, maxSentence)})
			}
			if human && facts.IsErrorLine(s) && strings.Contains(strings.ToLower(s), "error") {
				d.addError(errorNote{turn: turn, key: "user", source: "reported by the user", line: capText(s, maxErrLine), resolved: -1})
			}
		}
	}
	d.mentions(text, turn)
}

// mentions records the paths and identifiers prose names. Agents repeat
// much of their injected text turn after turn (reminders, listings), so
// what a text names is read once per span.
func (d *digest) mentions(text string, turn int) {
	m, ok := d.mentioned[text]
	if !ok {
		m = scanMentions(text)
		d.mentioned[text] = m
	}
	for _, p := range m.paths {
		d.file(p, "mentioned", turn)
	}
	for _, id := range m.ids {
		if !d.seen["id:"+id] {
			d.seen["id:"+id] = true
			d.identifiers = append(d.identifiers, id)
		}
	}
}

// scanAllMentions reads what every prose text of msgs names, on every
// core: the digest then walks the span in order from what was read.
func scanAllMentions(msgs []transcript.Message) map[string]mentioned {
	var texts []string
	seen := map[string]bool{}
	for i := range msgs {
		for _, p := range msgs[i].Parts {
			if p.Kind == transcript.PartText && !seen[p.Text] && strings.TrimSpace(p.Text) != "" {
				seen[p.Text] = true
				texts = append(texts, p.Text)
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(texts)/64))
	found := make([]mentioned, len(texts))
	var wg parallel.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(texts); i += workers {
				found[i] = scanMentions(texts[i])
			}
		})
	}
	wg.Wait()
	out := make(map[string]mentioned, len(texts))
	for i, t := range texts {
		out[t] = found[i]
	}
	return out
}

// mentioned is what a text names, in order: paths, then identifiers.
type mentioned struct{ paths, ids []string }

func scanMentions(text string) mentioned {
	var m mentioned
	clean := text
	if strings.Contains(text, "://") {
		clean = reURL().ReplaceAllString(text, " ")
	}
	clean = pathRuns().ReplaceAllFunc(clean, func(p string) string {
		if !isPathLike(p) {
			return p
		}
		m.paths = append(m.paths, strings.TrimRight(p, ".:,"))
		return " "
	})
	for _, sub := range identifierRuns().FindAllSubmatch(clean) {
		id := sub[0]
		if sub[1] != "" {
			id = sub[1]
		}
		id = strings.Trim(id, "`")
		if isPathLike(id) || len(id) < 3 {
			continue
		}
		m.ids = append(m.ids, id)
	}
	return m
}

func (d *digest) addInstruction(n note) {
	d.instructions = appendNote(d.instructions, d.seen, "instruction", n)
}

func appendNote(list []note, seen map[string]bool, kind string, n note) []note {
	key := kind + ":" + strings.ToLower(n.text)
	if seen[key] {
		return list
	}
	seen[key] = true
	return append(list, n)
}

func (d *digest) addTask(t task) {
	for i := range d.tasks {
		if strings.EqualFold(d.tasks[i].text, t.text) {
			d.tasks[i].status = t.status
			return
		}
	}
	d.tasks = append(d.tasks, t)
}

func (d *digest) addError(e errorNote) {
	for i := range d.errors {
		if d.errors[i].line == e.line && d.errors[i].key == e.key {
			d.errors[i].resolved = -1
			return
		}
	}
	d.errors = append(d.errors, e)
}

func (d *digest) file(path, action string, turn int) {
	if path == "" {
		return
	}
	f := d.files[path]
	if f == nil {
		f = &fileUse{path: path, turn: turn}
		d.files[path] = f
		d.fileOrder = append(d.fileOrder, path)
	}
	if action == "" {
		return // only made sure the file is known
	}
	f.add(action)
	if action != "mentioned" || f.lastAction == "" {
		f.last, f.lastAction = turn, action
	}
}

// Tool families by lower-cased name, across agents (Claude Code, Codex,
// Gemini CLI, Cline, jp, OpenAI/Anthropic examples).
var (
	readTools   = set("read", "read_file", "view", "cat", "fs_read_file", "readfile", "open_file", "notebookread", "read_many_files", "view_file")
	editTools   = set("edit", "multiedit", "replace", "edit_file", "fs_modify_file", "apply_diff", "replace_in_file", "notebookedit", "str_replace", "search_replace")
	writeTools  = set("write", "write_file", "create_file", "fs_create_file", "write_to_file")
	searchTools = set("grep", "glob", "search", "find", "list_files", "ls", "search_files", "codebase_search", "fs_list_files", "fs_grep_files", "list_directory", "search_file_content", "grep_search", "file_search")
	todoTools   = set("todowrite", "update_plan", "write_todos", "todo_write")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func (d *digest) toolCall(turn int, p *transcript.Part) pendingCall {
	tool := strings.ToLower(p.ToolName)
	c := pendingCall{turn: turn, tool: p.ToolName, source: p.ToolName}
	args := facts.Args(p.Args)
	path := facts.TargetPath(args)
	for _, w := range facts.WrittenArgs(p.ToolName, args, p.Args) {
		if strings.TrimSpace(w.Content) == "" {
			continue
		}
		d.file(w.Path, "", turn)
		f := d.files[w.Path]
		f.written, f.writtenTurn = &w, turn
	}
	switch {
	case facts.IsShellTool(tool):
		cmd := facts.CommandText(args)
		if cmd == "" && args == nil {
			cmd = p.Args
		}
		cmd = capText(normalize(cmd), maxCommand)
		if cmd == "" {
			break
		}
		c.command, c.key, c.source = cmd, "cmd:"+cmd, "`"+cmd+"`"
		u := d.commands[cmd]
		if u == nil {
			u = &commandUse{cmd: cmd, turn: turn}
			d.commands[cmd] = u
			d.commandOrder = append(d.commandOrder, cmd)
		}
		u.runs++
		u.last = turn
		u.pending = true
		for _, pf := range facts.PatchFiles(cmd) {
			d.file(pf.Path, pf.Action, turn)
		}
		return c
	case tool == "apply_patch":
		for _, pf := range facts.PatchFiles(facts.PatchText(p.Args)) {
			d.file(pf.Path, pf.Action, turn)
		}
	case tool == "str_replace_editor" || tool == "str_replace_based_edit_tool":
		switch facts.StringArg(args, "command") {
		case "view":
			d.file(path, "read", turn)
		case "create":
			d.file(path, "wrote", turn)
		default:
			d.file(path, "edited", turn)
		}
	case readTools[tool]:
		d.file(path, "read", turn)
	case editTools[tool]:
		d.file(path, "edited", turn)
	case writeTools[tool]:
		d.file(path, "wrote", turn)
	case searchTools[tool]:
		if path != "" {
			d.file(path, "searched", turn)
		}
	case todoTools[tool]:
		d.todos(turn, args)
	default:
		d.file(path, "used by "+p.ToolName, turn)
	}
	c.key = "tool:" + p.ToolName + ":" + path
	if path != "" {
		c.source = p.ToolName + " " + path
	}
	return c
}

// todos reads a todo-list tool call (Claude TodoWrite, Codex update_plan,
// Gemini write_todos): the latest list is the plan's state.
func (d *digest) todos(turn int, args map[string]any) {
	for _, t := range facts.Todos(args) {
		status := strings.TrimSpace(t.Status)
		if status == "" || status == "pending" {
			status = "open"
		}
		d.addTask(task{turn: turn, who: "plan", text: capText(normalize(t.Text), maxSentence), status: status})
	}
}

func (d *digest) toolResult(turn int, c pendingCall, p *transcript.Part) {
	failed := facts.Failed(p)
	if c.command != "" {
		if u := d.commands[c.command]; u != nil {
			u.pending = false
			u.lastOK = !failed
			if failed {
				u.failures++
			}
		}
	}
	if !failed {
		for i := range d.errors {
			if d.errors[i].key == c.key && d.errors[i].resolved < 0 {
				d.errors[i].resolved = turn
			}
		}
		d.failures = slices.DeleteFunc(d.failures, func(f failure) bool { return f.key == c.key })
		return
	}
	d.failures = slices.DeleteFunc(d.failures, func(f failure) bool { return f.key == c.key })
	d.failures = append(d.failures, failure{turn: turn, key: c.key, source: c.source, text: p.Text})
	lines := facts.ErrorLines(p.Text, facts.MaxErrorLines)
	if len(lines) == 0 {
		lines = []string{capText(firstLine(p.Text), maxErrLine)}
	}
	for _, l := range lines {
		if l != "" {
			d.addError(errorNote{turn: turn, key: c.key, source: c.source, line: l, resolved: -1})
		}
	}
}

func isPathLike(p string) bool {
	p = strings.TrimRight(p, ".:,")
	if strings.Contains(p, "://") || len(p) < 4 {
		return false
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		return strings.Count(p, "/") >= 1 && len(p) > 2
	}
	if reExt().MatchString(p) && !strings.Contains(p, "(") {
		return true
	}
	return strings.Count(p, "/") >= 2
}

// normalize collapses whitespace so a fact reads the same wherever it is.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// capText cuts s to at most n bytes on a rune boundary, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:runeStart(s, n-3)]) + "…"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return normalize(s)
}

func firstSentence(s string) string {
	if ss := sentences(firstLine(s)); len(ss) > 0 {
		return ss[0]
	}
	return firstLine(s)
}

// sentences splits one line of prose where a period, question or
// exclamation mark is followed by a space — not inside "time.Sleep",
// "lru.go" or "v1.2".
func sentences(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '.', '!', '?':
			if i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' {
				if s := normalize(line[start : i+1]); s != "" {
					out = append(out, s)
				}
				start = i + 1
			}
		}
	}
	if s := normalize(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
