package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon"
)

// The commands, all taking one argument object (CommandArgs).
const (
	cmdCompact        = "compactd.compact"
	cmdDryRun         = "compactd.dryRun"
	cmdCompactInPlace = "compactd.compactInPlace"
	cmdHistory        = "compactd.history"
	cmdRestore        = "compactd.restore"
	cmdDiff           = "compactd.diff"
	// The agent's own compactions (version "a1", "a2", …; the last when
	// none is given): the conversation before one as a new session, or
	// that history compacted by compactd.
	cmdRestoreBeforeAgent = "compactd.restoreBeforeAgentCompaction"
	cmdRecompactAgent     = "compactd.recompactAgentCompaction"
)

func commandNames() []string {
	return []string{cmdCompact, cmdDryRun, cmdCompactInPlace, cmdHistory, cmdRestore, cmdDiff, cmdRestoreBeforeAgent, cmdRecompactAgent}
}

// CommandArgs is the one argument of every compactd command.
type CommandArgs struct {
	URI        protocol.DocumentURI `json:"uri"`
	Strategies []string             `json:"strategies,omitempty"`
	KeepLast   int                  `json:"keepLast,omitempty"`
	// Turns is how many turns turn-window keeps (compactd.compact.turns when 0).
	Turns   int    `json:"turns,omitempty"`
	Version string `json:"version,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
}

// CommandResult is what every command returns.
type CommandResult struct {
	Command string `json:"command"`
	URI     string `json:"uri"`
	Message string `json:"message"`
	// Open is the URI of the fork or report the command produced, if any.
	Open   string `json:"open,omitempty"`
	Result any    `json:"result,omitempty"`
}

// executeCommand runs detached (see orderedHandler): it may take minutes,
// calls the client for progress, and must not hold back other messages.
func (s *Server) executeCommand(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Command       string                  `json:"command"`
		Arguments     []json.RawMessage       `json:"arguments"`
		WorkDoneToken *protocol.ProgressToken `json:"workDoneToken"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	args, err := parseCommandArgs(p.Arguments)
	if err != nil {
		return nil, err
	}
	d := s.currentDaemon()
	path := uriPath(args.URI)
	switch {
	case d == nil:
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "compactd is not running (initialization failed)")
	case path == "":
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s needs a file uri, got %q", p.Command, args.URI)
	case !d.Allowed(path):
		return nil, s.fail(p.Command, fmt.Errorf("refused: %s is outside the workspace and the agents' folders", path))
	case s.opts.Jobs == nil:
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, s.jobsUnavailable().Error())
	}
	req := s.jobRequest(path, args.Strategies, args.KeepLast)
	req.Version, req.From, req.To, req.Turns = args.Version, args.From, args.To, args.Turns

	var (
		res   *daemon.JobResult
		title string
		jobs  = s.opts.Jobs
	)
	switch p.Command {
	case cmdCompact:
		title = "Compacting conversation"
	case cmdDryRun:
		title, req.DryRun = "Dry-run compaction", true
	case cmdCompactInPlace:
		title, req.InPlace = "Compacting conversation in place", true
	case cmdRestore:
		title = "Restoring version"
	case cmdRestoreBeforeAgent:
		title = "Restoring from before the agent's compaction"
	case cmdRecompactAgent:
		title = "Re-compacting the agent's compaction with compactd"
	case cmdHistory, cmdDiff:
	default:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}

	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer d.JobRunning()() // the background estimates wait for the command
	var prog *progress
	if title != "" {
		prog = s.startProgress("compactd: "+title, true)
		prog.onCancel(cancel)
	}
	report := func(msg string, pct int) { prog.report(msg, pct) }
	switch p.Command {
	case cmdCompact, cmdCompactInPlace:
		if slices.Contains(req.Strategies, strategy.StrategyClassifyTangents) {
			// Tangents are removed only with the user's yes: a dry run
			// finds them, the user confirms, the real run removes those.
			if req.ConfirmedTangents, err = s.confirmTangents(jobCtx, req, report); err != nil {
				break
			}
		}
		res, err = jobs.Compact(jobCtx, req, report)
	case cmdDryRun:
		res, err = jobs.Compact(jobCtx, req, report)
	case cmdRestore:
		if req.Version == "" {
			if req.Version, err = s.pickVersion(jobCtx, req); err != nil || req.Version == "" {
				prog.end("nothing restored")
				if err == nil {
					err = errors.New("no version chosen")
				}
				return nil, s.fail(p.Command, err)
			}
		}
		res, err = jobs.Restore(jobCtx, req, report)
	case cmdRestoreBeforeAgent, cmdRecompactAgent:
		if req.Version == "" {
			req.Version, err = s.lastAgentCompaction(jobCtx, path)
		}
		if err != nil {
			break
		}
		if p.Command == cmdRestoreBeforeAgent {
			res, err = jobs.Restore(jobCtx, req, report)
			break
		}
		req.Before, req.Version = req.Version, ""
		res, err = jobs.Compact(jobCtx, req, report)
	case cmdHistory:
		res, err = jobs.History(jobCtx, req)
	case cmdDiff:
		res, err = jobs.Diff(jobCtx, req)
	}
	if err != nil {
		prog.end("failed")
		if jobCtx.Err() != nil {
			s.showMessage(protocol.MessageTypeInfo, "compactd: %s cancelled; nothing was written", strings.ToLower(title))
			return nil, protocol.ErrRequestCancelled
		}
		return nil, s.fail(p.Command, err)
	}
	prog.end("done")
	out := CommandResult{Command: p.Command, URI: string(args.URI), Message: res.Message, Result: res.Data}
	if res.Message != "" {
		s.showMessage(protocol.MessageTypeInfo, "compactd: %s", res.Message)
	}
	if res.Open != "" {
		out.Open = string(pathURI(res.Open))
		s.showDocument(ctx, pathURI(res.Open))
	}
	if p.Command == cmdCompactInPlace || p.Command == cmdRestore {
		_, _ = d.Refresh(path) // the gauge follows the rewritten file at once
	}
	return out, nil
}

