package strategy

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// RenderDiff writes a per-turn Markdown diff of what compaction removes and
// strips from v's source, with token counts when counts (the source's, from
// CountTranscript or Options.Counts) is not nil. Unchanged turns collapse to
// one line; removed runs of turns too.
func RenderDiff(w io.Writer, v *transcript.View, counts *Counts) error {
	if v == nil || v.Source == nil {
		return fmt.Errorf("render diff: view has no source transcript")
	}
	src := v.Source
	x := newSourceIndex(src)
	var vc *viewCounter
	if counts != nil && counts.src == src {
		vc = newViewCounter(counts)
	}
	// inView[si] is the view message copying source message si.
	inView := make([]*transcript.Message, len(src.Messages))
	for i := range v.Messages {
		if si := x.message(&v.Messages[i]); si >= 0 {
			inView[si] = &v.Messages[i]
		}
	}
	summaryAt := map[int][]transcript.Summary{}
	for _, s := range v.Summaries {
		anchor := len(src.Messages)
		if s.Before < len(v.Messages) {
			if si := x.message(&v.Messages[s.Before]); si >= 0 {
				anchor = si
			}
		}
		summaryAt[anchor] = append(summaryAt[anchor], s)
	}
	srcTok := func(si, pj int) int {
		if counts == nil || counts.src != src {
			return 0
		}
		return counts.parts[si][pj]
	}
	viewTok := func(si int, p *transcript.Part) int {
		if vc == nil {
			return 0
		}
		return vc.part(si, p)
	}
	num := func(n int) string {
		if counts == nil {
			return ""
		}
		return tokens.Thousands(n) + " tokens"
	}

	bw := bufio.NewWriter(w)
	turns := src.Turns
	if len(turns) == 0 {
		turns = transcript.BuildTurns(src.Messages)
	}
	var before, after int
	if counts != nil {
		before = counts.Total()
	}
	type turnDiff struct {
		before, after int
		lines         []string
		removedAll    bool
		untouched     bool
	}
	diffs := make([]turnDiff, len(turns))
	for t, turn := range turns {
		d := turnDiff{removedAll: true, untouched: true}
		for si := turn.Start; si < turn.End; si++ {
			sm := &src.Messages[si]
			vm := inView[si]
			if vm != nil {
				d.removedAll = false
			}
			msgBefore := tokens.MessageOverhead
			for pj := range sm.Parts {
				msgBefore += srcTok(si, pj)
			}
			d.before += msgBefore
			if vm == nil {
				d.untouched = false
				what := make([]string, 0, len(sm.Parts))
				for pj := range sm.Parts {
					what = append(what, describePart(&sm.Parts[pj]))
				}
				d.lines = append(d.lines, fmt.Sprintf("- removed: %s %s%s", sm.Role, facts.Truncate(strings.Join(what, ", "), 160), paren(num(msgBefore))))
				continue
			}
			d.after += tokens.MessageOverhead
			kept := map[int]*transcript.Part{}
			for k := range vm.Parts {
				p := &vm.Parts[k]
				d.after += viewTok(si, p)
				if pj := x.part(si, p); pj >= 0 {
					kept[pj] = p
				} else {
					d.untouched = false
					d.lines = append(d.lines, fmt.Sprintf("- added: %s `%s`", p.Kind, facts.Truncate(p.Text, 120)))
				}
			}
			for pj := range sm.Parts {
				sp := &sm.Parts[pj]
				p, ok := kept[pj]
				switch {
				case !ok:
					d.untouched = false
					d.lines = append(d.lines, fmt.Sprintf("- removed: %s%s", describePart(sp), paren(num(srcTok(si, pj)))))
				case p.Changed:
					d.untouched = false
					what := p.Text
					if p.Kind == transcript.PartToolCall {
						what = p.Args
					}
					change := ""
					if counts != nil {
						change = fmt.Sprintf(" (%s → %s tokens)", tokens.Thousands(srcTok(si, pj)), tokens.Thousands(viewTok(si, p)))
					}
					d.lines = append(d.lines, fmt.Sprintf("- stripped: %s%s: `%s`", describePart(sp), change, facts.Truncate(what, 200)))
				}
			}
		}
		after += d.after
		diffs[t] = d
	}
	for _, ss := range summaryAt {
		for _, s := range ss {
			if counts != nil {
				after += counts.counter.Text(s.Text) + tokens.MessageOverhead
			}
		}
	}

	fmt.Fprintf(bw, "# Compaction diff: %s, %d turns\n\n", src.Format, len(turns))
	if counts != nil {
		fmt.Fprintf(bw, "%s → %s tokens (saves %s, %s)\n\n", tokens.Thousands(before), tokens.Thousands(after), tokens.Thousands(before-after), percent(before-after, before))
	}
	writeSummaries := func(si int) {
		for _, s := range summaryAt[si] {
			fmt.Fprintf(bw, "## Summary of turns %d–%d%s\n\n", s.FromTurn, s.ToTurn-1, paren(num(counterText(counts, s.Text))))
			for _, line := range strings.Split(strings.TrimSpace(s.Text), "\n") {
				fmt.Fprintf(bw, "> %s\n", line)
			}
			bw.WriteString("\n")
		}
	}
	for t := 0; t < len(turns); {
		writeSummaries(turns[t].Start)
		d := diffs[t]
		if d.removedAll || d.untouched {
			// Collapse the run of turns in the same state.
			end, sum := t, 0
			for end < len(turns) && diffs[end].removedAll == d.removedAll && diffs[end].untouched == d.untouched &&
				(end == t || len(summaryAt[turns[end].Start]) == 0) {
				sum += diffs[end].before
				end++
			}
			state := "unchanged"
			if d.removedAll {
				state = "removed"
			}
			fmt.Fprintf(bw, "## %s: %s%s\n\n", turnLabel(t, end-1), state, paren(num(sum)))
			t = end
			continue
		}
		fmt.Fprintf(bw, "## Turn %d", t)
		if counts != nil {
			fmt.Fprintf(bw, ": %s → %s tokens", tokens.Thousands(d.before), tokens.Thousands(d.after))
		}
		bw.WriteString("\n\n")
		if p := promptOf(src, turns[t]); p != "" {
			fmt.Fprintf(bw, "> %s\n\n", p)
		}
		for _, line := range d.lines {
			bw.WriteString(line)
			bw.WriteByte('\n')
		}
		bw.WriteByte('\n')
		t++
	}
	writeSummaries(len(src.Messages))
	return bw.Flush()
}

