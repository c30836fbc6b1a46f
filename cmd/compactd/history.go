package main

import (
	"context"
	"fmt"
	"github.com/compactd/compactd/compaction/tokens"
	"io"
	"strings"

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
	if *asJSON {
		return writeJSON(e.stdout, h)
	}
	printHistory(e.stdout, h)
	return nil
}

// printHistory draws the lineage tree, children under their parent.
func printHistory(w io.Writer, h *jobs.History) {
	fmt.Fprintf(w, "%s (%s)\n", h.Key, h.Conversation.Format)
	children := map[string][]store.Version{}
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

func versionLine(v store.Version) string {
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
