package jobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/store"
)

// Request asks for one compaction.
//
// It carries every choice a compaction takes, each read by one step of the job: hence more than a
// dozen fields.
type Request struct {
	Path    string
	Options strategy.Options
	// DryRun computes everything, writes a Markdown report under the
	// store's reports folder, and changes nothing else.
	DryRun bool
	// InPlace replaces the source (after committing it to the store).
	InPlace bool
	// Out overrides the fork's path.
	Out string
	// Before ("a2") compacts, instead of the file, the conversation as it
	// was before that compaction of the agent's own (see KindAgent), and
	// compares the result with the agent's summary (Result.AgentRetention).
	// The fork is a new session; DryRun and InPlace do not apply.
	Before string
	// Summarize is the [summarize] configuration, used when
	// Options.Summarizer is nil: the zero value is the offline extractive
	// summarizer; provider "notes" reads NotesFile; a model name makes a
	// model summarize, each span once (the store archives summaries).
	Summarize config.Summarize
	// Workspace is the workspace root: a relative notes file is read from
	// it, and a fork may be written through a symbolic link only into it.
	// "" means the transcript's folder.
	Workspace string
	Progress  Progress
	// Parsed, when set, is the transcript already parsed (the daemon's
	// index); the job reads the file's bytes again but parses only what
	// was appended since, and reuses the part counts.
	Parsed *Parsed
	// ConfirmedTangents are the turns (Result.Tangents[i].Turn, from an
	// earlier dry run) the user approved removing; classify-tangents
	// removes them when the model names them again. See PendingTangents.
	ConfirmedTangents []int
	// ConfirmAllTangents approves every tangent the model names in this run.
	ConfirmAllTangents bool
	// Import has an agent whose sessions live in a database (opencode,
	// Kilo) import the fork, when its executable is on PATH.
	Import bool
	// Inspect, when set, sees the source as the job parsed and counted
	// it, once, before anything is written: a caller that shows figures
	// of the source (the CLI's window and cost lines) reads, parses and
	// counts nothing a second time. counters are the job's own.
	Inspect func(ctx context.Context, t *transcript.Transcript, counters *tokens.CounterSet, counted Counted)
}

// Counted is the source's per-message token counts as the job made them,
// with the counter that made them; Messages is nil when they could not
// be made.
type Counted struct {
	Counter  *tokens.Counter
	Messages []tokens.Count
}

// For returns the counts when they were made by c, nil otherwise.
func (k Counted) For(c *tokens.Counter) []tokens.Count {
	if k.Counter == nil || c == nil || k.Counter.ID() != c.ID() {
		return nil
	}
	return k.Messages
}

// Result is what a compaction did (or, for a dry run, would do).
//
// It is a command's answer on the wire and in `compact --json`, one field per figure the user
// reads: hence more than a dozen.
type Result struct {
	DryRun       bool               `json:"dryRun"`
	Format       string             `json:"format"`
	ForkPath     string             `json:"forkPath,omitempty"`
	Version      string             `json:"version,omitempty"`
	Parent       string             `json:"parent,omitempty"`
	TokensBefore int                `json:"tokensBefore"`
	TokensAfter  int                `json:"tokensAfter"`
	Steps        []strategy.Step    `json:"steps"`
	Retention    strategy.Retention `json:"retention"`
	Notes        []string           `json:"notes,omitempty"`
	// Summarizer names what backed the summarizing steps.
	Summarizer string `json:"summarizer,omitempty"`
	// ReportPath is the dry run's Markdown report.
	ReportPath string `json:"reportPath,omitempty"`
	// Carried is how many bytes the agent appended during an in-place
	// compaction; they follow the compacted content.
	Carried int64 `json:"carried,omitempty"`
	// Tangents are the turns classify-tangents found: removed when
	// confirmed, else only listed for the user to confirm.
	Tangents []strategy.Tangent `json:"tangents,omitempty"`
	// TradeOff is, for a dry run, the compaction at a few budgets — what
	// each takes and keeps, the knee marked — so the user picks a budget.
	TradeOff []strategy.TradePoint `json:"tradeOff,omitempty"`
	// Overhead is what the fork's gauge adds to its own count, an
	// estimate until the agent resumes it: what the source's gauge held
	// beyond its transcript (system prompt, tool definitions, memory
	// files), measured from its last reported usage, plus Resent.
	Overhead int `json:"overhead,omitempty"`
	// Resent is the part of Overhead the agent sends again beside the
	// fork when it resumes it (Codex's initial context, after a fork that
	// clears its context baseline).
	Resent int `json:"resent,omitempty"`
	// Session is the fork's session id, and Resume the shell command that
	// resumes it (for opencode and Kilo: imports it first).
	Session string `json:"session,omitempty"`
	Resume  string `json:"resume,omitempty"`
	// Imported is set when the agent imported the fork (Request.Import).
	Imported bool `json:"imported,omitempty"`
	// AgentRetention compares, for Request.Before, the agent's own
	// summary with this compaction: which facts it lost that ours keeps.
	AgentRetention *AgentRetention `json:"agentRetention,omitempty"`
}

