package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
)

// handoffCommand runs compactd.handoff: the agent the arguments name, else
// the one the user picks; compactd's MCP server installed there when the
// arguments say so, else when the user says yes to it.
func handoffCommand(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Handoff, error) {
	agent := c.args.Agent
	targets := daemon.HandoffTargets()
	if agent == "" {
		var err error
		if agent, err = s.pick(ctx, "Continue this conversation in which agent?", daemon.HandoffLabels()); err != nil {
			return nil, err
		}
		agent = daemon.HandoffTargetOf(agent)
	}
	if !slices.Contains(targets, agent) {
		return nil, fmt.Errorf("compactd cannot continue a conversation in %q; it can in %s", agent, strings.Join(targets, ", "))
	}
	mcp := false
	switch {
	case c.args.MCP != nil:
		mcp = *c.args.MCP
	case d.RecallMissing(c.path, agent):
		const yes = "Install and continue"
		answer, err := s.pick(ctx, fmt.Sprintf("Install compactd's MCP server in %s's settings, so it can recall what the handoff leaves out?", daemon.HandoffLabel(agent)), []string{yes, "Continue without it"})
		if err != nil {
			return nil, err
		}
		mcp = answer == yes
	}
	return d.Handoff(ctx, daemon.HandoffRequest{Path: c.path, To: agent, Overrides: c.args.Overrides(), MCP: mcp, Progress: c.progress})
}

// pick asks the user to choose one of titles (window/showMessageRequest).
func (s *Server) pick(ctx context.Context, question string, titles []string) (string, error) {
	items := make([]protocol.MessageActionItem, len(titles))
	for i, t := range titles {
		items[i] = protocol.MessageActionItem{Title: t}
	}
	var chosen *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeInfo, Message: question, Actions: items,
	}, &chosen); err != nil {
		return "", err
	}
	if chosen == nil {
		return "", errors.New("nothing was chosen; nothing was written")
	}
	if !slices.Contains(titles, chosen.Title) {
		return "", fmt.Errorf("the editor answered %q, which is none of %s; nothing was written", chosen.Title, strings.Join(titles, ", "))
	}
	return chosen.Title, nil
}
