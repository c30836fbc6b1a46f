package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/aymanbagabas/go-udiff"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/install"
)

// runMCPInstall is `compactd mcp install|uninstall AGENT`.
func runMCPInstall(ctx context.Context, e *env, verb string, args []string) error {
	fs := newFlagSet("mcp "+verb, e)
	project := fs.Bool("project", false, "write the project's file (in the current folder) instead of the user's")
	dryRun := fs.Bool("dry-run", false, "print the change as a diff and write nothing")
	storeFlag := fs.String("store", "", "the store the server reads (default COMPACTD_STORE, else the XDG state folder)")
	command := fs.String("command", "", "the compactd executable the agent starts (default this one)")
	asJSON := fs.Bool("json", false, "print what changed as JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s", mcpUsage)
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
	c, err := install.PlanMCP(t, server, verb == "uninstall")
	if err != nil {
		return err
	}
	return report(e, c, verb, *dryRun, *asJSON)
}

// serverOf is how agents start this compactd's MCP server.
func serverOf(e *env, command, storeFlag string) (install.Server, error) {
	if command == "" {
		exe, err := os.Executable()
		if err != nil {
			return install.Server{}, fmt.Errorf("find compactd's own executable: %w (pass --command)", err)
		}
		command = exe
	}
	abs, err := filepath.Abs(command)
	if err != nil {
		return install.Server{}, err
	}
	st, err := resolveStore(e, storeFlag)
	if err != nil {
		return install.Server{}, err
	}
	if st, err = filepath.Abs(st); err != nil {
		return install.Server{}, err
	}
	return install.Server{Command: abs, Store: st, Getenv: e.getenv}, nil
}

// changeReport is what an install printed as JSON.
type changeReport struct {
	install.Change
	Changed bool `json:"changed"`
	DryRun  bool `json:"dryRun"`
	// Removed says the file was (or would be) removed: it held nothing
	// but compactd's entry.
	Removed bool `json:"removed,omitempty"`
}

// report applies c (unless dryRun) and says what it did.
func report(e *env, c install.Change, verb string, dryRun, asJSON bool) error {
	if !dryRun {
		if err := c.Apply(); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, changeReport{Change: c, Changed: c.Changed(), DryRun: dryRun, Removed: c.Changed() && c.After == nil})
	}
	switch {
	case !c.Changed() && verb == "uninstall":
		fmt.Fprintf(e.stdout, "compactd is not in %s; nothing to do\n", c.Path)
	case !c.Changed():
		fmt.Fprintf(e.stdout, "%s already has compactd; nothing to do\n", c.Path)
	case dryRun:
		printDiff(e.stdout, c)
	case c.After == nil:
		fmt.Fprintf(e.stdout, "removed %s (it held nothing but compactd)\n", c.Path)
	case verb == "uninstall":
		fmt.Fprintf(e.stdout, "removed compactd from %s\n", c.Path)
	default:
		fmt.Fprintf(e.stdout, "added compactd to %s (%s, %s)\n", c.Path, c.Agent, c.Scope)
	}
	return nil
}

// printDiff writes the change as a unified diff.
func printDiff(w io.Writer, c install.Change) {
	from, to := c.Path, c.Path
	if c.Before == nil {
		from = "/dev/null"
	}
	if c.After == nil {
		to = "/dev/null"
	}
	fmt.Fprint(w, udiff.Unified(from, to, string(c.Before), string(c.After)))
}

// runMCPStatus is `compactd mcp status [AGENT]`.
func runMCPStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("mcp status", e)
	asJSON := fs.Bool("json", false, "print a JSON array")
	storeFlag := fs.String("store", "", "the store an install would name (to tell a current entry)")
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
	} else if len(pos) > 1 {
		return usagef("%s", mcpUsage)
	}
	server, err := serverOf(e, "", *storeFlag)
	if err != nil {
		return err
	}
	found, err := mcpInstalls(list, agents.EnvFromOS(e.getenv), workingDir(), server)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, found)
	}
	printInstalls(e.stdout, found)
	return nil
}

func mcpInstalls(list []*agents.Agent, env agents.Env, folder string, server install.Server) ([]install.Installed, error) {
	found := []install.Installed{}
	for _, a := range list {
		in, err := install.MCPStatus(a, env, folder, server)
		if err != nil {
			return nil, err
		}
		found = append(found, in...)
	}
	return found, nil
}

func printInstalls(w io.Writer, found []install.Installed) {
	if len(found) == 0 {
		fmt.Fprintln(w, "compactd's MCP server is not installed for any agent (compactd mcp install AGENT)")
		return
	}
	for _, in := range found {
		note := ""
		if !in.Current {
			note = "  (differs from what an install writes now: run compactd mcp install again)"
		}
		fmt.Fprintf(w, "%-9s %-8s %s%s\n", in.Agent, in.Scope, in.Path, note)
	}
}
