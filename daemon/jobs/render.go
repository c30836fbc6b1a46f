package jobs

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
)

// renderDryRun is the Markdown report of a dry run: the figures, each
// step, what retention lost, and the per-turn diff.
// renderTradeOff is the dry run's table of budgets: what each takes and
// keeps, the knee marked, and how to ask for one.
func renderTradeOff(b *strings.Builder, points []strategy.TradePoint) {
	if len(points) == 0 {
		return
	}
	b.WriteString("\n## Trade-off\n\nThe same compaction at a few budgets: its size, and the share of the conversation's names (files, identifiers, commands, errors, URLs, weighted by how recent and how used) it still holds. Past the knee, more tokens keep little more. Ask for one with `compactd compact --budget N`, `[compact] budget = N` or the \"Compact to fit…\" action.\n\n| Budget | Tokens after | Names kept | |\n|---:|---:|---:|---|\n")
	for _, p := range points {
		knee := ""
		if p.Knee {
			knee = "knee"
		}
		fmt.Fprintf(b, "| %d | %d | %.0f %% | %s |\n", p.Budget, p.Tokens, 100*p.Kept, knee)
	}
}

func renderDryRun(ctx context.Context, r *Runner, src *source, out *compacted, rep *strategy.Report, opts strategy.Options) string {
	now := r.now()
	var b strings.Builder
	fmt.Fprintf(&b, "# Dry run: %s\n\n", src.path)
	fmt.Fprintf(&b, "- Format: %s\n- Pipeline: %s\n- Date: %s\n", src.codec.Format(), strings.Join(pipelineNames(opts), " → "), now.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "- Tokens: %d → %d (%s)\n\n", rep.TokensBefore, rep.TokensAfter, percentSaved(rep.TokensBefore, rep.TokensAfter))
	b.WriteString("## Steps\n\n| Strategy | Events removed | Tokens saved |\n|---|---:|---:|\n")
	for _, s := range rep.Steps {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", s.Strategy, s.EventsRemoved, s.TokensSaved)
	}
	fmt.Fprintf(&b, "\n## Retention\n\nScore %.2f (%d of %d key facts kept).\n", rep.Retention.Score, rep.Retention.Kept, rep.Retention.Total)
	for _, f := range rep.Retention.Lost {
		fmt.Fprintf(&b, "- lost %s: `%s`\n", f.Kind, f.Text)
	}
	if files := rep.Retention.ContentsLost; len(files) > 0 {
		b.WriteString("\nNo copy of these files' contents is left (the paths may survive in placeholders); the agent would read them again:\n\n")
		for _, f := range files {
			fmt.Fprintf(&b, "- `%s`\n", f)
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "\n> %s\n", n)
	}
	renderTangents(&b, rep.Tangents)
	renderTradeOff(&b, rep.TradeOff)
	b.WriteString("\n## Report\n\n```\n")
	if err := strategy.RenderReport(&b, rep); err != nil {
		fmt.Fprintf(&b, "(report unavailable: %v)\n", err)
	}
	b.WriteString("```\n\n## What is removed, turn by turn\n\n")
	counts := out.counts // the pipeline's: counted once
	if counts == nil {
		if c, err := r.tokenCounter(src.t); err == nil {
			counts, _ = strategy.CountTranscript(ctx, src.t, c)
		}
	}
	if err := strategy.RenderDiff(&b, out.view, counts); err != nil {
		fmt.Fprintf(&b, "(diff unavailable: %v)\n", err)
	}
	b.WriteString("\n## Messages before and after\n\n```diff\n")
	b.WriteString(diffLines(renderTurns(src.t), renderTurns(out.t)))
	b.WriteString("```\n")
	return b.String()
}

func percentSaved(before, after int) string {
	if before == 0 {
		return "nothing to save"
	}
	return fmt.Sprintf("%.1f%% saved", 100*float64(before-after)/float64(before))
}

// renderTurns gives one line per message, turn by turn, as a reader
// scanning a diff wants it: who spoke and the start of what they said.
func renderTurns(t *transcript.Transcript) []string {
	if t == nil {
		return nil
	}
	turns := t.Turns
	if turns == nil {
		turns = transcript.BuildTurns(t.Messages)
	}
	var lines []string
	for _, turn := range turns {
		lines = append(lines, "")
		for i := turn.Start; i < turn.End && i < len(t.Messages); i++ {
			lines = append(lines, messageLine(&t.Messages[i]))
		}
	}
	if len(lines) > 0 {
		lines = lines[1:]
	}
	return lines
}

func messageLine(m *transcript.Message) string {
	who := string(m.Role)
	if m.Origin != "" && m.Origin != transcript.OriginHuman && m.Origin != transcript.OriginAgent {
		who += "/" + string(m.Origin)
	}
	var parts []string
	for _, p := range m.Parts {
		switch p.Kind {
		case transcript.PartText, transcript.PartReasoning:
			parts = append(parts, clip(p.Text, 80))
		case transcript.PartToolCall:
			parts = append(parts, fmt.Sprintf("%s(%s)", p.ToolName, clip(p.Args, 50)))
		case transcript.PartToolResult:
			parts = append(parts, fmt.Sprintf("→ %s", clip(p.Text, 60)))
		default:
			parts = append(parts, "["+string(p.Kind)+"]")
		}
	}
	return who + ": " + strings.Join(parts, " | ")
}

// clip is s with its runs of white space collapsed to one space and
// trimmed, cut to n runes with an ellipsis; bytes that are not UTF-8
// become U+FFFD. It reads only as far as it keeps: a message line
// previews a tool result of megabytes.
func clip(s string, n int) string {
	var b strings.Builder
	kept, space := 0, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = kept > 0
			i += size
			continue
		}
		if space {
			if kept == n {
				return b.String() + "…"
			}
			b.WriteByte(' ')
			kept++
			space = false
		}
		if kept == n {
			return b.String() + "…"
		}
		b.WriteRune(r)
		kept++
		i += size
	}
	return b.String()
}

// diffLines is the whole of b against a, line by line, each prefixed "  "
// (in both), "- " (only in a) or "+ " (only in b): a Myers diff (go-udiff,
// gopls's algorithm), linear in the lines for the edits agents make.
func diffLines(a, b []string) string {
	before, after := joinLines(a), joinLines(b)
	var out strings.Builder
	out.Grow(len(before) + len(after)/4)
	u, err := udiff.ToUnifiedDiff("", "", before, udiff.Lines(before, after), len(a)+len(b))
	if err != nil || len(u.Hunks) == 0 { // equal
		for _, l := range a {
			out.WriteString("  " + l + "\n")
		}
		return out.String()
	}
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Delete:
				out.WriteString("- ")
			case udiff.Insert:
				out.WriteString("+ ")
			default:
				out.WriteString("  ")
			}
			out.WriteString(strings.TrimSuffix(l.Content, "\n"))
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// joinLines is lines as text, each ended by a newline.
func joinLines(lines []string) string {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
