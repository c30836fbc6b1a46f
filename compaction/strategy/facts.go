package strategy

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

var (
	// pathToken matches a file path with a directory and an extension.
	pathToken = regexp.MustCompile(`(?:[A-Za-z]:)?(?:[\w.@~-]+)?(?:/[\w.@-]+)+\.[A-Za-z][\w]{0,7}\b|\b[\w.-]+/[\w./-]*\.[A-Za-z]\w{0,7}\b`)
	// backticked identifiers: `ReconcileLedger`, `ledger.Apply`.
	identToken   = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*)`")
	decisionLine = regexp.MustCompile(`(?i)\b(decided|decision|we'll go with|going with|instead of|let's use|we will use|chose|settled on)\b`)
	taskLine     = regexp.MustCompile(`(?i)^\s*(?:[-*]\s*\[ \]|TODO\b|next step|remaining:)`)
	patchFile    = regexp.MustCompile(`(?m)^\*\*\* (?:Update|Add|Delete) File: (.+)$`)
)

// ExtractFacts lists the key facts of msgs a compaction should keep: file
// paths touched or named, commands run, error lines, identifiers, standing
// instructions, decisions and open tasks. Each fact appears once, in order
// of first mention. It is deterministic per part, which Retain relies on.
func ExtractFacts(msgs []transcript.Message) []Fact {
	var fx factSet
	for i := range msgs {
		fx.message(&msgs[i])
	}
	return fx.list
}

type factSet struct {
	seen map[Fact]bool
	list []Fact
}

func (fx *factSet) add(kind, text string) {
	text = strings.TrimSpace(text)
	if text == "" || len(text) > 300 {
		return
	}
	f := Fact{Kind: kind, Text: text}
	if fx.seen == nil {
		fx.seen = map[Fact]bool{}
	}
	if !fx.seen[f] {
		fx.seen[f] = true
		fx.list = append(fx.list, f)
	}
}

func (fx *factSet) message(m *transcript.Message) {
	for j := range m.Parts {
		fx.part(m, &m.Parts[j])
	}
}

// part extracts the facts of one part. Placeholders are skipped: they are
// compaction's own words, not facts of the conversation.
func (fx *factSet) part(m *transcript.Message, p *transcript.Part) {
	switch p.Kind {
	case transcript.PartToolCall:
		if rd, ok := parseRead(p.ToolName, p.Args, ""); ok {
			fx.add(FactPath, rd.display)
		}
		if obj := argsObject(p.Args); obj != nil {
			for _, k := range []string{"file_path", "path", "notebook_path"} {
				if s, ok := obj[k].(string); ok {
					fx.add(FactPath, s)
				}
			}
			if todos, ok := obj["todos"].([]any); ok {
				for _, t := range todos {
					if tm, ok := t.(map[string]any); ok && tm["status"] != "completed" {
						if s, ok := tm["content"].(string); ok {
							fx.add(FactTask, s)
						}
					}
				}
			}
		}
		if cmd := commandOf(p.Args); cmd != "" {
			fx.add(FactCommand, cmd)
		}
		for _, mm := range patchFile.FindAllStringSubmatch(p.Args, -1) {
			fx.add(FactPath, mm[1])
		}
	case transcript.PartToolResult:
		if failed(p) {
			for _, line := range errorLines(p.Text, maxErrorLines) {
				fx.add(FactError, line)
			}
		}
	case transcript.PartText, transcript.PartAttachment:
		if isPlaceholder(p.Text) {
			return
		}
		fx.text(m, p.Text)
	}
}

func (fx *factSet) text(m *transcript.Message, text string) {
	human := m.Role == transcript.RoleUser && (m.Origin == transcript.OriginHuman || m.Origin == "")
	injected := m.Origin == transcript.OriginInjected || m.Role == transcript.RoleSystem || m.Role == transcript.RoleDeveloper
	standing := injected && isStandingInstruction(text)
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if (human || standing) && instructionLine.MatchString(line) {
			fx.add(FactInstruction, line)
		}
		if m.Role == transcript.RoleAssistant && decisionLine.MatchString(line) {
			fx.add(FactDecision, line)
		}
		if taskLine.MatchString(line) {
			fx.add(FactTask, line)
		}
	}
	if injected && !standing {
		return // harness boilerplate: environment listings, reminders
	}
	for _, p := range pathToken.FindAllString(text, -1) {
		if !strings.Contains(p, "://") {
			fx.add(FactPath, p)
		}
	}
	for _, mm := range identToken.FindAllStringSubmatch(text, -1) {
		if len(mm[1]) >= 3 {
			fx.add(FactIdentifier, mm[1])
		}
	}
}

// Retain checks the key facts of original against what view v keeps. A
// part kept unchanged keeps its facts (extraction is per part); for the
// rest, a fact survives if its text appears in a rewritten part, an
// argument or a summary.
func Retain(original []transcript.Message, v *transcript.View) Retention {
	want := ExtractFacts(original)
	if len(want) == 0 {
		return Retention{Score: 1}
	}
	var kept factSet
	var rewritten strings.Builder
	for i := range v.Messages {
		m := &v.Messages[i]
		for j := range m.Parts {
			p := &m.Parts[j]
			if p.Changed {
				rewritten.WriteString(p.Text)
				rewritten.WriteByte('\n')
				rewritten.WriteString(p.Args)
				rewritten.WriteByte('\n')
			}
			kept.part(m, p)
		}
	}
	for _, s := range v.Summaries {
		rewritten.WriteString(s.Text)
		rewritten.WriteByte('\n')
	}
	hay := rewritten.String()
	ret := Retention{Total: len(want)}
	for _, f := range want {
		if kept.seen[f] || (hay != "" && strings.Contains(hay, f.Text)) {
			ret.Kept++
			continue
		}
		ret.Lost = append(ret.Lost, f)
	}
	ret.Score = float64(ret.Kept) / float64(ret.Total)
	return ret
}

// RetentionAtBudget compacts t with auto and with token-budget (the newest whole turns) cut
// to the same token count auto reached, and writes both retention scores: the
// figure the bench report quotes. It returns the two reports.
func RetentionAtBudget(ctx context.Context, w io.Writer, t *transcript.Transcript, c *tokens.Counter) (auto, window *Report, err error) {
	counts, err := CountTranscript(ctx, t, c)
	if err != nil {
		return nil, nil, err
	}
	_, auto, err = Run(ctx, t, c, Options{Counts: counts})
	if err != nil {
		return nil, nil, err
	}
	_, window, err = Run(ctx, t, c, Options{Counts: counts, Strategies: []string{StrategyTokenBudget}, Budget: auto.TokensAfter})
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "at %s tokens (from %s): auto keeps %.1f %% of key facts, a window of the newest turns %.1f %%\n",
		tokens.Thousands(auto.TokensAfter), tokens.Thousands(auto.TokensBefore), 100*auto.Retention.Score, 100*window.Retention.Score)
	return auto, window, nil
}
