package jobs

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
)

// renderDryRun is the Markdown report of a dry run: the figures, each
// step, what retention lost, and the per-turn diff.
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

// diffLines is a unified-style line diff ("  ", "- ", "+ " prefixes) by
// longest common subsequence after trimming the common ends. Inputs too
// large for the quadratic table show as one removed and one added block.
func diffLines(a, b []string) string {
	var out strings.Builder
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for _, l := range a[:pre] {
		out.WriteString("  " + l + "\n")
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > 4_000_000 {
		for _, l := range ma {
			out.WriteString("- " + l + "\n")
		}
		for _, l := range mb {
			out.WriteString("+ " + l + "\n")
		}
	} else {
		// lcs[i][j] = LCS length of ma[i:], mb[j:].
		w := len(mb) + 1
		lcs := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				out.WriteString("  " + ma[i] + "\n")
				i, j = i+1, j+1
			case j < len(mb) && (i == len(ma) || lcs[i*w+j+1] >= lcs[(i+1)*w+j]):
				out.WriteString("+ " + mb[j] + "\n")
				j++
			default:
				out.WriteString("- " + ma[i] + "\n")
				i++
			}
		}
	}
	for _, l := range a[len(a)-suf:] {
		out.WriteString("  " + l + "\n")
	}
	return out.String()
}
