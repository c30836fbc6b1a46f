package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/opencode"
	"github.com/compactd/compactd/daemon/install"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/watch"
)

func init() {
	register(&command{
		name:    "hooks",
		summary: "install|uninstall|status AGENT: compactd in the agent's compaction (Claude Code, opencode: recorded before; Claude Code --compaction: compactd is the compaction)",
		run:     runHooks,
	})
}

const hooksUsage = `usage: compactd hooks install claude|opencode [--project] [--compaction] [--dry-run]
       compactd hooks uninstall claude|opencode [--project] [--dry-run]
       compactd hooks status [AGENT] [--json]
       compactd hooks precompact|compact --agent claude [--store PATH]   (run by the hooks, JSON on stdin)
       compactd hooks precompact --agent opencode --session ID [--store PATH]`

func runHooks(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("%s", hooksUsage)
	}
	switch args[0] {
	case "install", "uninstall":
		return runHooksInstall(ctx, e, args[0], args[1:])
	case "status":
		return runHooksStatus(ctx, e, args[1:])
	case "precompact":
		return runPreCompact(ctx, e, args[1:])
	case "compact":
		return runHookCompact(ctx, e, args[1:])
	}
	return usagef("%s", hooksUsage)
}

func runHooksInstall(ctx context.Context, e *env, verb string, args []string) error {
	fs := newFlagSet("hooks "+verb, e)
	project := fs.Bool("project", false, "write the project's settings (.claude/settings.json) instead of the user's")
	compaction := fs.Bool("compaction", false, "also make compactd Claude Code's compaction (a plugin folder, loaded from the user's settings)")
	dryRun := fs.Bool("dry-run", false, "print the changes as diffs and write nothing")
	storeFlag := fs.String("store", "", "the store the hooks record into (default COMPACTD_STORE, else the XDG state folder)")
	command := fs.String("command", "", "the compactd executable the hooks run (default this one)")
	asJSON := fs.Bool("json", false, "print what changed as JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s", hooksUsage)
	}
	a, err := install.Agent(pos[0])
	if err != nil {
		return usagef("%v", err)
	}
	server, err := serverOf(e, *command, *storeFlag)
	if err != nil {
		return err
	}
	t := install.Target{Agent: a, Scope: install.ScopeUser, Folder: workingDir(), Env: agents.EnvFromOS(e.getenv)}
	if *project {
		t.Scope = install.ScopeProject
	}
	changes, err := install.PlanHooks(t, server, install.HookOptions{Compaction: *compaction, PluginDir: install.PluginDir(server.Store)}, verb == "uninstall")
	if err != nil {
		return usagef("%v", err)
	}
	var reports []changeReport
	for _, c := range changes {
		if !*dryRun {
			if err := c.Apply(); err != nil {
				return err
			}
		}
		reports = append(reports, changeReport{Change: c, Changed: c.Changed(), DryRun: *dryRun, Removed: c.Changed() && c.After == nil})
		if *asJSON {
			continue
		}
		switch {
		case !c.Changed():
			fmt.Fprintf(e.stdout, "%s: nothing to do\n", c.Path)
		case *dryRun:
			printDiff(e.stdout, c)
		case c.After == nil:
			fmt.Fprintf(e.stdout, "removed %s\n", c.Path)
		default:
			fmt.Fprintf(e.stdout, "wrote %s\n", c.Path)
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, reports)
	}
	return nil
}

func runHooksStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("hooks status", e)
	asJSON := fs.Bool("json", false, "print a JSON array")
	storeFlag := fs.String("store", "", "the store (its folder holds the plugin)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	list := agents.All()
	if len(pos) == 1 {
		a, err := install.Agent(pos[0])
		if err != nil {
			return usagef("%v", err)
		}
		list = []*agents.Agent{a}
	}
	st, err := resolveStore(e, *storeFlag)
	if err != nil {
		return err
	}
	found, err := hookInstalls(list, agents.EnvFromOS(e.getenv), workingDir(), install.PluginDir(st))
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, found)
	}
	printHookInstalls(e.stdout, found)
	return nil
}

func hookInstalls(list []*agents.Agent, env agents.Env, folder, plugin string) ([]install.HookInstalled, error) {
	found := []install.HookInstalled{}
	for _, a := range list {
		in, err := install.HooksStatus(a, env, folder, plugin)
		if err != nil {
			return nil, err
		}
		found = append(found, in...)
	}
	return found, nil
}

