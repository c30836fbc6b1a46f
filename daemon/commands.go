package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/jobs"
)

// The editor's commands, as typed methods: each takes one request and
// returns one named result, which lsp puts on the wire as it is
// (lsp/command.go maps command names to these methods). The same
// configuration applies as for the CLI: config.CompactOptions over the
// transcript's resolved configuration.

// CompactRequest asks for a compaction of one transcript.
type CompactRequest struct {
	Path string
	// Overrides are what the command's arguments set over the
	// transcript's configuration.
	Overrides config.Overrides
	// InPlace replaces the transcript (its prior content is kept in the
	// store first).
	InPlace bool
	// Before ("a2") compacts the conversation as it was before that
	// compaction of the agent's own instead of the file.
	Before string
	// ConfirmedTangents are the turns (Tangent.Turn, from a dry run) the
	// user approved removing.
	ConfirmedTangents []int
	Progress          Progress
}

// Progress reports a running command: a message and a percentage (0–100,
// -1 when unknown).
type Progress func(message string, percent int)

// A Result is a command's named result: beside its data, one sentence
// for the user and the file worth showing ("" when none), which the
// protocol carries once, around the result (lsp.CommandResult).
type Result interface {
	Summary() (message, open string)
}

// Compaction is what a compaction or a dry run reports.
type Compaction struct {
	// Message is one sentence for the user.
	Message string `json:"-"`
	// Open is the file worth showing: the fork, the dry-run report.
	Open string `json:"-"`
	// Economics, for a dry run of a priced model, is what compacting now
	// costs once, saves per turn and after how many turns it pays back,
	// and whether the cache is already cold.
	Economics *pricing.Economics `json:"economics,omitempty"`
	// The job's result, embedded by value: the wire's encoder
	// (segmentio/encoding, under jsonrpc2) drops the omitempty fields of
	// an embedded pointer.
	jobs.Result
}

// Restored is what a restore reports.
type Restored struct {
	Message string `json:"-"`
	Open    string `json:"-"`
	jobs.RestoreResult
}

// History lists a conversation's stored versions, and the agent's own
// compactions with what each lost (the loss ledger) and their health.
type History struct {
	Message string `json:"-"`
	jobs.History
	AgentCompactions []jobs.AgentLoss `json:"agentCompactions"`
	Health           *gauge.Health    `json:"health,omitempty"`
}

// Diff is the unified line diff of two versions.
type Diff struct {
	Message string `json:"-"`
	From    string `json:"from"`
	To      string `json:"to"`
	Diff    string `json:"diff"`
}

// ErrNoStore says why commands that need the version store cannot run.
var ErrNoStore = errors.New("no version store is open (set COMPACTD_STORE or pass --store to compactd serve)")

// runner is the job runner, or why there is none.
func (d *Daemon) runner() (*jobs.Runner, error) {
	if d.opts.Jobs != nil {
		return d.opts.Jobs, nil
	}
	if d.opts.JobsUnavailable != nil {
		return nil, fmt.Errorf("compaction, history and restore are unavailable (the gauge keeps working): %w", d.opts.JobsUnavailable)
	}
	return nil, fmt.Errorf("compaction, history and restore are unavailable: %w", ErrNoStore)
}

// JobsUnavailable is why the commands that need the store cannot run,
// nil when they can.
func (d *Daemon) JobsUnavailable() error {
	_, err := d.runner()
	return err
}

// jobRequest is the one place a command becomes a job: the transcript's
// configuration with the request's overrides, and the index's parse.
func (d *Daemon) jobRequest(req CompactRequest, dryRun bool) jobs.Request {
	cfg := d.Config(req.Path)
	window := 0
	if snap := d.Snapshot(req.Path); snap != nil {
		window = snap.Window
	}
	return jobs.Request{
		Path: req.Path, Options: cfg.CompactOptions(window, req.Overrides), Summarize: cfg.Summarize,
		DryRun: dryRun, InPlace: req.InPlace && !dryRun, Before: req.Before,
		Workspace: d.folderOf(req.Path), ConfirmedTangents: req.ConfirmedTangents,
		Progress: jobs.Progress(req.Progress),
		// The index's parse, so the job parses only what changed since.
		Parsed: d.Parsed(req.Path),
	}
}

