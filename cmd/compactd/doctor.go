package main

import (
	"context"
	"fmt"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/install"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
)

func init() {
	register(&command{
		name:    "doctor",
		summary: "check the version store (integrity, size, vanished forks and sources, stale temporary files) and say where compactd's MCP server and hooks are installed",
		run:     runDoctor,
	})
}

func runDoctor(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("doctor", e)
	asJSON := fs.Bool("json", false, "print the findings as JSON")
	fix := fs.Bool("fix", false, "remove the temporary files killed jobs left beside transcripts; recover a damaged store into a new one (the damaged file is kept beside it)")
	storePath := fs.String("store", "", "store database path")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("usage: compactd doctor [--fix] [--json] [--store P]")
	}
	path, err := resolveStore(e, *storePath)
	if err != nil {
		return err
	}
	r, closeStore, err := openRunner(ctx, e, path)
	if err != nil {
		if store.IsDamaged(err) {
			// Too damaged to open normally: examine it as it is.
			return doctorDamaged(ctx, e, path, *fix, *asJSON)
		}
		return err
	}
	defer closeStore()
	d, err := r.Doctor(ctx)
	if err != nil {
		if store.IsDamaged(err) {
			closeStore()
			return doctorDamaged(ctx, e, path, *fix, *asJSON)
		}
		return err
	}
	if !d.OK() && *fix {
		closeStore()
		return doctorDamaged(ctx, e, path, *fix, *asJSON)
	}
	var fixErr error
	if *fix {
		fixErr = r.RemoveStaleTemps(d)
	}
	// Where compactd sits in the agents' own loops.
	mcps, hooks := integrations(e, path)
	if *asJSON {
		if err := writeJSON(e.stdout, struct {
			*jobs.DoctorReport
			MCP   []install.Installed     `json:"mcp"`
			Hooks []install.HookInstalled `json:"hooks"`
		}{d, mcps, hooks}); err != nil {
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
		if len(mcps) == 0 {
			fmt.Fprintln(w, "mcp: not installed for any agent (compactd mcp install AGENT)")
		}
		for _, in := range mcps {
			note := ""
			if !in.Current {
				note = " (outdated: run compactd mcp install " + in.Agent + " again)"
			}
			fmt.Fprintf(w, "mcp: %s, %s: %s%s\n", in.Agent, in.Scope, in.Path, note)
		}
		if len(hooks) == 0 {
			fmt.Fprintln(w, "hooks: not installed (compactd hooks install claude)")
		}
		for _, in := range hooks {
			what := "PreCompact records before each compaction"
			if in.Compaction {
				what += "; compactd is the compaction"
			}
			fmt.Fprintf(w, "hooks: %s, %s: %s (%s)\n", in.Agent, in.Scope, in.Path, what)
		}
	}
	if fixErr != nil {
		return fixErr
	}
	if !d.OK() {
		return fmt.Errorf("the store %s failed its integrity check; run `compactd doctor --fix --store %s` to recover what is readable into a new store (the damaged file is kept beside it)", d.StorePath, d.StorePath)
	}
	return nil
}

// integrations are where compactd's MCP server and hooks are installed,
// for the working folder and the user; what cannot be read is left out.
func integrations(e *env, storePath string) ([]install.Installed, []install.HookInstalled) {
	env := agents.EnvFromOS(e.getenv)
	server, err := serverOf(e, "", storePath)
	if err != nil {
		return nil, nil
	}
	mcps, err := mcpInstalls(agents.All(), env, workingDir(), server)
	if err != nil {
		fmt.Fprintf(e.stderr, "compactd doctor: %v\n", err)
	}
	hooks, err := hookInstalls(agents.All(), env, workingDir(), install.PluginDir(server.Store))
	if err != nil {
		fmt.Fprintf(e.stderr, "compactd doctor: %v\n", err)
	}
	return mcps, hooks
}

// doctorDamaged reports on a store too damaged to open normally and, with
// fix, recovers what is readable into a new store in its place.
func doctorDamaged(ctx context.Context, e *env, path string, fix, asJSON bool) error {
	diag, err := store.Diagnose(ctx, path)
	if err != nil {
		return err
	}
	var rec *store.Recovery
	if fix {
		if rec, err = store.Recover(ctx, path); err != nil {
			return fmt.Errorf("recover the store %s: %w", path, err)
		}
	}
	if asJSON {
		if err := writeJSON(e.stdout, struct {
			*store.Diagnosis
			Recovery *store.Recovery `json:"recovery,omitempty"`
		}{diag, rec}); err != nil {
			return err
		}
	} else {
		w := e.stdout
		fmt.Fprintf(w, "store: %s (damaged)\n", path)
		for i, p := range diag.Integrity {
			if i == 10 {
				fmt.Fprintf(w, "integrity: … and %d more findings\n", len(diag.Integrity)-i)
				break
			}
			fmt.Fprintf(w, "integrity: %s\n", p)
		}
		if rec != nil {
			fmt.Fprintf(w, "recovered: %d versions of %d conversations into a new store at %s\n", rec.Versions, rec.Conversations, path)
			fmt.Fprintf(w, "the damaged store is kept at %s\n", rec.DamagedKept)
			for _, l := range rec.Lost {
				fmt.Fprintf(w, "lost: %s (its content could not be read whole)\n", l)
			}
			if rec.LostRows > 0 {
				fmt.Fprintf(w, "lost: %d unreadable rows\n", rec.LostRows)
			}
		}
	}
	if rec != nil {
		return nil
	}
	return fmt.Errorf("the store %s is damaged; run `compactd doctor --fix --store %s` to recover what is readable into a new store (the damaged file is kept beside it)", path, path)
}
