package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/jobs"
)

// When a watched session gains a compaction of the agent's own, the server
// says at once what the agent's summary dropped: a compactd/agentCompaction
// notification with its two actions (the editors show it with buttons;
// clients that do not declare they handle it get the same message as a
// window/showMessageRequest), and a diagnostic on the compaction's line.
// The ledger is computed in the background, one per file at a time, and
// never delays the gauge.
const (
	methodAgentCompaction = "compactd/agentCompaction"
	// agentCompactionCode marks the diagnostic on a compaction's line,
	// loopCode the one that warns of a loop.
	agentCompactionCode = "agent-compaction"
	loopCode            = "compaction-loop"
	// The actions' titles.
	titleRestoreBefore = "Restore from before"
	titleRecompact     = "Re-compact with compactd"
)

// AgentCompactionNote is the compactd/agentCompaction notification.
type AgentCompactionNote struct {
	URI    protocol.DocumentURI `json:"uri"`
	Format string               `json:"format"`
	// Compaction is what the agent's compaction lost, with its figures.
	Compaction jobs.AgentLoss `json:"compaction"`
	// Health is how the session's compactions went together (a loop).
	Health gauge.Health `json:"health"`
	// Message is the sentence to show.
	Message string `json:"message"`
	// Actions are the two commands, ready to execute.
	Actions []protocol.Command `json:"actions"`
}

// agentCompacted starts the ledger of a snapshot that brought an agent
// compaction; a newer one for the same file cancels it.
func (s *Server) agentCompacted(snap *index.Snapshot) {
	d := s.currentDaemon()
	if d == nil {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	if prev := s.ledgerRuns[snap.Path]; prev != nil {
		prev()
	}
	s.ledgerRuns[snap.Path] = cancel
	s.mu.Unlock()
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		defer cancel()
		start := time.Now()
		l, err := d.LatestAgentCompaction(ctx, snap.Path)
		if err != nil || len(l.Compactions) == 0 {
			if err != nil && ctx.Err() == nil {
				s.opts.Logger.Info("agent compaction ledger", "path", snap.Path, "err", err)
			}
			return
		}
		s.opts.Logger.Info("agent compaction", "path", snap.Path, "compaction", l.Compactions[len(l.Compactions)-1].Compaction, "ledger", time.Since(start))
		s.announce(ctx, d, snap, l)
	}()
}

// announce sends the notification, the diagnostics and, to clients that
// do not handle the notification, the message with its actions.
func (s *Server) announce(ctx context.Context, d *daemon.Daemon, snap *index.Snapshot, l *daemon.AgentLedger) {
	last := l.Compactions[len(l.Compactions)-1]
	u := pathURI(snap.Path)
	// A summary the agent writes again (Claude Code repeats it when it
	// resumes the session) is not a new compaction: each is announced once.
	s.mu.Lock()
	already := slices.Contains(s.announced[snap.Path], last.Compaction)
	s.mu.Unlock()
	if already {
		return
	}
	note := AgentCompactionNote{URI: u, Format: string(snap.Format), Compaction: last, Health: l.Health,
		Message: announcement(snap, last, l.Health), Actions: ledgerActions(u, last.Compaction)}
	s.mu.Lock()
	s.announced[snap.Path] = append(s.announced[snap.Path], last.Compaction)
	s.mu.Unlock()
	s.setLedgerDiagnostics(u, snap.Path, l)
	agentCompactionNotification.send(s, note)
	if s.handlesAgentCompaction() || d.JobsUnavailable() != nil {
		return
	}
	items := make([]protocol.MessageActionItem, len(note.Actions))
	for i, a := range note.Actions {
		items[i] = protocol.MessageActionItem{Title: a.Title}
	}
	typ := protocol.MessageTypeInfo
	if l.Health.Loop {
		typ = protocol.MessageTypeWarning
	}
	var chosen *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{Type: typ, Message: note.Message, Actions: items}, &chosen); err != nil || chosen == nil {
		return
	}
	for _, a := range note.Actions {
		if a.Title == chosen.Title {
			_, _ = s.runCommand(context.WithoutCancel(ctx), a.Command, CommandArgs{URI: u, Version: last.Compaction})
		}
	}
}