// maxAttempts bounds retries when the source is rewritten under us.
const maxAttempts = 3

// Compact compacts req.Path into a fork (default), a dry-run report, or the
// file itself. Every fork is re-parsed and checked before it counts; the
// source is never modified unless req.InPlace.
func (r *Runner) Compact(ctx context.Context, req Request) (_ *Result, err error) {
	defer func() { err = untouched(req.Path, r.Store.Explain(err)) }()
	defer r.recovered(&err, "compact "+req.Path)
	path, err := absPath(req.Path)
	if err != nil {
		return nil, err
	}
	if req.Before != "" {
		if req.InPlace || req.DryRun {
			return nil, fmt.Errorf("re-compacting the history before %s writes a new session: in place and dry run do not apply", req.Before)
		}
		return r.recompactAgent(ctx, path, req)
	}
	if req.InPlace && !req.DryRun {
		// Before reading: decompressing a large rollout only to refuse it
		// would waste the time.
		if err := refuseCompressed(path); err != nil {
			return nil, err
		}
	}
	for attempt := 1; ; attempt++ {
		res, err := r.compactOnce(ctx, path, req)
		if errors.Is(err, errSourceChanged) && attempt < maxAttempts {
			continue
		}
		if errors.Is(err, errSourceChanged) {
			return nil, fmt.Errorf("%s kept being rewritten while compacting; gave up after %d attempts and wrote nothing", path, attempt)
		}
		return res, err
	}
}

