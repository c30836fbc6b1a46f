package main

import (
	"context"
	"fmt"
)

func init() {
	register(&command{
		name:    "diff",
		summary: "show what changed between two versions, turn by turn",
		run:     runDiff,
	})
}

func runDiff(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("diff", e)
	storePath := fs.String("store", "", "store database path")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return usagef("usage: compactd diff [--store P] PATH V1 V2")
	}
	r, closeStore, err := openRunner(ctx, e, *storePath)
	if err != nil {
		return err
	}
	defer closeStore()
	d, err := r.Diff(ctx, pos[0], pos[1], pos[2])
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, d)
	return nil
}
