package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/install"
	"github.com/compactd/compactd/daemon/store"
)

// HandoffRequest asks to carry a conversation into another agent.
type HandoffRequest struct {
	Path string
	// To names the target agent ("codex", see agents.ByName).
	To string
	// Options are the compaction's; no Strategies strips reasoning only
	// (no other model takes it), the fit doing the rest. With a zero
	// Budget a conversation
	// larger than half the target model's window (its Window when zero)
	// is fitted in that half, the other half left to the agent's own
	// prompt and the work ahead.
	Options   strategy.Options
	Summarize config.Summarize
	Workspace string
	// Env is where the agents keep their sessions (agents.EnvFromOS).
	Env agents.Env
	// Model overrides the model the new session names (its window is the
	// budget's).
	Model string
	// Import has an agent that imports sessions (opencode, Kilo) import
	// the new one, when its executable is on PATH.
	Import bool
	// MCP, when set, is compactd's MCP server to install in the target
	// (its user configuration), so that it can recall what the handoff
	// left out; nil only says whether it is installed.
	MCP      *install.Server
	Progress Progress
	Parsed   *Parsed
}

// HandoffResult is what a handoff wrote.
type HandoffResult struct {
	// From and To are the agents; Format the new session's format.
	From   string `json:"from"`
	To     string `json:"to"`
	Format string `json:"format"`
	// Path is the new session's file; Session its id; Resume the command
	// that resumes it in the target.
	Path     string `json:"path"`
	Session  string `json:"session"`
	Resume   string `json:"resume"`
	Imported bool   `json:"imported,omitempty"`
	// Version is the store's record of the handoff, Parent the source's.
	Version string `json:"version"`
	Parent  string `json:"parent"`
	// Model is the model the session names, Budget what it was fitted to
	// (0: it fit as it was).
	Model        string             `json:"model"`
	Budget       int                `json:"budget"`
	TokensBefore int                `json:"tokensBefore"`
	TokensAfter  int                `json:"tokensAfter"`
	Steps        []strategy.Step    `json:"steps"`
	Retention    strategy.Retention `json:"retention"`
	// Mapped tool calls became the target's own tools; AsText were
	// rendered as text; Images stayed images, ImagesAsText were
	// described.
	Mapped       int `json:"mapped"`
	AsText       int `json:"asText"`
	Images       int `json:"images"`
	ImagesAsText int `json:"imagesAsText"`
	// Recall is where compactd's MCP server stands in the target:
	// "installed", "installed now" or "missing".
	Recall string   `json:"recall"`
	Notes  []string `json:"notes,omitempty"`
}

