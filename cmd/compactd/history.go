package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/compactd/compactd/compaction/tokens"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
)

func init() {
	register(&command{
		name:    "history",
		summary: "list a transcript's versions as a tree",
		run:     runHistory,
	})
}

func runHistory(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("history", e)
	asJSON := fs.Bool("json", false, "print versions as JSON")
	storePath := fs.String("store", "", "store database path")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: compactd history [--json] [--store P] PATH")
	}
	r, closeStore, err := openRunner(ctx, e, *storePath)
	if err != nil {
		return err
	}
	defer closeStore()
	h, err := r.History(ctx, pos[0])
	if err != nil {
		return err
	}
	// The agent's own compactions, with what each lost: the file alone
	// says (a file gone leaves the stored versions only).
	ledger, _ := r.AgentLedger(ctx, pos[0], 0)
	if *asJSON {
		out := struct {
			*jobs.History
			AgentCompactions []jobs.AgentLoss `json:"agentCompactions"`
			Health           *gauge.Health    `json:"health,omitempty"`
		}{History: h, AgentCompactions: []jobs.AgentLoss{}}
		if ledger != nil && len(ledger.Compactions) > 0 {
			out.AgentCompactions, out.Health = ledger.Compactions, &ledger.Health
		}
		return writeJSON(e.stdout, out)
	}
	printHistory(e.stdout, h)
	if ledger != nil && len(ledger.Compactions) > 0 {
		printLedger(e.stdout, ledger)
	}
	return nil
}

// printLedger lists the agent's own compactions and what each lost:
//
//	the agent's own compactions:
//	  a1  line 112  2025-11-17 09:40  compaction a1 (auto, 167k → 9.4k) lost 2 standing instructions ("never push to main", …), …
//	  ⚠ the agent compacted 4 times within 3 s …
func printLedger(w io.Writer, l *jobs.AgentLedger) {
	fmt.Fprintln(w, "the agent's own compactions:")
	for _, c := range l.Compactions {
		fmt.Fprintf(w, "  %-4s line %-6d %s  %s\n", c.Compaction, c.Line+1, c.Timestamp.Local().Format("2006-01-02 15:04"), c.Summary)
	}
	if l.Health.Loop {
		fmt.Fprintf(w, "  ⚠ %s\n", l.Health.Warning)
	}
}

// printHistory draws the lineage tree, children under their parent.
func printHistory(w io.Writer, h *jobs.History) {
	fmt.Fprintf(w, "%s (%s)\n", h.Key, h.Conversation.Format)
	children := map[string][]jobs.Version{}
	for _, v := range h.Versions {
		children[v.Parent] = append(children[v.Parent], v)
	}
	var walk func(parent, indent string)
	walk = func(parent, indent string) {
		kids := children[parent]
		for i, v := range kids {
			branch, next := "├─ ", "│  "
			if i == len(kids)-1 {
				branch, next = "└─ ", "   "
			}
			fmt.Fprintf(w, "%s%s%s\n", indent, branch, versionLine(v))
			walk(v.Label, indent+next)
		}
	}
	walk("", "")
}

func versionLine(v jobs.Version) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s %-7s %s", v.Label, v.Kind, v.Created.Local().Format("2006-01-02 15:04"))
	if v.Kind == store.KindCompact {
		fmt.Fprintf(&b, "  %s  %s → %s tokens", strings.Join(v.Pipeline, "+"), tokens.Thousands(v.TokensBefore), tokens.Thousands(v.TokensAfter))
	}
	if v.Kind == store.KindRestore && len(v.Pipeline) > 0 {
		fmt.Fprintf(&b, "  %s", v.Pipeline[0])
	}
	if v.Kind == jobs.KindAgent {
		// The agent's own compaction, in the file at byte Size.
		fmt.Fprintf(&b, "  the agent's own %s", strings.Join(v.Pipeline, " "))
		if v.TokensBefore > 0 {
			fmt.Fprintf(&b, ", %s tokens before", tokens.Thousands(v.TokensBefore))
		}
		fmt.Fprintf(&b, "  %s (restore %s: the conversation before it)", v.SourcePath, v.Label)
		return b.String()
	}
	if v.ForkPath != "" {
		fmt.Fprintf(&b, "  %s", v.ForkPath)
	} else {
		fmt.Fprintf(&b, "  %s", v.SourcePath)
	}
	return b.String()
}