func (r *Runner) compactOnce(ctx context.Context, path string, req Request) (*Result, error) {
	report(req.Progress, "read", 0)
	src, err := readSourceFrom(path, req.Parsed)
	if err != nil {
		return nil, err
	}
	r.inPlace.at("read")
	if req.DryRun {
		r.inspect(ctx, src, req)
		return r.dryRun(ctx, src, req)
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
	// Another job may have held the lock and rewritten the file: read
	// again, and parse again only what changed.
	first := src
	if src, err = rereadSource(path, src); err != nil {
		return nil, err
	}
	if req.InPlace && first.id != 0 && src.id != 0 && first.id != src.id {
		// Not the transcript this job was asked to compact: in place is
		// the file that is there, and this one is new.
		return nil, fmt.Errorf("%s was replaced by another file while compactd read it; nothing was written (run compact again to compact the file now there)", path)
	}
	r.inPlace.at("locked")
	if req.InPlace {
		if err := refuseDatabaseInPlace(src.codec.Format(), path); err != nil {
			return nil, err
		}
		if err := checkReplaceable(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s was deleted while compactd read it; nothing was written", path)
		} else if err != nil {
			return nil, err
		}
	}

	r.inspect(ctx, src, req)

	// Nothing goes into a damaged store: a version recorded there may
	// never come back.
	if err := r.Store.CheckSound(ctx); err != nil {
		return nil, untouched(path, err)
	}
	// The source is recorded while the pipeline runs: they need
	// different cores, and the result is recorded (as the source's
	// child) only once both are done.
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
		if rec.err == nil && req.InPlace {
			// The file is replaced only once the store has given its
			// content back byte for byte: finding it by hash proves
			// nothing about the pages behind it.
			rec.err = r.proveStored(ctx, rec.v, src.data)
		}
	}()
	sessionID := uuid.NewString()
	if req.InPlace {
		sessionID = src.t.Meta.SessionID
	}
	out, rep, err := r.compactBytes(ctx, src, conv.Key, req, sessionID, false)
	rs := <-recordedSource
	if rs.err != nil {
		return nil, untouched(path, rs.err)
	}
	if err != nil {
		return nil, err
	}
	srcVersion := rs.v
	r.inPlace.at("compacted")

	versions, err := r.Store.Versions(ctx, conv.ID)
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("v%d", len(versions)+1)
	recorded := versionReport{Report: rep}
	if counter, err := r.tokenCounter(src.t); err == nil {
		recorded.forkOverhead(ctx, r, path, src.t, src.codec, out.view, counter, out.counts)
	}
	target := req.Out
	switch {
	case req.InPlace:
		target = path
	case target == "":
		target = forkPath(path, src.codec.Format(), sessionID, label, r.now())
	default:
		if target, err = absPath(target); err != nil {
			return nil, err
		}
	}
	if !req.InPlace {
		if _, err := os.Lstat(target); err == nil {
			return nil, fmt.Errorf("%s already exists; not overwriting it (choose another --out)", target)
		}
		if err := checkForkFolder(target, path, req.Workspace); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compact %s: %w; nothing was written", path, err)
	}

	// The store holds the result before the disk does, so a crash after
	// this point leaves a restorable version, never a lost one.
	report(req.Progress, "record result", 80)
	v, _, err := r.Store.RecordVersion(ctx, store.NewVersion{
		Conversation: conv, Kind: store.KindCompact, ParentID: srcVersion.ID,
		SourcePath: path, SourceHash: src.hash(), Format: string(src.codec.Format()),
		Pipeline: pipelineNames(req.Options), Options: out.options, Report: recorded,
		TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter, ForkPath: target,
		Content: out.data, Cuts: recordCuts(out.t), Created: r.now(), Recalls: out.recalls,
	})
	if err != nil {
		return nil, untouched(path, err)
	}
	r.inPlace.at("recorded")
	res := &Result{
		Format: string(src.codec.Format()), ForkPath: target, Version: v.Label, Parent: srcVersion.Label,
		TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter, Steps: rep.Steps,
		Retention: rep.Retention, Notes: rep.Notes, Summarizer: out.summarizer, Tangents: rep.Tangents,
	}
	res.Overhead, _ = recorded.total()
	if recorded.Resent != nil {
		res.Resent = *recorded.Resent
	}

	report(req.Progress, "write", 90)
	if req.InPlace {
		_, appendOnly := src.codec.(format.Appender)
		rr, err := r.inPlace.replace(path, src.t.Size, sha256.Sum256(src.data[:src.t.Size]), out.data, appendOnly, &sourceFile{id: src.id})
		if errors.Is(err, errSourceGone) || errors.Is(err, errSourceReplaced) {
			return nil, notInPlace(path, v.Label, err)
		}
		if err != nil {
			return nil, r.forgetUnwritten(v, err)
		}
		res.Carried = rr.Carried
		res.Notes = append(res.Notes, rr.Notes...)
	} else if err := createFork(target, path, out.data); err != nil {
		return nil, r.forgetUnwritten(v, err)
	}
	// The source must outlive the fork's resume (and an in-place
	// compaction's next start of another session).
	res.Notes = append(res.Notes, guardSource(src.codec.Format(), path)...)
	if !req.InPlace {
		res.Session = out.t.Meta.SessionID
		res.Resume = resumeCommand(src.codec.Format(), out.t.Meta.Cwd, target, res.Session)
		if req.Import && dbAgentCommand(src.codec.Format()) != "" {
			report(req.Progress, "import", 95)
			if _, err := importFork(ctx, src.codec.Format(), out.t.Meta.Cwd, target); err != nil {
				res.Notes = append(res.Notes, err.Error())
			} else {
				res.Imported = true
				res.Resume = resumeImported(src.codec.Format(), out.t.Meta.Cwd, res.Session)
			}
		}
	}
	report(req.Progress, "done", 100)
	return res, nil
}

// compacted is a fork's bytes and their parse.
type compacted struct {
	data       []byte
	t          *transcript.Transcript
	view       *transcript.View
	summarizer string
	// counts are the source's part counts the pipeline ran with.
	counts *strategy.Counts
	// recalls are what its placeholders and summaries name by handle.
	recalls []store.RecallContent
	// options are what the pipeline ran with (the window resolved, the
	// stored pins added), as the store records them.
	options RecordedOptions
}