// announcement is the notification's sentence: "claude-code compacted
// this conversation (a2): compaction a2 (auto, 167k → 9.4k) lost …".
func announcement(snap *index.Snapshot, c jobs.AgentLoss, h gauge.Health) string {
	msg := fmt.Sprintf("%s compacted this conversation on its own: %s.", snap.Format, c.Summary)
	if h.Loop {
		msg += " ⚠ " + h.Warning + "."
	}
	return msg + " " + titleRestoreBefore + " writes the conversation as it was before it; " + titleRecompact + " compacts that history with compactd instead."
}

// ledgerActions are the two commands for agent compaction label.
func ledgerActions(u protocol.DocumentURI, label string) []protocol.Command {
	arg := map[string]any{"uri": string(u), "version": label}
	return []protocol.Command{
		{Title: titleRestoreBefore, Command: cmdRestoreBeforeAgent, Arguments: []any{arg}},
		{Title: titleRecompact, Command: cmdRecompactAgent, Arguments: []any{arg}},
	}
}

// handlesAgentCompaction reports whether the client said it shows the
// compactd/agentCompaction notification itself (experimental
// {"compactd": {"agentCompaction": true}}, as both editors do).
func (s *Server) handlesAgentCompaction() bool {
	s.mu.Lock()
	exp := s.client.Experimental
	s.mu.Unlock()
	raw, err := json.Marshal(exp)
	if err != nil {
		return false
	}
	var caps struct {
		Compactd struct {
			AgentCompaction bool `json:"agentCompaction"`
		} `json:"compactd"`
	}
	return json.Unmarshal(raw, &caps) == nil && caps.Compactd.AgentCompaction
}

// setLedgerDiagnostics puts a diagnostic on the line of every compaction
// announced in this session, and one warning of a loop, then publishes
// the file's diagnostics.
func (s *Server) setLedgerDiagnostics(u protocol.DocumentURI, path string, l *daemon.AgentLedger) {
	s.mu.Lock()
	labels := map[string]bool{}
	for _, a := range s.announced[path] {
		labels[a] = true
	}
	s.mu.Unlock()
	var diags []protocol.Diagnostic
	for _, c := range l.Compactions {
		if !labels[c.Compaction] {
			continue
		}
		line := uint32(max(c.Line, 0))
		diags = append(diags, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line, Character: 1}},
			Severity: protocol.DiagnosticSeverityInformation, Code: agentCompactionCode, Source: "compactd",
			Message: "The agent compacted here: " + c.Summary, Data: map[string]string{"version": c.Compaction},
		})
	}
	if l.Health.Loop && len(l.Compactions) > 0 {
		c := l.Compactions[len(l.Compactions)-1]
		line := uint32(max(c.Line, 0))
		diags = append(diags, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line, Character: 1}},
			Severity: protocol.DiagnosticSeverityWarning, Code: loopCode, Source: "compactd",
			Message: "Compaction loop: " + l.Health.Warning, Data: map[string]string{"version": c.Compaction},
		})
	}
	s.mu.Lock()
	s.ledgerDiags[u] = diags
	s.mu.Unlock()
	s.publishDiagnostics(u, s.snapshotOf(u))
}

// agentVersionOf is the agent compaction a compactd diagnostic names ("a2"), "" when none.
func agentVersionOf(d protocol.Diagnostic) string {
	if d.Source != "compactd" || (fmt.Sprint(d.Code) != agentCompactionCode && fmt.Sprint(d.Code) != loopCode) {
		return ""
	}
	raw, err := json.Marshal(d.Data)
	if err != nil {
		return ""
	}
	var data struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(raw, &data) != nil || !strings.HasPrefix(data.Version, "a") {
		return ""
	}
	return data.Version
}