func counterText(c *Counts, s string) int {
	if c == nil {
		return 0
	}
	return c.counter.Text(s)
}

func turnLabel(from, to int) string {
	if from == to {
		return fmt.Sprintf("Turn %d", from)
	}
	return fmt.Sprintf("Turns %d–%d", from, to)
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func percent(part, whole int) string {
	if whole == 0 {
		return "0 %"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(part)/float64(whole))
}

func promptOf(t *transcript.Transcript, turn transcript.Turn) string {
	if turn.Start >= len(t.Messages) || !transcript.StartsTurn(&t.Messages[turn.Start]) {
		return ""
	}
	return firstLine(messageText(&t.Messages[turn.Start]))
}

func describePart(p *transcript.Part) string {
	switch p.Kind {
	case transcript.PartToolCall:
		return fmt.Sprintf("tool call %s %s", p.ToolName, facts.Truncate(p.Args, 100))
	case transcript.PartToolResult:
		name := p.ToolName
		if name == "" {
			name = p.ToolCallID
		}
		return "tool result " + name
	case transcript.PartReasoning:
		if p.Signed {
			return "signed reasoning"
		}
		return "reasoning"
	case transcript.PartImage, transcript.PartDocument:
		if p.MIME != "" {
			return string(p.Kind) + " " + p.MIME
		}
	case transcript.PartText:
		return "text “" + facts.Truncate(firstLine(p.Text), 60) + "”"
	}
	return string(p.Kind)
}

// RenderReport writes a run's report as text for the CLI: steps, totals,
// retention and notes.
func RenderReport(w io.Writer, r *Report) error {
	if r == nil {
		return fmt.Errorf("render report: no report")
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "tokens: %s → %s (saved %s, %s)\n", tokens.Thousands(r.TokensBefore), tokens.Thousands(r.TokensAfter),
		tokens.Thousands(r.TokensBefore-r.TokensAfter), percent(r.TokensBefore-r.TokensAfter, r.TokensBefore))
	fmt.Fprintf(bw, "messages: %d → %d\n", r.MessagesBefore, r.MessagesAfter)
	if len(r.Steps) > 0 {
		width := len("strategy")
		for _, s := range r.Steps {
			width = max(width, len(s.Strategy))
		}
		fmt.Fprintf(bw, "\n%-*s  %8s  %8s  %12s\n", width, "strategy", "removed", "stripped", "tokens saved")
		for _, s := range r.Steps {
			fmt.Fprintf(bw, "%-*s  %8d  %8d  %12s\n", width, s.Strategy, s.EventsRemoved, s.EventsStripped, tokens.Thousands(s.TokensSaved))
		}
	}
	ret := r.Retention
	fmt.Fprintf(bw, "\nretention: %.1f %% (%d of %d key facts kept)\n", 100*ret.Score, ret.Kept, ret.Total)
	const showLost = 20
	for k, f := range ret.Lost {
		if k == showLost {
			fmt.Fprintf(bw, "  … and %d more\n", len(ret.Lost)-showLost)
			break
		}
		fmt.Fprintf(bw, "  lost %s: %s\n", f.Kind, facts.Truncate(f.Text, 120))
	}
	if len(ret.ContentsLost) > 0 {
		fmt.Fprintf(bw, "contents no longer in the conversation: %s\n", facts.Truncate(strings.Join(ret.ContentsLost, ", "), 400))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	return bw.Flush()
}
