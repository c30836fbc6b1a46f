package daemon

import (
	"context"
	"fmt"
	"os"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/install"
	"github.com/compactd/compactd/daemon/jobs"
)

// HandoffRequest asks to continue a transcript's conversation in another
// agent ("Continue in…").
type HandoffRequest struct {
	Path string
	// To names the agent ("codex"); HandoffTargets lists them.
	To string
	// Overrides are what the command's arguments set over the
	// transcript's configuration (a budget, strategies).
	Overrides config.Overrides
	// MCP installs compactd's MCP server in the target's user settings,
	// so that it can recall what the handoff left out.
	MCP bool
	// Import has an agent that imports sessions (opencode, Kilo) import
	// the new one.
	Import   bool
	Progress Progress
}

// Handoff is what a handoff reports.
type Handoff struct {
	Message string `json:"-"`
	// Open is the new session's file.
	Open string `json:"-"`
	jobs.HandoffResult
}

// Summary implements Result.
func (h *Handoff) Summary() (message, open string) { return h.Message, h.Open }

// HandoffTargets are the agents a conversation can continue in.
func HandoffTargets() []string { return jobs.HandoffTargets() }

// Handoff writes the transcript's conversation as a new session of
// another agent, compacted to fit its model's window (or the budget
// given), and says how to resume it.
func (d *Daemon) Handoff(ctx context.Context, req HandoffRequest) (*Handoff, error) {
	r, err := d.runner()
	if err != nil {
		return nil, err
	}
	if err := req.Overrides.Check(); err != nil {
		return nil, err
	}
	defer d.JobRunning()()
	defer d.opts.Memory.Lift()()
	cfg := d.Config(req.Path)
	opts := cfg.CompactOptions(0, req.Overrides)
	// The target model's window and budget, not those the source's
	// configuration sets for its own gauge.
	opts.Window = 0
	if req.Overrides.Budget == nil {
		opts.Budget = 0
	}
	if req.Overrides.Strategies == nil {
		opts.Strategies = nil // the handoff's own: see jobs.HandoffRequest
	}
	job := jobs.HandoffRequest{
		Path: req.Path, To: req.To, Options: opts, Summarize: cfg.Summarize, Workspace: d.folderOf(req.Path),
		Env: d.opts.Env, Import: req.Import, Progress: jobs.Progress(req.Progress), Parsed: d.Parsed(req.Path),
	}
	if req.MCP {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find compactd's own executable for the MCP server: %w", err)
		}
		job.MCP = &install.Server{Command: exe, Store: r.Store.Path(), Getenv: os.Getenv}
	}
	res, err := r.Handoff(ctx, job)
	if err != nil {
		return nil, err
	}
	d.recordVersioned(req.Path, res.Path)
	label := res.To
	if a := agents.ByName(res.To); a != nil && a.Label != "" {
		label = a.Label
	}
	out := &Handoff{HandoffResult: *res, Open: res.Path}
	out.Message = fmt.Sprintf("continued in %s as %s; resume it with: %s", label, res.Version, res.Resume)
	return out, nil
}

// HandoffLabels name the agents a conversation can continue in as users
// know them ("Codex CLI"), in HandoffTargets' order.
func HandoffLabels() []string {
	var out []string
	for _, name := range HandoffTargets() {
		out = append(out, HandoffLabel(name))
	}
	return out
}

// HandoffLabel is the name users know agent by.
func HandoffLabel(agent string) string {
	if a := agents.ByName(agent); a != nil && a.Label != "" {
		return a.Label
	}
	return agent
}

// HandoffTargetOf is the agent a label (or a name) names; "" if none.
func HandoffTargetOf(label string) string {
	for _, name := range HandoffTargets() {
		if name == label || HandoffLabel(name) == label {
			return name
		}
	}
	return ""
}

// RecallMissing reports whether agent can take compactd's MCP server and
// has none configured for the transcript's folder.
func (d *Daemon) RecallMissing(path, agent string) bool {
	a := agents.ByName(agent)
	if a == nil || a.MCP == nil {
		return false
	}
	installed, err := install.MCPStatus(a, d.opts.Env, d.folderOf(path), install.Server{})
	return err == nil && len(installed) == 0
}