// JobRequest is the job a compaction request runs: the pipeline its
// configuration and overrides give (lsp asks it whether tangents will be
// removed, and so must be confirmed first).
func (d *Daemon) JobRequest(req CompactRequest) jobs.Request { return d.jobRequest(req, false) }

// Compact compacts a transcript into a fork (or in place), the pipeline
// its configuration names with req's overrides.
func (d *Daemon) Compact(ctx context.Context, req CompactRequest) (*Compaction, error) {
	return d.compact(ctx, req, false)
}

// DryRun computes what Compact would do and writes only its report.
func (d *Daemon) DryRun(ctx context.Context, req CompactRequest) (*Compaction, error) {
	return d.compact(ctx, req, true)
}

func (d *Daemon) compact(ctx context.Context, req CompactRequest, dryRun bool) (*Compaction, error) {
	r, err := d.runner()
	if err != nil {
		return nil, err
	}
	if err := req.Overrides.Check(); err != nil {
		return nil, err
	}
	defer d.JobRunning()() // the background estimates wait for the command
	defer d.opts.Memory.Lift()()
	res, err := r.Compact(ctx, d.jobRequest(req, dryRun))
	if err != nil {
		return nil, err
	}
	if !res.DryRun {
		d.recordVersioned(req.Path, res.ForkPath)
	}
	saved := res.TokensBefore - res.TokensAfter
	out := &Compaction{Result: *res}
	switch {
	case res.AgentRetention != nil:
		ar := res.AgentRetention
		out.Message = fmt.Sprintf("the history before the agent's compaction %s, compacted by compactd: %s → %s tokens; the agent's summary kept %.0f %% of the key facts, this %.0f %% (%d it lost are kept)",
			ar.Compaction, index.Short(res.TokensBefore), index.Short(res.TokensAfter), 100*ar.Agent.Score, 100*ar.Ours.Score, len(ar.AgentLostOursKept))
		out.Open = res.ForkPath
	case res.DryRun:
		out.Message = fmt.Sprintf("dry run: compaction would save %s tokens (%s → %s); nothing was written", index.Short(saved), index.Short(res.TokensBefore), index.Short(res.TokensAfter))
		out.Open = res.ReportPath
		if snap := d.Snapshot(req.Path); snap != nil {
			if out.Economics = snap.Insight.Economics(snap.Tokens, saved, d.Now()); out.Economics != nil && saved > 0 {
				out.Message += "; " + out.Economics.Line
			}
		}
	case req.InPlace:
		out.Message = fmt.Sprintf("compacted in place: %s → %s tokens (saved %s); the previous content is version %s", index.Short(res.TokensBefore), index.Short(res.TokensAfter), index.Short(saved), res.Parent)
		_, _ = d.Refresh(req.Path) // the gauge follows the rewritten file at once
	default:
		out.Message = fmt.Sprintf("compacted: %s → %s tokens (saved %s); fork written beside the original", index.Short(res.TokensBefore), index.Short(res.TokensAfter), index.Short(saved))
		out.Open = res.ForkPath
	}
	return out, nil
}

// History lists the stored versions of the conversation at path.
func (d *Daemon) History(ctx context.Context, path string) (*History, error) {
	r, err := d.runner()
	if err != nil {
		return nil, err
	}
	h, err := r.History(ctx, path)
	if err != nil {
		return nil, err
	}
	out := &History{Message: fmt.Sprintf("%d stored versions of this conversation", len(h.Versions)), History: *h, AgentCompactions: []jobs.AgentLoss{}}
	if l, err := d.AgentLedger(ctx, path); err == nil && len(l.Compactions) > 0 {
		out.AgentCompactions, out.Health = l.Compactions, &l.Health
		out.Message += "; " + l.Message
	}
	return out, nil
}

// HasVersions reports whether the conversation at path has stored
// versions (what the lightbulb's "Restore version…" needs). The
// transcripts this session compacted or restored are known to; the others
// are asked of the store.
func (d *Daemon) HasVersions(ctx context.Context, path string) (bool, error) {
	if _, ok := d.versioned.Load(filepath.Clean(path)); ok {
		return true, nil
	}
	h, err := d.History(ctx, path)
	if err != nil {
		return false, err
	}
	if len(h.Versions) > 0 {
		d.versioned.Store(filepath.Clean(path), true)
	}
	return len(h.Versions) > 0, nil
}

