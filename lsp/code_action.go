package lsp

import (
	"context"
	"encoding/json"
	"time"

	"go.lsp.dev/protocol"
)

// codeAction offers the compaction commands on any tracked transcript;
// "Compact conversation" is the quick fix of compactd's own diagnostic.
func (s *Server) codeAction(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	actions := []protocol.CodeAction{}
	snap, d := s.snapshotOf(p.TextDocument.URI), s.currentDaemon()
	if snap == nil || d == nil {
		return actions, nil
	}
	var ours, agentDiags []protocol.Diagnostic
	for _, dg := range p.Context.Diagnostics {
		switch {
		case agentVersionOf(dg) != "":
			agentDiags = append(agentDiags, dg)
		case dg.Source == "compactd":
			ours = append(ours, dg)
		}
	}
	arg := map[string]any{"uri": string(p.TextDocument.URI)}
	// Without a store the commands cannot run: a client that shows
	// disabled actions shows them greyed out with the reason; others get
	// none (offering them would only lead to an error).
	var disabled *protocol.CodeActionDisable
	unavailable := d.JobsUnavailable()
	if unavailable != nil {
		s.mu.Lock()
		supported := s.client.TextDocument != nil && s.client.TextDocument.CodeAction != nil && s.client.TextDocument.CodeAction.DisabledSupport
		s.mu.Unlock()
		if !supported {
			return actions, nil
		}
		disabled = &protocol.CodeActionDisable{Reason: unavailable.Error()}
	}
	add := func(title, cmd string, kind protocol.CodeActionKind, diags []protocol.Diagnostic, preferred bool) {
		if !kindWanted(p.Context.Only, kind) {
			return
		}
		actions = append(actions, protocol.CodeAction{
			Title: title, Kind: kind, Diagnostics: diags, IsPreferred: preferred && disabled == nil, Disabled: disabled,
			Command: &protocol.Command{Title: title, Command: cmd, Arguments: []any{arg}},
		})
	}
	add("Compact conversation", cmdCompact, protocol.QuickFix, ours, len(ours) > 0)
	if knee := d.KneeBudget(snap.Path); knee > 0 {
		arg = map[string]any{"uri": string(p.TextDocument.URI), "budget": knee}
	}
	add("Compact to fit…", cmdCompactToFit, protocol.QuickFix, nil, false)
	arg = map[string]any{"uri": string(p.TextDocument.URI)}
	if unavailable == nil && kindWanted(p.Context.Only, protocol.Source) {
		actions = append(actions, recallActions(snap, p.TextDocument.URI, p.Range.Start)...)
	}
	add("Dry-run compaction", cmdDryRun, protocol.QuickFix, nil, false)
	add("Compact conversation in place", cmdCompactInPlace, protocol.Source, nil, false)
	add("Continue in another agent…", cmdHandoff, protocol.Source, nil, false)
	// A pin on the line the cursor is on: the command says when the line
	// holds no message the model sees.
	arg = map[string]any{"uri": string(p.TextDocument.URI), "line": int(p.Range.Start.Line)}
	add("Keep this message verbatim in every compaction (pin)", cmdPin, protocol.Source, nil, false)
	add("Unpin this message", cmdUnpin, protocol.Source, nil, false)
	arg = map[string]any{"uri": string(p.TextDocument.URI)}
	if unavailable == nil {
		// A short bound: the store answers in microseconds; a busy one
		// must not stall the lightbulb.
		vctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		has, err := d.HasVersions(vctx, snap.Path)
		cancel()
		if err == nil && has {
			add("Restore version…", cmdRestore, protocol.Source, nil, false)
		}
		// The agent compaction a diagnostic names: its two actions first.
		named := map[string]bool{}
		for _, dg := range agentDiags {
			v := agentVersionOf(dg)
			if named[v] {
				continue
			}
			named[v] = true
			arg = map[string]any{"uri": string(p.TextDocument.URI), "version": v}
			add(titleRestoreBefore+" "+v, cmdRestoreBeforeAgent, protocol.QuickFix, []protocol.Diagnostic{dg}, true)
			add(titleRecompact+" ("+v+")", cmdRecompactAgent, protocol.QuickFix, []protocol.Diagnostic{dg}, false)
		}
		actx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		last, err := d.LastAgentCompaction(actx, snap.Path)
		cancel()
		if err == nil && !named[last] {
			arg = map[string]any{"uri": string(p.TextDocument.URI), "version": last}
			add("Restore from before the agent's compaction ("+last+")", cmdRestoreBeforeAgent, protocol.Source, nil, false)
			add("Re-compact with compactd ("+last+")", cmdRecompactAgent, protocol.Source, nil, false)
		}
	}
	return actions, nil
}

func kindWanted(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == kind || len(kind) > len(o) && string(kind[:len(o)]) == string(o) && kind[len(o)] == '.' {
			return true
		}
	}
	return false
}
