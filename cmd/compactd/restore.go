package main

import (
	"context"
	"fmt"

	"github.com/compactd/compactd/daemon/jobs"
)

func init() {
	register(&command{
		name:    "restore",
		summary: "write a stored version back (as a new fork, or over the file with --in-place)",
		run:     runRestore,
	})
}

func runRestore(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("restore", e)
	inPlace := fs.Bool("in-place", false, "replace the transcript (its current content is kept in the store first)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	storePath := fs.String("store", "", "store database path")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("usage: compactd restore [--in-place] [--store P] PATH VERSION (vN, or aN: before the agent's own compaction N)")
	}
	r, closeStore, err := openRunner(ctx, e, *storePath)
	if err != nil {
		return storeRefused(pos[0], err)
	}
	defer closeStore()
	res, err := r.Restore(ctx, pos[0], pos[1], *inPlace)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	if res.InPlace {
		fmt.Fprintf(e.stdout, "%s restored over %s", res.Version, res.Path)
		if res.Saved != "" {
			fmt.Fprintf(e.stdout, " (its previous content is %s)", res.Saved)
		}
		fmt.Fprintln(e.stdout)
		return nil
	}
	if jobs.IsAgentLabel(res.Version) {
		fmt.Fprintf(e.stdout, "the conversation before the agent's compaction %s restored to %s (recorded as %s)\n", res.Version, res.Path, res.Recorded)
	} else {
		fmt.Fprintf(e.stdout, "%s restored to %s (recorded as %s)\n", res.Version, res.Path, res.Recorded)
	}
	if res.Resume != "" {
		fmt.Fprintf(e.stdout, "resume: %s\n", res.Resume)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", n)
	}
	return nil
}
