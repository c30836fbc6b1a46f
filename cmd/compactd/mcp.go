package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/daemon/agents"
	_ "github.com/compactd/compactd/daemon/agents/all"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/mcpserver"
	"github.com/compactd/compactd/lsp"
)

func init() {
	register(&command{
		name:    "mcp",
		summary: "serve recall, context_status and search to an agent over MCP (stdio); install|uninstall|status AGENT configure it",
		run:     runMCP,
	})
}

const mcpUsage = `usage: compactd mcp [--agent NAME] [--store PATH]        serve MCP on stdin/stdout
       compactd mcp install AGENT [--project] [--dry-run]   write it into the agent's MCP config
       compactd mcp uninstall AGENT [--project] [--dry-run] remove it again
       compactd mcp status [AGENT] [--json]                  where it is installed`

func runMCP(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "install", "uninstall":
			return runMCPInstall(ctx, e, args[0], args[1:])
		case "status":
			return runMCPStatus(ctx, e, args[1:])
		}
	}
	fs := newFlagSet("mcp", e)
	agentName := fs.String("agent", "", "the agent that starts the server (claude, codex, gemini, qwen, opencode): its sessions are the candidates for context_status")
	storeFlag := fs.String("store", "", "the store (default COMPACTD_STORE, else the XDG state folder)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("%s", mcpUsage)
	}
	path, err := resolveStore(e, *storeFlag)
	if err != nil {
		return err
	}
	s := &mcpserver.Server{StorePath: path, Env: agents.EnvFromOS(e.getenv), Cwd: workingDir(), SessionHint: e.getenv("COMPACTD_SESSION"), Getenv: e.getenv, Args: agents.ParentArgs()}
	// The search index's bound: the user's setting (a workspace file that
	// does not validate leaves the default, as the tools never refuse).
	cfg, err := config.Load(config.Nearest("", s.Cwd))
	if err != nil {
		cfg = config.Default()
	}
	s.MaxIndexBytes = cfg.Search.MaxIndexBytes()
	if *agentName != "" {
		if s.Agent = agentNamed(*agentName); s.Agent == nil {
			return usagef("unknown agent %q", *agentName)
		}
	}
	defer s.Close()
	err = mcpserver.New(s, lsp.Version).Run(ctx, &mcp.IOTransport{Reader: nopCloser{e.stdin}, Writer: nopWriteCloser{e.stdout}})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil // the agent closed the pipe: the normal end
	}
	if err != nil {
		return fmt.Errorf("serve MCP: %w", err)
	}
	return nil
}

// agentNamed is the registered agent called name, nil if none.
func agentNamed(name string) *agents.Agent {
	for _, a := range agents.All() {
		if a.Name == name {
			return a
		}
	}
	return nil
}

type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
