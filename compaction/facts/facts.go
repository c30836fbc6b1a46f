package facts

import (
	"regexp"
	"strings"
	"sync"

	"github.com/compactd/compactd/compaction/internal/match"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fact is a key fact of a conversation: what a compaction or a summary
// must not lose. Text is how it appears in the conversation, so keeping it
// means containing Text verbatim.
type Fact struct {
	Kind string `json:"kind"` // one of Kinds
	Text string `json:"text"`
}

// Fact kinds.
const (
	Path        = "path"
	Command     = "command"
	Error       = "error"
	Identifier  = "identifier"
	Instruction = "instruction"
	Decision    = "decision"
	Task        = "task"
)

// Kinds lists the fact kinds in the order reports print them.
func Kinds() []string {
	return []string{Path, Command, Error, Identifier, Instruction, Decision, Task}
}

// maxFactBytes drops longer texts: a fact is a line, not a file.
const maxFactBytes = 300

// MaxErrorLines is how many error lines of one failed result are facts.
const MaxErrorLines = 3

// The expressions are compiled on first use, not at start: every command
// links this package, and one that never runs it (a status line, a gauge)
// paid for compiling them on each run.
var (
	// pathToken matches a file path with a directory and an extension.
	// urlToken matches a URL, whose path part is no file of the project.
	urlToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://\S+`) })
	// A Windows path with backslashes (C:\Users\ada\calc\main.go, as
	// agents on Windows write them) counts from its drive on.
	pathToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:[A-Za-z]:)?(?:[\w.@~-]+)?(?:/[\w.@-]+)+\.[A-Za-z][\w]{0,7}\b|\b[\w.-]+/[\w./-]*\.[A-Za-z]\w{0,7}\b|\b[A-Za-z]:(?:\\[\w.@~-]+)+\.[A-Za-z]\w{0,7}\b`)
	})
	// identToken matches backticked identifiers: `ReconcileLedger`, `ledger.Apply`.
	identToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*)`")
	})
	decisionLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(decided|decision|we'll go with|going with|instead of|let's use|we will use|chose|settled on)\b`)
	})
	taskLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(?:[-*]\s*\[ \]|TODO\b|next step|remaining:)`)
	})
	// ruleWord marks a line that lays down a rule.
	ruleWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(must|never|always)\b`) })
)

// What the expressions are run on: every path and identifier token is a
// run of the characters of its expression, holding a slash (or a
// backslash) or a backtick; every decision or rule line holds one of the
// words (see match). Most of a conversation — tool output, prose — holds none.
var (
	pathRuns = sync.OnceValue(func() *match.Runs {
		return match.NewRuns(pathToken(), match.WordBytes+".@~-/:\\", func(run string) bool { return strings.ContainsAny(run, `/\`) })
	})
	identRuns = sync.OnceValue(func() *match.Runs {
		return match.NewRuns(identToken(), match.WordBytes+".`", func(run string) bool { return strings.IndexByte(run, '`') >= 0 })
	})
	decisionWords = []string{"decided", "decision", "go with", "going with", "instead of", "let's use", "we will use", "chose", "settled on"}
	ruleWords     = []string{"must", "never", "always"}
)

// memoryFiles are the memory files agents load (CLAUDE.md, AGENTS.md,
// GEMINI.md, .clinerules, Aider's CONVENTIONS.md); memoryTags the tags and
// headings harnesses wrap their contents in.
var (
	memoryFiles = []string{"CLAUDE.md", "AGENTS.md", "GEMINI.md", ".clinerules", "CONVENTIONS.md"}
	memoryTags  = []string{"<INSTRUCTIONS>", "<user_instructions>", "# AGENTS.md instructions", "claudeMd"}
)

// IsStandingInstruction reports whether injected text carries standing
// instructions (a memory file's contents) rather than harness boilerplate:
// a tag a harness wraps memory in, or a memory file named as the contents
// that follow — at the start of a line, at the end of a path ("Contents of
// /repo/CLAUDE.md"), or as a heading. A mention in prose is not one: Claude
// Code's list of skills says a skill checks "broken CLAUDE.md rules".
func IsStandingInstruction(text string) bool {
	for _, m := range memoryTags {
		if strings.Contains(text, m) {
			return true
		}
	}
	for _, m := range memoryFiles {
		for from := 0; ; {
			i := strings.Index(text[from:], m)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || text[i-1] == '\n' || text[i-1] == '/' || strings.HasSuffix(text[:i], "# ") || strings.HasSuffix(text[:i], "Contents of ") {
				return true
			}
			from = i + len(m)
		}
	}
	return false
}