// recordVersioned remembers paths as having stored versions.
func (d *Daemon) recordVersioned(paths ...string) {
	for _, p := range paths {
		if p != "" {
			d.versioned.Store(filepath.Clean(p), true)
		}
	}
}

// Pinned is what a pin or unpin reports.
type Pinned struct {
	jobs.PinResult
}

// Summary says what each result says and opens.
func (r *Compaction) Summary() (string, string) { return r.Message, r.Open }
func (r *Restored) Summary() (string, string)   { return r.Message, r.Open }
func (r *History) Summary() (string, string)    { return r.Message, "" }
func (r *Diff) Summary() (string, string)       { return r.Message, "" }
func (r *Pinned) Summary() (string, string)     { return r.PinResult.Message, "" }
func (r *Recalled) Summary() (string, string)   { return r.Message, r.Open }

// Pin keeps (on) or stops keeping the message at line (1-based) of path
// verbatim in every compaction of its conversation.
func (d *Daemon) Pin(ctx context.Context, path string, line int, on bool) (*Pinned, error) {
	r, err := d.runner()
	if err != nil {
		return nil, err
	}
	res, err := r.Pin(ctx, path, line, on)
	if err != nil {
		return nil, err
	}
	return &Pinned{PinResult: *res}, nil
}

// Restore writes a stored version (or, for "a1", the conversation before
// the agent's own compaction) as a new transcript, or in place.
func (d *Daemon) Restore(ctx context.Context, path, version string, inPlace bool, progress Progress) (*Restored, error) {
	r, err := d.runner()
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress("restoring "+version, -1)
	}
	defer d.JobRunning()()
	defer d.opts.Memory.Lift()()
	res, err := r.Restore(ctx, path, version, inPlace)
	if err != nil {
		return nil, err
	}
	d.recordVersioned(path, res.Path)
	out := &Restored{Message: fmt.Sprintf("restored version %s as a new transcript", res.Version), Open: res.Path, RestoreResult: *res}
	if jobs.IsAgentLabel(res.Version) {
		out.Message = fmt.Sprintf("restored the conversation before the agent's compaction %s as a new session", res.Version)
	}
	if res.InPlace {
		out.Message = fmt.Sprintf("restored version %s in place", res.Version)
		_, _ = d.Refresh(path)
	}
	return out, nil
}

// Diff is the line diff of version from and version to ("" the current
// file).
func (d *Daemon) Diff(ctx context.Context, path, from, to string) (*Diff, error) {
	r, err := d.runner()
	if err != nil {
		return nil, err
	}
	if from == "" {
		return nil, errors.New("diff needs from (and optionally to) version labels")
	}
	text, err := r.Diff(ctx, path, from, to)
	if err != nil {
		return nil, err
	}
	shown := to
	if shown == "" {
		shown = "the current file"
	}
	return &Diff{Message: fmt.Sprintf("diff of %s and %s", from, shown), From: from, To: to, Diff: text}, nil
}

// AgentCompactions lists the agent's own compactions of the conversation
// at path by their history labels ("a1", …), oldest first.
func (d *Daemon) AgentCompactions(ctx context.Context, path string) ([]string, error) {
	r, err := d.runner()
	if err != nil {
		return nil, err
	}
	return r.AgentCompactions(ctx, path)
}

// LastAgentCompaction is the label of the agent's last own compaction of
// path, or an error saying there is none.
func (d *Daemon) LastAgentCompaction(ctx context.Context, path string) (string, error) {
	labels, err := d.AgentCompactions(ctx, path)
	if err != nil {
		return "", err
	}
	if len(labels) == 0 {
		return "", errors.New("the agent has not compacted this conversation: there is nothing before a compaction to restore")
	}
	return labels[len(labels)-1], nil
}

// AutoCompact compacts path into a fork with its configuration's pipeline:
// what the auto-compaction trigger runs.
func (d *Daemon) AutoCompact(ctx context.Context, path string) (*Compaction, error) {
	return d.Compact(ctx, CompactRequest{Path: path})
}

// AutoTrigger is path's auto-compaction trigger and whether it is on: off
// for transcripts outside the workspace and the agents' folders, which are
// never compacted.
func (d *Daemon) AutoTrigger(path string) (strategy.Trigger, bool) {
	trig, on := d.Config(path).Trigger()
	return trig, on && d.Allowed(path)
}