// Handoff writes req.Path's conversation, compacted to fit, as a new
// session of another agent in that agent's own format and place. The
// source is never changed; the store records the new session as a
// version of the source's conversation.
func (r *Runner) Handoff(ctx context.Context, req HandoffRequest) (_ *HandoffResult, err error) {
	defer func() { err = untouched(req.Path, r.Store.Explain(err)) }()
	defer r.recovered(&err, "hand off "+req.Path)
	target := agents.ByName(req.To)
	if target == nil || target.Handoff == nil {
		return nil, fmt.Errorf("compactd cannot start a session of %q; it hands off to %s", req.To, strings.Join(HandoffTargets(), ", "))
	}
	h := target.Handoff
	codec, ok := format.Lookup(h.Format)
	writer, ok2 := codec.(format.SessionWriter)
	if !ok || !ok2 {
		return nil, fmt.Errorf("no codec writes a new %s session", h.Format)
	}
	path, err := absPath(req.Path)
	if err != nil {
		return nil, err
	}
	report(req.Progress, "read", 0)
	src, err := readSourceFrom(path, req.Parsed)
	if err != nil {
		return nil, err
	}
	conv, err := r.conversation(ctx, src)
	if err != nil {
		return nil, err
	}
	report(req.Progress, "lock", 5)
	lock, err := r.lockConversation(ctx, conv.Key)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	if src, err = rereadSource(path, src); err != nil {
		return nil, err
	}
	if err := r.Store.CheckSound(ctx); err != nil {
		return nil, err
	}
	// The source is recorded while the pipeline runs, as a compaction
	// records it: they need different cores.
	report(req.Progress, "record source", 10)
	type sourceRecord struct {
		v   store.Version
		err error
	}
	recordedSource := make(chan sourceRecord, 1)
	go func() {
		var rec sourceRecord
		defer func() { recordedSource <- rec }()
		defer r.recovered(&rec.err, "record the source of "+path)
		rec.v, rec.err = r.recordSource(ctx, conv, src)
	}()
	waitSource := func() (store.Version, error) {
		rs := <-recordedSource
		recordedSource <- rs
		return rs.v, rs.err
	}
	defer waitSource() // never leave the recording behind

	model := req.Model
	if model == "" {
		model = h.Model(req.Env)
	}
	opts := req.Options
	if len(opts.Strategies) == 0 {
		// Reasoning never reaches the target (handoff.Convert leaves it
		// behind), so the budget is counted without it; the rest stays as
		// it is when it fits, and the fit (a verbatim suffix and the
		// frontier's summary of the rest) makes it fit when it does not.
		opts.Strategies = []string{strategy.StrategyStripReasoning}
	}
	window, _ := tokens.NewRegistry().Lookup(model)
	if opts.Window <= 0 {
		opts.Window = window.ContextWindow
	}
	if opts.Budget <= 0 {
		// Fitted only when it does not fit: a fit under its budget gives
		// back what the strategies took out.
		counts, err := r.sourceCounts(ctx, src)
		if err != nil {
			return nil, err
		}
		if counts.Total() > opts.Window/2 {
			opts.Budget = opts.Window / 2
		}
	}
	run, err := r.compactView(ctx, src, conv.Key, Request{Path: path, Options: opts, Summarize: req.Summarize, Workspace: req.Workspace, Progress: req.Progress}, false)
	if err != nil {
		return nil, err
	}

	report(req.Progress, "render", 60)
	now := r.now()
	cwd := src.t.Meta.Cwd
	if cwd == "" {
		cwd = req.Workspace
	}
	if cwd == "" {
		return nil, fmt.Errorf("%s does not say which folder it worked in, and no workspace folder was given: the new session needs one", path)
	}
	from := agents.ByFormat(src.codec.Format())
	fromLabel, fromTools := string(src.codec.Format()), handoff.Tools(nil)
	if from != nil {
		fromLabel = labelOf(from)
		if from.Handoff != nil {
			fromTools = from.Handoff.Tools
		}
	}
	id := h.NewID(now)
	sess, stats := handoff.Convert(run.view, handoff.Options{
		From: fromTools, To: h.Tools, FromLabel: fromLabel, ToLabel: labelOf(target),
		SessionID: id, Cwd: cwd, Model: model, Title: src.t.Meta.Title, Created: now,
		Note:   handoffNote(fromLabel, src.t.Meta.SessionID, path, run.recalls),
		Images: h.Images, Media: mediaOf(src),
	})
	data, err := writer.WriteSession(sess)
	if err != nil {
		return nil, err
	}
	report(req.Progress, "verify", 70)
	t, err := verifyHandoff(codec, path, data)
	if err != nil {
		return nil, err
	}
	out := h.Path(req.Env, cwd, t.Meta.SessionID, now)
	if t.Meta.SessionID == "" {
		out = h.Path(req.Env, cwd, id, now)
	}
	if _, err := os.Lstat(out); err == nil {
		return nil, fmt.Errorf("%s already exists; not overwriting it", out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		return nil, fmt.Errorf("create %s's session folder: %w", labelOf(target), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("hand off %s: %w; nothing was written", path, err)
	}

	srcVersion, err := waitSource()
	if err != nil {
		return nil, err
	}
	report(req.Progress, "record result", 80)
	rep := run.rep
	v, _, err := r.Store.RecordVersion(ctx, store.NewVersion{
		Conversation: conv, Kind: store.KindHandoff, ParentID: srcVersion.ID,
		SourcePath: path, SourceHash: src.hash(), Format: string(h.Format),
		Pipeline: append([]string{"handoff to " + target.Name}, pipelineNames(opts)...), Options: run.options, Report: rep,
		TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter, ForkPath: out,
		Content: data, Cuts: recordCuts(t), Created: now, Recalls: run.recalls,
	})
	if err != nil {
		return nil, err
	}
	report(req.Progress, "write", 90)
	if err := createFile(out, data); err != nil {
		return nil, r.forgetUnwritten(v, err)
	}
	session := t.Meta.SessionID
	if session == "" {
		session = id
	}
	res := &HandoffResult{
		From: fromLabel, To: target.Name, Format: string(h.Format), Path: out, Session: session,
		Version: v.Label, Parent: srcVersion.Label, Model: model, Budget: opts.Budget,
		TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter, Steps: rep.Steps, Retention: rep.Retention,
		Mapped: stats.Mapped, AsText: stats.AsText, Images: stats.Images, ImagesAsText: stats.ImagesAsText,
		Notes: rep.Notes,
	}
	res.Resume = "cd " + agents.ShellQuote(cwd) + " && " + h.Resume(session)
	if target.Imports {
		res.Resume = "cd " + agents.ShellQuote(cwd) + " && " + target.Resume(out, session)
		if req.Import {
			report(req.Progress, "import", 95)
			if _, err := importFork(ctx, h.Format, cwd, out); err != nil {
				res.Notes = append(res.Notes, err.Error())
			} else {
				res.Imported = true
				res.Resume = "cd " + agents.ShellQuote(cwd) + " && " + h.Resume(session)
			}
		}
	}
	res.Recall, err = r.offerRecall(target, req, cwd)
	if err != nil {
		res.Notes = append(res.Notes, err.Error())
	}
	if res.Recall == "missing" && len(run.recalls) > 0 {
		pieces := "pieces"
		if len(run.recalls) == 1 {
			pieces = "piece"
		}
		res.Notes = append(res.Notes, fmt.Sprintf("%d %s the handoff left out can be recalled once compactd's MCP server is in %s: compactd mcp install %s", len(run.recalls), pieces, labelOf(target), target.Name))
	}
	report(req.Progress, "done", 100)
	return res, nil
}

// HandoffTargets are the agents compactd can start a session of.
func HandoffTargets() []string {
	var out []string
	for _, a := range agents.All() {
		if a.Handoff != nil {
			out = append(out, a.Name)
		}
	}
	return out
}

func labelOf(a *agents.Agent) string {
	if a.Label != "" {
		return a.Label
	}
	return a.Name
}

// handoffNote opens the new session: where it comes from, and how to get
// back what it left out.
func handoffNote(from, session, path string, recalls []store.RecallContent) string {
	note := fmt.Sprintf("[compactd handoff] This conversation continues a %s session", from)
	if session != "" {
		note += " (" + session + ")"
	}
	note += ", recorded in " + path + "."
	if len(recalls) > 0 {
		note += " Parts of it were compacted to fit; each stand-in names a handle (\"recall r…\") that compactd's MCP tool recall gives back in full."
	}
	return note
}

// offerRecall installs compactd's MCP server in the target when asked,
// and says where it stands.
func (r *Runner) offerRecall(target *agents.Agent, req HandoffRequest, cwd string) (string, error) {
	if target.MCP == nil {
		return "missing", nil
	}
	t := install.Target{Agent: target, Scope: install.ScopeUser, Folder: cwd, Env: req.Env}
	if req.MCP != nil {
		c, err := install.PlanMCP(t, *req.MCP, false)
		if err != nil {
			return "missing", fmt.Errorf("install compactd's MCP server in %s: %w", labelOf(target), err)
		}
		if !c.Changed() {
			return "installed", nil
		}
		if err := c.Apply(); err != nil {
			return "missing", fmt.Errorf("install compactd's MCP server in %s: %w", labelOf(target), err)
		}
		return "installed now", nil
	}
	if installed, err := install.MCPStatus(target, req.Env, cwd, install.Server{}); err == nil && len(installed) > 0 {
		return "installed", nil
	}
	return "missing", nil
}

// verifyHandoff reads a new session back with its codec: it must be
// detected as its format, parse whole, and hold a conversation that keeps
// the API's rules (every call answered) as the agent loads it.
func verifyHandoff(codec format.Codec, source string, data []byte) (*transcript.Transcript, error) {
	name := fmt.Sprintf("the %s session handed off from %s", codec.Format(), filepath.Base(source))
	if c, err := format.Detect("", data); err != nil || c.Format() != codec.Format() {
		return nil, fmt.Errorf("%s is not recognised as %s (%v); nothing was written", name, codec.Format(), err)
	}
	t, err := codec.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s does not parse back (%v); nothing was written", name, err)
	}
	if t.Skipped > 0 || len(t.Messages) == 0 {
		return nil, fmt.Errorf("%s reads back with %d unreadable records and %d messages; nothing was written", name, t.Skipped, len(t.Messages))
	}
	// CheckTranscript reads it as the agent loads it (format.Loader).
	if err := strategy.CheckTranscript(t); err != nil {
		return nil, fmt.Errorf("%s breaks the API's rules (%v); nothing was written", name, err)
	}
	return t, nil
}

// mediaOf reads the images at a part's Ref from the source, when its
// codec can.
func mediaOf(src *source) func(ref transcript.Ref) []handoff.Image {
	m, ok := src.codec.(format.MediaReader)
	if !ok {
		return nil
	}
	return func(ref transcript.Ref) []handoff.Image {
		list, err := m.Media(src.t, ref)
		if err != nil {
			return nil
		}
		out := make([]handoff.Image, len(list))
		for i, x := range list {
			out[i] = handoff.Image{MIME: x.MIME, Data: x.Data}
		}
		return out
	}
}