// forgetUnwritten removes a result recorded ahead of a write that failed,
// so history never lists a version that never reached the disk, and
// returns the write's error.
// notInPlace says that an in-place compaction wrote nothing because its
// transcript went (errSourceGone) or another file took its path
// (errSourceReplaced) while it ran, and where its result is: compactd
// must not bring back a session an agent or its user removed, nor write
// over another file, so the version stays in the store only.
func notInPlace(path, label string, why error) error {
	if errors.Is(why, errSourceGone) {
		return fmt.Errorf("%s was deleted while compactd compacted it in place, so nothing was written there (a removed session is not brought back). The compacted version %s is in the store: 'compactd restore %s %s' writes it as a new session beside it, 'compactd restore --in-place %s %s' puts it back at that path", path, label, path, label, path, label)
	}
	return fmt.Errorf("%s was replaced by another file while compactd compacted it in place; that file was left as it is. The compacted version %s, of the transcript as it was, is in the store: 'compactd restore %s %s' writes it as a new session beside it", path, label, path, label)
}

func (r *Runner) forgetUnwritten(v store.Version, writeErr error) error {
	if err := r.Store.DeleteUnwritten(context.Background(), v.ID); err != nil {
		return errors.Join(writeErr, err)
	}
	return writeErr
}

// compactBytes runs the pipeline on src with the summarizer req's settings
// ask for and renders the fork, verified. preview keeps the summary
// archive untouched (dry runs).

func (r *Runner) compactBytes(ctx context.Context, src *source, convKey string, req Request, sessionID string, preview bool) (*compacted, *strategy.Report, error) {
	run, err := r.compactView(ctx, src, convKey, req, preview)
	if err != nil {
		return nil, nil, err
	}
	view, rep := run.view, run.rep
	report(req.Progress, "render", 60)
	data, err := src.codec.Fork(view, format.ForkOptions{
		SessionID: sessionID, Timestamp: r.now().UTC().Format("2006-01-02T15:04:05.000Z"),
		TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter, InPlace: req.InPlace,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("render compacted %s: %w", src.path, err)
	}
	report(req.Progress, "verify", 70)
	t, err := verifyFork(src, view, data)
	if err != nil {
		return nil, nil, err
	}
	return &compacted{data: data, t: t, view: view, summarizer: run.summarizer, counts: run.counts, recalls: run.recalls, options: run.options}, rep, nil
}

// pipelineRun is what the pipeline made of a source: the view, its
// report, and what its stand-ins name by recall handle.
type pipelineRun struct {
	view       *transcript.View
	rep        *strategy.Report
	summarizer string
	counts     *strategy.Counts
	recalls    []store.RecallContent
	// options are what the pipeline ran with (recordOptions).
	options RecordedOptions
}

// compactView runs the pipeline on src with the summarizer req's settings
// ask for: the pins stored with the conversation, the counts made once
// per job, each stand-in named by a recall handle the store keeps.
// preview keeps the summary archive untouched (dry runs).
func (r *Runner) compactView(ctx context.Context, src *source, convKey string, req Request, preview bool) (*pipelineRun, error) {
	counter, err := r.tokenCounter(src.t)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	opts := req.Options
	// The user's pins, stored with the conversation.
	pins, err := r.Store.Pins(ctx, convKey)
	if err != nil {
		return nil, err
	}
	opts.Pins = append(append([]string(nil), opts.Pins...), pins...)
	sum, notes, err := r.summarizerFor(src, convKey, req, preview)
	if err != nil {
		return nil, err
	}
	opts.Summarizer = sum
	if err := r.tangentOptions(&opts, req); err != nil {
		return nil, err
	}
	if opts.Window <= 0 {
		// The summarize threshold is a fraction of the window: without
		// one, auto would never summarize.
		opts.Window = gauge.Resolve(src.t, gauge.Options{}).ContextWindow
	}
	report(req.Progress, "count", 15)
	if opts.Counts == nil {
		if opts.Counts, err = r.sourceCounts(ctx, src); err != nil {
			return nil, err
		}
	}
	// Each stand-in names its original by a recall handle the store keeps.
	registry := &storeRegistry{ctx: ctx, s: r.Store}
	book := recall.NewBook(registry)
	opts.Recall = book.Handle
	if preview && opts.Budget == 0 && opts.Counts.Total() <= strategy.TradeOffLimit {
		// A dry run shows what a few budgets would keep; past strategy.TradeOffLimit
		// the four extra compactions would cost more than the dry run.
		opts.TradeOff = true
	}
	report(req.Progress, "compact", 20)
	view, rep, err := r.pipeline()(ctx, src.t, counter, opts)
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", src.path, err)
	}
	if err := registry.Err(); err != nil {
		return nil, fmt.Errorf("compact %s: name what compaction replaces: %w", src.path, err)
	}
	// A canceled summarizer is skipped with a note by the pipeline; the
	// caller asked to stop, so stop.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compact %s: %w; nothing was written", src.path, err)
	}
	rep.Notes = mergeNotes(notes, rep.Notes, sum == nil)
	name := ""
	if sum != nil {
		name = sum.Name()
	}
	return &pipelineRun{view: view, rep: rep, summarizer: name, counts: opts.Counts, recalls: recallsOf(view, book), options: recordOptions(opts)}, nil
}