// LaysDownRule reports whether text says must, never or always: the
// lines of a prompt or memory file that are instructions.
func LaysDownRule(text string) bool {
	return match.MayHold(text, ruleWords) && ruleWord().MatchString(text)
}

func isDecision(line string) bool {
	return match.MayHold(line, decisionWords) && decisionLine().MatchString(line)
}

// Extract lists the key facts of msgs: file paths touched or named,
// commands run, the error lines of failed results, backticked identifiers,
// standing instructions, decisions and open tasks. Each fact appears once,
// in order of first mention. Extraction is per part — a part yields the
// same facts wherever it stands — which the retention report relies on to
// credit parts a compaction kept unchanged.
func Extract(msgs []transcript.Message) []Fact {
	var s Set
	for i := range msgs {
		s.AddMessage(&msgs[i])
	}
	return s.List()
}

// Set collects facts part by part, each once, in order of first mention.
// The zero value is empty and ready to use.
type Set struct {
	seen map[Fact]bool
	list []Fact
}

// List returns the facts collected, in order of first mention.
func (s *Set) List() []Fact { return s.list }

// Len is the number of distinct facts collected.
func (s *Set) Len() int { return len(s.list) }

// Has reports whether f was collected.
func (s *Set) Has(f Fact) bool { return s.seen[f] }

// AddMessage collects the facts of every part of m.
func (s *Set) AddMessage(m *transcript.Message) {
	for j := range m.Parts {
		s.AddPart(m, &m.Parts[j])
	}
}

// AddPart collects the facts of part p of message m. Compaction
// placeholders are skipped: they are compaction's words, not the
// conversation's.
func (s *Set) AddPart(m *transcript.Message, p *transcript.Part) {
	switch p.Kind {
	case transcript.PartToolCall:
		s.toolCall(p)
	case transcript.PartToolResult:
		if Failed(p) {
			for _, line := range ErrorLines(p.Text, MaxErrorLines) {
				s.add(Error, line)
			}
		}
	case transcript.PartText, transcript.PartAttachment:
		if IsPlaceholder(p.Text) {
			return
		}
		s.text(m, p.Text)
	}
}

func (s *Set) add(kind, text string) {
	// Facts are compared and quoted as valid UTF-8: a summary can only
	// quote what it can write.
	text = strings.TrimSpace(strings.ToValidUTF8(text, "\uFFFD"))
	if text == "" || len(text) > maxFactBytes {
		return
	}
	f := Fact{Kind: kind, Text: text}
	if s.seen == nil {
		s.seen = map[Fact]bool{}
	}
	if !s.seen[f] {
		s.seen[f] = true
		s.list = append(s.list, f)
	}
}

func (s *Set) toolCall(p *transcript.Part) {
	if rd, ok := ParseRead(p.ToolName, p.Args, ""); ok {
		s.add(Path, rd.Display)
	}
	if obj := Args(p.Args); obj != nil {
		for _, k := range PathKeys {
			if v, ok := obj[k].(string); ok {
				s.add(Path, v)
			}
		}
		for _, t := range OpenTodos(obj) {
			s.add(Task, t)
		}
		if !isEditorTool(p.ToolName) {
			s.add(Command, CommandText(obj))
		}
	}
	for _, pf := range PatchFiles(PatchText(p.Args)) {
		s.add(Path, pf.Path)
	}
}

func (s *Set) text(m *transcript.Message, text string) {
	human := m.Role == transcript.RoleUser && (m.Origin == transcript.OriginHuman || m.Origin == "")
	injected := m.Origin == transcript.OriginInjected || m.Role == transcript.RoleSystem || m.Role == transcript.RoleDeveloper
	standing := injected && IsStandingInstruction(text)
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if (human || standing) && LaysDownRule(line) {
			s.add(Instruction, line)
		}
		if m.Role == transcript.RoleAssistant && isDecision(line) {
			s.add(Decision, line)
		}
		if taskLine().MatchString(line) {
			s.add(Task, line)
		}
	}
	if injected && !standing {
		return // harness boilerplate: environment listings, reminders
	}
	// The byte tests skip the expressions where they cannot match (every
	// path has a slash, every identifier token a backtick).
	if strings.IndexByte(text, '/') >= 0 {
		clean := text
		if strings.Contains(text, "://") {
			clean = urlToken().ReplaceAllString(text, " ")
		}
		for _, p := range pathRuns().FindAll(clean) {
			s.add(Path, p)
		}
	}
	if strings.IndexByte(text, '`') >= 0 {
		for _, mm := range identRuns().FindAllSubmatch(text) {
			if len(mm[1]) >= 3 {
				s.add(Identifier, mm[1])
			}
		}
	}
}
