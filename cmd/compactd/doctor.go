package main

import (
	"context"
	"errors"
	"fmt"
)

func init() {
	register(&command{
		name:    "doctor",
		summary: "check the version store: integrity, size, vanished forks and sources, stale temporary files",
		run:     runDoctor,
	})
}

func runDoctor(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("doctor", e)
	asJSON := fs.Bool("json", false, "print the findings as JSON")
	fix := fs.Bool("fix", false, "remove the temporary files killed jobs left beside transcripts")
	storePath := fs.String("store", "", "store database path")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("usage: compactd doctor [--fix] [--json] [--store P]")
	}
	r, closeStore, err := openRunner(ctx, e, *storePath)
	if err != nil {
		return err
	}
	defer closeStore()
	d, err := r.Doctor(ctx)
	if err != nil {
		return err
	}
	var fixErr error
	if *fix {
		fixErr = r.RemoveStaleTemps(d)
	}
	if *asJSON {
		if err := writeJSON(e.stdout, d); err != nil {
			return err
		}
	} else {
		w := e.stdout
		fmt.Fprintf(w, "store: %s (%.1f MiB, %d conversations, %d versions)\n", d.StorePath, float64(d.StoreSize)/(1<<20), d.Conversations, d.Versions)
		if d.OK() {
			fmt.Fprintln(w, "integrity: ok")
		}
		for _, p := range d.Integrity {
			fmt.Fprintf(w, "integrity: %s\n", p)
		}
		for _, v := range d.OrphanedForks {
			fmt.Fprintf(w, "orphaned fork: %s %s is gone (restore it with: compactd restore %s %s)\n", v.Label, v.ForkPath, v.SourcePath, v.Label)
		}
		for _, c := range d.VanishedSources {
			fmt.Fprintf(w, "vanished source: %s (%s); its versions remain in the store\n", c.SourcePath, c.Key)
		}
		removed := map[string]bool{}
		for _, p := range d.Removed {
			removed[p] = true
			fmt.Fprintf(w, "removed stale temporary file: %s\n", p)
		}
		for _, p := range d.StaleTemps {
			if !removed[p] {
				fmt.Fprintf(w, "stale temporary file: %s (left by a killed job; remove it with: compactd doctor --fix)\n", p)
			}
		}
	}
	if fixErr != nil {
		return fixErr
	}
	if !d.OK() {
		return errors.New("the store failed its integrity check; copy it aside before anything else writes to it")
	}
	return nil
}