// countSource counts src's parts on every core, reusing the counts it
// came with when the same counter made them.
func countSource(ctx context.Context, src *source, c *tokens.Counter) (*strategy.Counts, error) {
	if src.parts == nil || src.partsBy != c.ID() || len(src.parts) != len(src.t.Messages) {
		return strategy.CountTranscript(ctx, src.t, c)
	}
	full := make([][]int, len(src.parts))
	var missing []int
	for i, row := range src.parts {
		if row != nil && len(row) == len(src.t.Messages[i].Parts) {
			full[i] = row
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		sub := &transcript.Transcript{Format: src.t.Format, Messages: make([]transcript.Message, len(missing))}
		for k, i := range missing {
			sub.Messages[k] = src.t.Messages[i]
		}
		counted, err := strategy.CountTranscript(ctx, sub, c)
		if err != nil {
			return nil, err
		}
		for k, i := range missing {
			full[i] = make([]int, len(sub.Messages[k].Parts))
			for j := range full[i] {
				full[i][j] = counted.Part(k, j)
			}
		}
	}
	return strategy.NewCounts(src.t, c, full)
}

// inspect hands the parsed source and its counts to req.Inspect.
func (r *Runner) inspect(ctx context.Context, src *source, req Request) {
	if req.Inspect == nil {
		return
	}
	var counted Counted
	if counts, err := r.sourceCounts(ctx, src); err == nil {
		counted = Counted{Counter: counts.Counter(), Messages: counts.Messages()}
	}
	req.Inspect(ctx, src.t, r.counterSet(), counted)
}

// sourceCounts counts src's parts once per job, on every core: the
// caller's figures, the pipeline and the dry-run report share them.
func (r *Runner) sourceCounts(ctx context.Context, src *source) (*strategy.Counts, error) {
	if src.counts != nil {
		return src.counts, nil
	}
	c, err := r.tokenCounter(src.t)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	counts, err := countSource(ctx, src, c)
	if err != nil {
		return nil, err
	}
	src.counts = counts
	return counts, nil
}

// mergeNotes puts the job's own notes first. When the job chose to run
// without a summarizer (an empty notes file) its note says why, so the
// pipeline's generic "no summarizer is configured" would only mislead.
func mergeNotes(own, pipeline []string, noSummarizer bool) []string {
	out := append([]string(nil), own...)
	for _, n := range pipeline {
		if noSummarizer && len(own) > 0 && strings.Contains(n, "no summarizer is configured") {
			continue
		}
		out = append(out, n)
	}
	return out
}

// verifyFork re-parses a fork: it must be the source's format, parse
// completely, add no malformed records, and hold a conversation when the
// view it renders does (a codec that wrote the records but lost the
// messages, or wrote nothing, must not count as a fork).
func verifyFork(src *source, view *transcript.View, data []byte) (*transcript.Transcript, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("the compacted %s came out empty (0 bytes); nothing was written", filepath.Base(src.path))
	}
	if c, err := format.Detect(src.path, data); err != nil || c.Format() != src.codec.Format() {
		got := "nothing"
		if err == nil {
			got = string(c.Format())
		}
		return nil, fmt.Errorf("the compacted %s is not recognised as %s any more (detected as %s); nothing was written", filepath.Base(src.path), src.codec.Format(), got)
	}
	t, err := src.codec.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("the compacted %s does not parse back (%v); nothing was written", filepath.Base(src.path), err)
	}
	if t.Skipped > src.t.Skipped {
		return nil, fmt.Errorf("the compacted %s has %d unreadable records the source did not have; nothing was written", filepath.Base(src.path), t.Skipped-src.t.Skipped)
	}
	if t.Size != int64(len(data)) {
		return nil, fmt.Errorf("the compacted %s ends in an incomplete record; nothing was written", filepath.Base(src.path))
	}
	if want := len(view.Messages) + len(view.Summaries); want > 0 && len(t.Messages) == 0 {
		return nil, fmt.Errorf("the compacted %s reads back with no conversation (it should hold %d messages); the fork lost it, so nothing was written", filepath.Base(src.path), want)
	}
	// A fork must keep the API invariants (calls paired with results —
	// every call the source answered — signed reasoning intact) unless the
	// source already broke them, both read as the agent reads them.
	if err := strategy.CheckFork(t, src.t); err != nil && strategy.CheckTranscript(src.t) == nil {
		return nil, fmt.Errorf("the compacted %s breaks the API's rules (%v); nothing was written", filepath.Base(src.path), err)
	}
	return t, nil
}