func printHookInstalls(w io.Writer, found []install.HookInstalled) {
	if len(found) == 0 {
		fmt.Fprintln(w, "compactd's hooks are not installed (compactd hooks install claude)")
		return
	}
	for _, in := range found {
		what := "records before each compaction"
		if in.Compaction {
			what += ", compactd is the compaction"
		}
		fmt.Fprintf(w, "%-9s %-8s %s  (%s)\n", in.Agent, in.Scope, in.Path, what)
	}
}

// hookInput is what Claude Code's hooks hand compactd on stdin.
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Trigger        string `json:"trigger"`
	Instructions   string `json:"instructions"`
	// CustomInstructions is PreCompact's name for them.
	CustomInstructions string `json:"custom_instructions"`
}

func readHookInput(e *env) (hookInput, error) {
	var in hookInput
	b, err := io.ReadAll(io.LimitReader(e.stdin, 1<<20))
	if err != nil {
		return in, err
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, usagef("the hook's input is not JSON: %v", err)
	}
	if in.TranscriptPath == "" {
		return in, usagef("the hook's input names no transcript_path")
	}
	return in, nil
}

// runPreCompact is Claude Code's PreCompact command hook: the conversation
// as it is before the agent compacts it becomes a version in the store.
// It writes nothing on stdout (Claude Code would add it to the summary's
// instructions) and never blocks the compaction: a failure exits 1, which
// Claude Code shows and compacts anyway.
func runPreCompact(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("hooks precompact", e)
	agentName := fs.String("agent", "claude", "the agent running the hook")
	storeFlag := fs.String("store", "", "the store to record into")
	sessionID := fs.String("session", "", "opencode: the session about to be compacted (its plugin names it; no input on stdin)")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	var in hookInput
	if *sessionID != "" {
		// A session in the agent's database: rendered as the daemon
		// renders it, then recorded like a file.
		env := agents.EnvFromOS(e.getenv)
		path, err := watch.RenderDatabaseSession(ctx, env, opencode.Database(env, *agentName), *sessionID)
		if err != nil {
			return err
		}
		if path, err = beforeCompactionRequest(path); err != nil {
			return err
		}
		in = hookInput{TranscriptPath: path, Trigger: "opencode"}
	} else {
		var err error
		if in, err = readHookInput(e); err != nil {
			return err
		}
	}
	runner, closeStore, err := openRunner(ctx, e, *storeFlag)
	if err != nil {
		return err
	}
	defer closeStore()
	res, err := runner.Record(ctx, in.TranscriptPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "compactd: recorded %s of %s before Claude Code's %s compaction\n", res.Version, res.Path, in.Trigger)
	return nil
}

// beforeCompactionRequest is the rendered opencode session without the
// compaction request opencode adds (a user message whose only part is
// {"type":"compaction"}) just before it calls its plugins: the
// conversation as it was, written beside the rendering; the rendering
// itself when it ends otherwise.
func beforeCompactionRequest(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var doc struct {
		Info     json.RawMessage   `json:"info"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Messages) == 0 {
		return path, nil
	}
	var last struct {
		Parts []struct {
			Type string `json:"type"`
		} `json:"parts"`
	}
	if json.Unmarshal(doc.Messages[len(doc.Messages)-1], &last) != nil || len(last.Parts) == 0 {
		return path, nil
	}
	for _, p := range last.Parts {
		if p.Type != "compaction" {
			return path, nil
		}
	}
	doc.Messages = doc.Messages[:len(doc.Messages)-1]
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	before := strings.TrimSuffix(path, ".json") + ".before-compaction.json"
	if err := os.WriteFile(before, append(out, '\n'), 0o600); err != nil {
		return "", err
	}
	return before, nil
}

// runHookCompact answers compactd's session.compact function hook: the
// summary Claude Code continues on, as JSON.
func runHookCompact(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("hooks compact", e)
	fs.String("agent", "claude", "the agent running the hook")
	storeFlag := fs.String("store", "", "the store to record into")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	in, err := readHookInput(e)
	if err != nil {
		return err
	}
	runner, closeStore, err := openRunner(ctx, e, *storeFlag)
	if err != nil {
		return err
	}
	defer closeStore()
	cfg := loadConfig(e, in.TranscriptPath)
	res, err := runner.CompactForAgent(ctx, jobs.AgentCompactRequest{Path: in.TranscriptPath, Instructions: in.Instructions, Summarize: cfg.Summarize})
	if err != nil {
		return err
	}
	return writeJSON(e.stdout, res)
}
