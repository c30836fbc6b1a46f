package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/config"
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
	// cmdCompactToFit is a client's command: the editor asks for a budget
	// (suggesting the one in the argument, the dry run's knee when known)
	// and runs compactd.compact with it.
	cmdCompactToFit = "compactd.compactToFit"
	// Pins: keep the message on a line of the transcript verbatim in
	// every compaction (stored with the conversation), or stop.
	cmdPin   = "compactd.pin"
	cmdUnpin = "compactd.unpin"
	// cmdHandoff continues the conversation in another agent ("agent";
	// the server asks which when it is left out).
	cmdHandoff = "compactd.handoff"
	// cmdSearch finds past sessions of every agent by what was said in
	// them ("query"; "agent" keeps one agent's): "Find a session…". It
	// needs no file.
	cmdSearch = "compactd.search"
)

// commandNames are the commands the server executes: the table's keys.
func commandNames() []string { return slices.Sorted(maps.Keys(commands)) }

// CommandArgs is the one argument of every compactd command. Fields a
// command does not take are ignored; a field left out keeps the
// transcript's configuration (keepLast 0 protects no turn).
type CommandArgs struct {
	URI        protocol.DocumentURI `json:"uri"`
	Strategies []string             `json:"strategies,omitempty"`
	KeepLast   *int                 `json:"keepLast,omitempty"`
	// Turns is how many turns turn-window keeps.
	Turns *int `json:"turns,omitempty"`
	// Budget fits the result in so many tokens ("Compact to fit…").
	Budget *int `json:"budget,omitempty"`
	// Line is a transcript line (0-based, as LSP positions), for pins.
	Line    *int   `json:"line,omitempty"`
	Version string `json:"version,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	// Handle is the recall handle compactd.recall opens.
	Handle string `json:"handle,omitempty"`
	// Agent is the agent compactd.handoff continues in ("codex"); MCP
	// says whether to install compactd's MCP server there (left out, the
	// server asks when it is not installed).
	Agent string `json:"agent,omitempty"`
	MCP   *bool  `json:"mcp,omitempty"`
	// Query is what compactd.search looks for; Limit how many sessions
	// it lists (default 20).
	Query string `json:"query,omitempty"`
	Limit *int   `json:"limit,omitempty"`
}

// Overrides are what the arguments set over the configuration.
func (a CommandArgs) Overrides() config.Overrides {
	return config.Overrides{Strategies: a.Strategies, KeepLast: a.KeepLast, Turns: a.Turns, Budget: a.Budget}
}

// CommandResult is what every command returns: the daemon's named result
// for that command under "result" (daemon.Compaction, daemon.Restored,
// daemon.History, daemon.Diff, daemon.Pinned, daemon.Recalled), and its
// message and the file it produced beside it, once.
// testdata/commands/<command>.json pins each; the editors' types are
// generated from the same Go types (wire_ts_test.go).
type CommandResult[T any] struct {
	Command string `json:"command"`
	URI     string `json:"uri"`
	Message string `json:"message"`
	// Open is the URI of the fork, report or recalled content the command
	// produced, if any.
	Open   string `json:"open,omitempty"`
	Result T      `json:"result"`
}

// A command runs one compactd.* command on the daemon: the call is
// detached (see orderedHandler) and may take minutes.
type command struct {
	// title names the work in progress notifications ("" shows none).
	title string
	// result is the type of the command's result.
	result reflect.Type
	run    func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (daemon.Result, error)
	// anywhere: the command takes no file (its uri may be left out);
	// readsOnly: it only reads its file, which may then be any agent's
	// session (Daemon.Readable), not only the workspace's.
	anywhere  bool
	readsOnly bool
}

// entry is a command whose result is a T.
func entry[T daemon.Result](title string, run func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (T, error)) command {
	return command{title: title, result: reflect.TypeFor[T](), run: func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (daemon.Result, error) {
		res, err := run(s, ctx, d, c)
		if err != nil {
			return nil, err
		}
		return res, nil
	}}
}

// anywhere marks a command that takes no file.
func anywhere(c command) command {
	c.anywhere = true
	return c
}

// readsOnly marks a command that only reads its file (a session search
// found, of any project, may be handed off).
func readsOnly(c command) command {
	c.readsOnly = true
	return c
}

// call is one command's arguments as the handler resolved them.
type call struct {
	name     string
	args     CommandArgs
	path     string
	progress daemon.Progress
}

// commands maps every command name to its daemon method.
var commands = map[string]command{
	cmdCompact: entry("Compacting conversation", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Compaction, error) {
		return s.compact(ctx, d, c, false)
	}),
	cmdCompactInPlace: entry("Compacting conversation in place", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Compaction, error) {
		return s.compact(ctx, d, c, true)
	}),
	cmdDryRun: entry("Dry-run compaction", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Compaction, error) {
		return d.DryRun(ctx, daemon.CompactRequest{Path: c.path, Overrides: c.args.Overrides(), Progress: c.progress})
	}),
	cmdPin: entry("", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Pinned, error) {
		return pin(ctx, d, c, true)
	}),
	cmdUnpin: entry("", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Pinned, error) {
		return pin(ctx, d, c, false)
	}),
	cmdRestore: entry("Restoring version", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Restored, error) {
		version := c.args.Version
		if version == "" {
			var err error
			if version, err = s.pickVersion(ctx, d, c.path); err != nil {
				return nil, err
			}
		}
		return d.Restore(ctx, c.path, version, false, c.progress)
	}),
	cmdRestoreBeforeAgent: entry("Restoring from before the agent's compaction", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Restored, error) {
		version, err := agentVersion(ctx, d, c)
		if err != nil {
			return nil, err
		}
		return d.Restore(ctx, c.path, version, false, c.progress)
	}),
	cmdRecompactAgent: entry("Re-compacting the agent's compaction with compactd", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Compaction, error) {
		version, err := agentVersion(ctx, d, c)
		if err != nil {
			return nil, err
		}
		return d.Compact(ctx, daemon.CompactRequest{Path: c.path, Overrides: c.args.Overrides(), Before: version, Progress: c.progress})
	}),
	cmdHistory: entry("", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.History, error) {
		return d.History(ctx, c.path)
	}),
	cmdRecall: entry("", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Recalled, error) {
		return d.Recall(ctx, c.args.Handle)
	}),
	cmdDiff: entry("", func(s *Server, ctx context.Context, d *daemon.Daemon, c call) (*daemon.Diff, error) {
		return d.Diff(ctx, c.path, c.args.From, c.args.To)
	}),
	cmdHandoff: readsOnly(entry("Continuing in another agent", handoffCommand)),
	cmdSearch:  anywhere(entry("", searchCommand)),
}

// compact asks about tangents first when the pipeline removes them (they
// go only with the user's yes), then compacts.
func (s *Server) compact(ctx context.Context, d *daemon.Daemon, c call, inPlace bool) (*daemon.Compaction, error) {
	req := daemon.CompactRequest{Path: c.path, Overrides: c.args.Overrides(), InPlace: inPlace, Progress: c.progress}
	if slices.Contains(d.JobRequest(req).Options.Strategies, strategy.StrategyClassifyTangents) {
		confirmed, err := s.confirmTangents(ctx, d, req)
		if err != nil {
			return nil, err
		}
		req.ConfirmedTangents = confirmed
	}
	return d.Compact(ctx, req)
}

// pin runs compactd.pin and compactd.unpin: the line is required.
func pin(ctx context.Context, d *daemon.Daemon, c call, on bool) (*daemon.Pinned, error) {
	if c.args.Line == nil || *c.args.Line < 0 {
		return nil, fmt.Errorf("%s needs the transcript line of the message (\"line\", 0-based)", c.name)
	}
	return d.Pin(ctx, c.path, *c.args.Line+1, on)
}

// agentVersion is the agent's compaction the command names, else its last.
func agentVersion(ctx context.Context, d *daemon.Daemon, c call) (string, error) {
	if c.args.Version != "" {
		return c.args.Version, nil
	}
	return d.LastAgentCompaction(ctx, c.path)
}

// reply wraps a command's result for the wire, says its message and opens
// what it produced.
func (s *Server) reply(ctx context.Context, c call, res daemon.Result) *CommandResult[daemon.Result] {
	message, open := res.Summary()
	out := &CommandResult[daemon.Result]{Command: c.name, URI: string(c.args.URI), Message: message, Result: res}
	if message != "" {
		s.showMessage(protocol.MessageTypeInfo, "compactd: %s", message)
	}
	if open != "" {
		out.Open = string(pathURI(open))
		s.showDocument(ctx, pathURI(open))
	}
	return out
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
	if _, known := commands[p.Command]; !known {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	args, err := parseCommandArgs(p.Arguments)
	if err != nil {
		return nil, err
	}
	res, err := s.runCommand(ctx, p.Command, args)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// runCommand runs one compactd command with its arguments: what
// executeCommand does for the client, and what the server does when the
// user picks an action of one of its messages.
func (s *Server) runCommand(ctx context.Context, name string, args CommandArgs) (*CommandResult[daemon.Result], error) {
	cmd, known := commands[name]
	if !known {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", name)
	}
	d := s.currentDaemon()
	path := uriPath(args.URI)
	switch {
	case d == nil:
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "compactd is not running (initialization failed)")
	case cmd.anywhere:
		path = ""
	case path == "":
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s needs a file uri, got %q", name, args.URI)
	case cmd.readsOnly && d.Readable(path):
	case !d.Allowed(path):
		return nil, s.fail(name, fmt.Errorf("refused: %s is outside the workspace and the agents' folders", path))
	}
	if err := d.JobsUnavailable(); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var prog *progress
	if cmd.title != "" {
		prog = s.startProgress("compactd: "+cmd.title, true)
		prog.onCancel(cancel)
	}
	c := call{name: name, args: args, path: path, progress: func(msg string, pct int) { prog.report(msg, pct) }}
	res, err := cmd.run(s, jobCtx, d, c)
	if err != nil {
		prog.end("failed")
		if jobCtx.Err() != nil {
			s.showMessage(protocol.MessageTypeInfo, "compactd: %s cancelled; nothing was written", strings.ToLower(cmd.title))
			return nil, protocol.ErrRequestCancelled
		}
		return nil, s.fail(name, err)
	}
	prog.end("done")
	return s.reply(jobCtx, c, res), nil
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
func (s *Server) pickVersion(ctx context.Context, d *daemon.Daemon, path string) (string, error) {
	hist, err := d.History(ctx, path)
	if err != nil {
		return "", err
	}
	var labels, titles []string
	for i := len(hist.Versions) - 1; i >= 0 && len(labels) < 8; i-- {
		v := hist.Versions[i]
		labels = append(labels, v.Label)
		titles = append(titles, fmt.Sprintf("%s (%s)", v.Label, v.Created.Format(time.RFC3339)))
	}
	if len(labels) == 0 {
		return "", errors.New("this conversation has no stored versions")
	}
	items := make([]protocol.MessageActionItem, 0, len(titles))
	for _, t := range titles {
		items = append(items, protocol.MessageActionItem{Title: t})
	}
	var chosen *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeInfo, Message: "Restore which version?", Actions: items,
	}, &chosen); err != nil {
		return "", err
	}
	if chosen == nil {
		return "", errors.New("no version chosen")
	}
	// Only a title that was offered picks a version: a client may answer
	// with anything, an empty title included.
	for i, t := range titles {
		if chosen.Title == t {
			return labels[i], nil
		}
	}
	return "", fmt.Errorf("the editor answered the version picker with %q, which is none of the versions offered (%s); nothing was restored — run the command again and pick one", chosen.Title, strings.Join(titles, ", "))
}