func pipelineNames(o strategy.Options) []string {
	if len(o.Strategies) == 0 {
		return []string{"auto"}
	}
	return o.Strategies
}

// dryRun compacts in memory and writes only the Markdown report.
func (r *Runner) dryRun(ctx context.Context, src *source, req Request) (*Result, error) {
	// Read-only lookup: a fork's conversation is found by its path.
	key := conversationKey(src.t, src.path)
	if c, ok, err := r.Store.FindConversation(ctx, src.path, key); err != nil {
		return nil, err
	} else if ok {
		key = c.Key
	}
	out, rep, err := r.compactBytes(ctx, src, key, req, uuid.NewString(), true)
	if err != nil {
		return nil, err
	}
	report(req.Progress, "report", 85)
	md := renderDryRun(ctx, r, src, out, rep, req.Options)
	dir := r.Store.ReportsDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create reports folder %s: %w", dir, err)
	}
	name := fmt.Sprintf("%s-%s.md", r.now().UTC().Format("20060102T150405.000"), safeName(filepath.Base(src.path)))
	reportPath := filepath.Join(dir, name)
	if err := os.WriteFile(reportPath, []byte(md), 0o600); err != nil {
		return nil, fmt.Errorf("write dry-run report %s: %w", reportPath, err)
	}
	report(req.Progress, "done", 100)
	res := &Result{
		DryRun: true, Format: string(src.codec.Format()), TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter,
		Steps: rep.Steps, Retention: rep.Retention, Notes: rep.Notes, ReportPath: reportPath, Summarizer: out.summarizer,
		Tangents: rep.Tangents, TradeOff: rep.TradeOff,
	}
	if counter, err := r.tokenCounter(src.t); err == nil {
		res.Resent = resentTokens(src.t, src.codec, out.view, counter)
	}
	return res, nil
}

func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// proveStored reads version v back from the store and compares it with
// want, the bytes about to be replaced.
func (r *Runner) proveStored(ctx context.Context, v store.Version, want []byte) error {
	got, err := r.Store.Content(ctx, v.ContentHash)
	if err == nil && !bytes.Equal(got, want) {
		err = fmt.Errorf("%s reads back different from what was recorded", v.Label)
	}
	if err != nil {
		r.Store.ForgetSound()
		return store.Damaged(r.Store.Path(), fmt.Sprintf("cannot give back the content it just recorded as %s (%v)", v.Label, err), err)
	}
	return nil
}

// untouched words a store failure during a job so the user learns first
// that their transcript is safe, then what is wrong and how to fix it.
func untouched(path string, err error) error {
	var se *store.StoreError
	if (errors.As(err, &se) || store.IsDamaged(err)) && !strings.Contains(err.Error(), " is untouched: ") {
		return fmt.Errorf("%s is untouched: %w", path, err)
	}
	return err
}
