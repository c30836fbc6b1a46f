package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
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
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: hoverText(snap, int(p.Position.Line))}}, nil
}

func hoverText(snap *daemon.Snapshot, line int) string {
	var b strings.Builder
	pct := func(n int) string { return fmt.Sprintf("%.1f %%", float64(n)*100/float64(snap.Window)) }
	if turn, ok := snap.TurnAtLine(line); ok {
		fmt.Fprintf(&b, "**compactd · turn %d of %d** — %s tokens (%s of the window)\n\n", turn.Index+1, len(snap.Turns), daemon.Short(turn.Tokens), pct(turn.Tokens))
		fmt.Fprintf(&b, "Through this turn: %s tokens (%s of %s)\n\n", daemon.Short(turn.Cumulative), pct(turn.Cumulative), daemon.Short(snap.Window))
		if turn.Prompt != "" {
			fmt.Fprintf(&b, "> %s\n\n", turn.Prompt)
		}
	} else {
		b.WriteString("**compactd** — this line is not part of what the model sees now (metadata or compacted history)\n\n")
	}
	fmt.Fprintf(&b, "Conversation: **%s** (%s, %s, %s)\n\n", snap.Text(), snap.Model, snap.Level, sourceWords(snap.Source))
	b.WriteString(savingsTable(snap))
	return b.String()
}

func savingsTable(snap *daemon.Snapshot) string {
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
	b.WriteString("| strategy | would save |\n|---|---:|\n")
	for _, n := range names {
		fmt.Fprintf(&b, "| %s | %s tokens (%.1f %%) |\n", n, daemon.Short(snap.Savings[n]), float64(snap.Savings[n])*100/float64(snap.Window))
	}
	if snap.SavingsPending {
		b.WriteString("\n_updating for the latest changes…_\n")
	}
	return b.String()
}

// snapshotOf returns the daemon's snapshot for a document, nil when the
// document is not a tracked transcript.
func (s *Server) snapshotOf(u protocol.DocumentURI) *daemon.Snapshot {
	d := s.currentDaemon()
	if d == nil {
		return nil
	}
	return d.Snapshot(uriPath(u))
}