// lastAgentCompaction is the label of the agent's last own compaction of
// path ("a2"), or an error saying there is none.
func (s *Server) lastAgentCompaction(ctx context.Context, path string) (string, error) {
	lister, ok := s.opts.Jobs.(daemon.AgentCompactionLister)
	if !ok {
		return "", errors.New("this server cannot read the agent's own compactions")
	}
	labels, err := lister.AgentCompactions(ctx, path)
	if err != nil {
		return "", err
	}
	if len(labels) == 0 {
		return "", errors.New("the agent has not compacted this conversation: there is nothing before a compaction to restore")
	}
	return labels[len(labels)-1], nil
}

// fail announces err and returns it as the request's error.
func (s *Server) fail(command string, err error) error {
	s.showMessage(protocol.MessageTypeError, "compactd: %s failed: %v", strings.TrimPrefix(command, "compactd."), err)
	return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
}

// parseCommandArgs accepts the documented argument object, or a bare URI
// string (what simple clients send).
func parseCommandArgs(raw []json.RawMessage) (CommandArgs, error) {
	var a CommandArgs
	if len(raw) == 0 {
		return a, jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing argument: {uri, strategies?, keepLast?, version?, from?, to?}")
	}
	var str string
	if json.Unmarshal(raw[0], &str) == nil {
		a.URI = protocol.DocumentURI(str)
		return a, nil
	}
	if err := json.Unmarshal(raw[0], &a); err != nil {
		return a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid argument: %v", err)
	}
	return a, nil
}

// showDocumentParams is LSP 3.16's window/showDocument, which
// go.lsp.dev/protocol v0.12.0 lacks.
type showDocumentParams struct {
	URI       protocol.DocumentURI `json:"uri"`
	External  bool                 `json:"external,omitempty"`
	TakeFocus bool                 `json:"takeFocus,omitempty"`
}

func (s *Server) showDocument(ctx context.Context, u protocol.DocumentURI) {
	s.mu.Lock()
	ok := s.client.Window != nil && s.client.Window.ShowDocument != nil && s.client.Window.ShowDocument.Support
	s.mu.Unlock()
	if !ok {
		return
	}
	var result struct {
		Success bool `json:"success"`
	}
	if _, err := s.conn.Call(context.WithoutCancel(ctx), "window/showDocument", &showDocumentParams{URI: u, TakeFocus: true}, &result); err != nil {
		s.opts.Logger.Debug("showDocument", "uri", u, "err", err)
	}
}

// pickVersion asks the user which version to restore
// (window/showMessageRequest with one action per recent version).
func (s *Server) pickVersion(ctx context.Context, req daemon.JobRequest) (string, error) {
	hist, err := s.opts.Jobs.History(ctx, req)
	if err != nil {
		return "", err
	}
	versions := versionLabels(hist.Data)
	if len(versions) == 0 {
		return "", errors.New("this conversation has no stored versions")
	}
	items := make([]protocol.MessageActionItem, 0, len(versions))
	for _, v := range versions {
		items = append(items, protocol.MessageActionItem{Title: v})
	}
	var chosen *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeInfo, Message: "Restore which version?", Actions: items,
	}, &chosen); err != nil {
		return "", err
	}
	if chosen == nil {
		return "", nil
	}
	// Only a title that was offered picks a version: a client may answer
	// with anything, an empty title included.
	for _, v := range versions {
		if chosen.Title == v {
			return strings.Fields(v)[0], nil
		}
	}
	return "", fmt.Errorf("the editor answered the version picker with %q, which is none of the versions offered (%s); nothing was restored — run the command again and pick one", chosen.Title, strings.Join(versions, ", "))
}

// versionLabels reads version ids (and a label) from a History result,
// whatever its concrete type, through its JSON form.
func versionLabels(data any) []string {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil
	}
	var list []map[string]any
	if json.Unmarshal(raw, &list) != nil {
		var wrapped struct {
			Versions []map[string]any `json:"versions"`
		}
		if json.Unmarshal(raw, &wrapped) != nil {
			return nil
		}
		list = wrapped.Versions
	}
	var out []string
	for i := len(list) - 1; i >= 0 && len(out) < 8; i-- {
		v := list[i]
		id := fmt.Sprint(firstOf(v, "id", "version", "ID"))
		if id == "" || id == "<nil>" {
			continue
		}
		label := id
		if c := firstOf(v, "created", "createdAt", "Created"); c != nil {
			label += " (" + fmt.Sprint(c) + ")"
		}
		out = append(out, label)
	}
	return out
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}
