package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon/index"
)

// hover shows the turn under the cursor: its tokens, the running total
// and share of the window, and each strategy's estimated savings, all read
// from the snapshot (never recomputed here).
func (s *Server) hover(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.HoverParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	snap := s.snapshotOf(p.TextDocument.URI)
	if snap == nil {
		return nil, nil
	}
	now := time.Now()
	if d := s.currentDaemon(); d != nil {
		now = d.Now()
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: hoverText(snap, int(p.Position.Line), now)}}, nil
}

func hoverText(snap *index.Snapshot, line int, now time.Time) string {
	var b strings.Builder
	pct := func(n int) string { return fmt.Sprintf("%.1f %%", float64(n)*100/float64(snap.Window)) }
	if turn, ok := snap.TurnAtLine(line); ok {
		fmt.Fprintf(&b, "**compactd · turn %d of %d** — %s tokens (%s of the window)\n\n", turn.Index+1, len(snap.Turns), index.Short(turn.Tokens), pct(turn.Tokens))
		fmt.Fprintf(&b, "Through this turn: %s tokens (%s of %s)\n\n", index.Short(turn.Cumulative), pct(turn.Cumulative), index.Short(snap.Window))
		if turn.Prompt != "" {
			fmt.Fprintf(&b, "> %s\n\n", turn.Prompt)
		}
	} else {
		b.WriteString("**compactd** — this line is not part of what the model sees now (metadata or compacted history)\n\n")
	}
	fmt.Fprintf(&b, "Conversation: **%s** (%s, %s, %s)\n\n", snap.Text(), snap.Model, snap.Level, sourceWords(snap.Source))
	if m := snap.Mark(); m != nil {
		fmt.Fprintf(&b, "Agent's own compaction: %s", markWords(snap, m))
		if m.Rule != "" {
			fmt.Fprintf(&b, " — %s", m.Rule)
		}
		b.WriteString("\n\n")
	}
	if snap.Status != "" {
		fmt.Fprintf(&b, "⚠ %s\n\n", snap.Status)
	}
	b.WriteString(breakdownText(snap))
	b.WriteString(savingsTable(snap))
	b.WriteString(costText(snap, now))
	return b.String()
}

// breakdownText is what fills the window, as a table, and how much of it
// compaction can reach.
func breakdownText(snap *index.Snapshot) string {
	bd := snap.Insight.Breakdown
	if bd == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("| what fills the window | tokens | of the window |\n|---|---:|---:|\n")
	for _, p := range bd.Parts {
		label := p.Label
		switch p.Category {
		case gauge.CategoryOutside:
			if p.Tokens > 0 {
				label += " — " + bd.Outside.Label
			}
		case gauge.CategoryToolResults:
			var tools []string
			for _, t := range bd.Tools {
				tools = append(tools, t.Name+" "+index.Short(t.Tokens))
			}
			if len(tools) > 0 {
				label += " (" + strings.Join(tools, ", ") + ")"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %.1f %% |\n", escapeCell(label), tokens.Thousands(p.Tokens), 100*bd.Share(p.Tokens))
	}
	b.WriteString("\n")
	for _, k := range bd.Outside.Known {
		fmt.Fprintf(&b, "Outside the transcript, %s: %s", k.Name, k.Detail)
		if k.Tokens > 0 {
			fmt.Fprintf(&b, " (%s tokens)", tokens.Thousands(k.Tokens))
		}
		b.WriteString("\n\n")
	}
	if !bd.Outside.Measured {
		fmt.Fprintf(&b, "No reported usage: what the agent sends beside the transcript (%s) is not in this figure.\n\n", bd.Outside.Label)
	}
	b.WriteString(bd.Reach() + ".\n\n")
	if e := snap.Insight.EstimateError; e.Error != nil {
		fmt.Fprintf(&b, "Estimate error: %+.1f %% (%s).\n\n", 100**e.Error, e.Note)
	} else if e.Note != "" && snap.Source == index.SourceUsage {
		fmt.Fprintf(&b, "Estimate error not shown: %s.\n\n", e.Note)
	}
	return b.String()
}

// costText is the session's cost so far and the next turn's.
func costText(snap *index.Snapshot, now time.Time) string {
	c := snap.Insight.Cost
	if c == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n")
	prices := c.Model + " list prices of " + pricing.TableDate
	if c.Source == "settings" {
		prices = "your prices for " + c.Model
	}
	fmt.Fprintf(&b, "Cost at %s: ", prices)
	var parts []string
	if c.Responses > 0 {
		parts = append(parts, fmt.Sprintf("session so far **%s** (%d responses)", pricing.Dollars(c.Session), c.Responses))
	}
	parts = append(parts, fmt.Sprintf("next turn **%s** (%s if the cache expired)", pricing.Dollars(c.NextTurn.Cached), pricing.Dollars(c.NextTurn.Uncached)))
	if auto := snap.AutoSavings(); auto > 0 {
		if s := snap.Insight.SavingPerTurn(snap.Tokens, auto); s != nil {
			parts = append(parts, fmt.Sprintf("compacting (auto) saves %s per turn (%s uncached)", pricing.Dollars(s.Cached), pricing.Dollars(s.Uncached)))
		}
	}
	b.WriteString(strings.Join(parts, " · ") + "\n")
	if auto := snap.AutoSavings(); auto > 0 {
		if e := snap.Insight.Economics(snap.Tokens, auto, now); e != nil {
			fmt.Fprintf(&b, "\nCompacting now (auto): %s\n", e.Line)
		}
	}
	return b.String()
}

// escapeCell keeps a table cell one cell.
func escapeCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func savingsTable(snap *index.Snapshot) string {
	var b strings.Builder
	if len(snap.Savings) == 0 {
		if snap.SavingsPending {
			return "Estimated savings: computing…\n"
		}
		if snap.SavingsErr != "" {
			return "Estimated savings: unavailable (" + snap.SavingsErr + ")\n"
		}
		return ""
	}
	names := make([]string, 0, len(snap.Savings))
	for n := range snap.Savings {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "auto") != (names[j] == "auto") {
			return names[i] == "auto"
		}
		return snap.Savings[names[i]] > snap.Savings[names[j]]
	})
	perTurn := snap.Insight.Price != nil
	if perTurn {
		b.WriteString("| strategy | would save | per turn |\n|---|---:|---:|\n")
	} else {
		b.WriteString("| strategy | would save |\n|---|---:|\n")
	}
	for _, n := range names {
		fmt.Fprintf(&b, "| %s | %s tokens (%.1f %%) |", n, index.Short(snap.Savings[n]), float64(snap.Savings[n])*100/float64(snap.Window))
		if perTurn {
			fmt.Fprintf(&b, " %s |", pricing.Dollars(snap.Insight.SavingPerTurn(snap.Tokens, snap.Savings[n]).Cached))
		}
		b.WriteString("\n")
	}
	if snap.SavingsPending {
		b.WriteString("\n_updating for the latest changes…_\n")
	}
	return b.String()
}

// snapshotOf returns the daemon's snapshot for a document, nil when the
// document is not a tracked transcript.
func (s *Server) snapshotOf(u protocol.DocumentURI) *index.Snapshot {
	d := s.currentDaemon()
	if d == nil {
		return nil
	}
	return d.Snapshot(uriPath(u))
}
