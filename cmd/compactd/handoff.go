package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/jobs"
)

func init() {
	register(&command{
		name:    "handoff",
		summary: "continue a session in another agent: a new session in its format, compacted to fit, and the command that resumes it",
		run:     runHandoff,
	})
}

const handoffUsage = "usage: compactd handoff --to AGENT [--budget N] [--model M] [--strategy S]... [--mcp] [--import] [--session ID] [--json] [--store P] PATH"

func runHandoff(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("handoff", e)
	to := fs.String("to", "", "the agent that carries on: "+strings.Join(jobs.HandoffTargets(), ", "))
	budget := fs.Int("budget", 0, "fit the conversation in N tokens (default: half the target model's window)")
	model := fs.String("model", "", "the model the new session names (default: the target's settings, else its default)")
	var strategies listFlag
	fs.Var(&strategies, "strategy", "strategy to apply before fitting (repeatable; default strip-reasoning: no other model takes it)")
	mcp := fs.Bool("mcp", false, "install compactd's MCP server in the target's user settings, so it can recall what the handoff left out")
	importIt := fs.Bool("import", false, "opencode and Kilo: have the agent import the new session (its executable must be on PATH)")
	session := fs.String("session", "", "opencode and Kilo sources: the session of the database to hand off")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	storePath := fs.String("store", "", "store database path")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *to == "" {
		return usagef("%s", handoffUsage)
	}
	if a := agents.ByName(*to); a == nil || a.Handoff == nil {
		return usagef("--to %s: compactd hands off to %s", *to, strings.Join(jobs.HandoffTargets(), ", "))
	}
	if err := strategy.ValidateStrategies(strategies); err != nil {
		return usagef("%v", err)
	}
	env := agents.EnvFromOS(e.getenv)
	if pos[0], err = sourceOf(ctx, e, pos[0], *session); err != nil {
		return err
	}
	file := config.Nearest(pos[0], workingDir())
	cfg, err := config.Load(file)
	if err != nil {
		return usagef("%v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var over config.Overrides
	if set["strategy"] {
		over.Strategies = strategies
	}
	if set["budget"] {
		over.Budget = budget
	}
	if err := over.Check(); err != nil {
		return usagef("--%v", err)
	}
	opts := cfg.CompactOptions(0, over)
	// The target model's window and budget, not those the source's
	// configuration sets for its own gauge.
	opts.Window = 0
	if !set["budget"] {
		opts.Budget = 0
	}
	if !set["strategy"] {
		opts.Strategies = nil // the handoff's own: see jobs.HandoffRequest
	}
	workspace := workingDir()
	if file != "" {
		workspace = filepath.Dir(file)
	}
	if *storePath == "" && e.getenv("COMPACTD_STORE") == "" {
		*storePath = cfg.Store.Path
	}
	req := jobs.HandoffRequest{Path: pos[0], To: *to, Options: opts, Summarize: cfg.Summarize, Workspace: workspace, Env: env, Model: *model, Import: *importIt}
	if *mcp {
		server, err := serverOf(e, "", *storePath)
		if err != nil {
			return err
		}
		req.MCP = &server
	}
	r, closeStore, err := openRunner(ctx, e, *storePath)
	if err != nil {
		return storeRefused(pos[0], err)
	}
	defer closeStore()
	r.Now = e.clock
	res, err := r.Handoff(ctx, req)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	printHandoff(e, res)
	return nil
}

func printHandoff(e *env, res *jobs.HandoffResult) {
	label := res.To
	if a := agents.ByName(res.To); a != nil && a.Label != "" {
		label = a.Label
	}
	fmt.Fprintf(e.stdout, "handed off to %s: %s\n", label, res.Path)
	fit := "fits " + res.Model + "'s window as it is"
	if res.Budget > 0 {
		fit = fmt.Sprintf("fitted to %d for %s", res.Budget, res.Model)
	}
	fmt.Fprintf(e.stdout, "%s (from %s): %d → %d tokens (%s); tool calls: %d mapped, %d as text", res.Version, res.Parent, res.TokensBefore, res.TokensAfter, fit, res.Mapped, res.AsText)
	if res.Images+res.ImagesAsText > 0 {
		fmt.Fprintf(e.stdout, "; images: %d kept, %d described", res.Images, res.ImagesAsText)
	}
	fmt.Fprintln(e.stdout)
	fmt.Fprintf(e.stdout, "resume: %s\n", res.Resume)
	switch res.Recall {
	case "installed now":
		fmt.Fprintf(e.stdout, "recall: compactd's MCP server is now in %s's settings\n", label)
	case "installed":
		fmt.Fprintf(e.stdout, "recall: compactd's MCP server is in %s's settings\n", label)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", n)
	}
}
