package jobs

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/store"
)

// KindAgent marks, in a History, a compaction the agent itself recorded
// in the transcript (Claude Code's compact_boundary, Codex's compacted,
// Roo's condense). Its label is "a1", "a2", … in file order; each one's
// parent is the one before it. Restore writes the conversation as it was
// before it; compact with Request.Before compacts that history with
// compactd instead.
const KindAgent = "agent"

// AgentLabel is the history label of the agent's i-th compaction (0-based).
func AgentLabel(i int) string { return "a" + strconv.Itoa(i+1) }

// agentIndex parses an agent compaction label ("a2" → 1).
func agentIndex(label string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(label)), "a")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		return 0, false
	}
	return n - 1, true
}

// IsAgentLabel reports whether label names an agent's own compaction.
func IsAgentLabel(label string) bool {
	_, ok := agentIndex(label)
	return ok
}

// agentCompactions lists the compactions the agent recorded in src.
func agentCompactions(src *source) (format.CompactionReader, []format.AgentCompaction) {
	reader, ok := src.codec.(format.CompactionReader)
	if !ok || src.t == nil {
		return nil, nil
	}
	return reader, reader.AgentCompactions(src.t)
}

// agentVersions renders the agent's compactions as history entries.
func agentVersions(src *source, list []format.AgentCompaction) []store.Version {
	out := make([]store.Version, len(list))
	for i, c := range list {
		what := c.Kind
		if c.Trigger != "" {
			what += " " + c.Trigger
		}
		v := store.Version{Label: AgentLabel(i), Kind: KindAgent, SourcePath: src.path, Format: string(src.codec.Format()),
			TokensBefore: c.TokensBefore, Pipeline: []string{what}, Created: c.Timestamp}
		if i > 0 {
			v.Parent = AgentLabel(i - 1)
		}
		if c.Record >= 0 && c.Record < len(src.t.Records) {
			v.Size = src.t.Records[c.Record].Start // where in the file it is
		}
		out[i] = v
	}
	return out
}

// AgentCompactions lists the history labels of the compactions the agent
// recorded in path ("a1", …), oldest first.
func (r *Runner) AgentCompactions(ctx context.Context, path string) (_ []string, err error) {
	defer r.recovered(&err, "list the agent's compactions of "+path)
	path, err = absPath(path)
	if err != nil {
		return nil, err
	}
	src, err := readSource(path)
	if err != nil {
		return nil, err
	}
	_, list := agentCompactions(src)
	labels := make([]string, len(list))
	for i := range list {
		labels[i] = AgentLabel(i)
	}
	return labels, nil
}

// beforeAgent is the conversation as it was before one of the agent's
// compactions, as a source of its own: its bytes a new session of the
// transcript's format.
type beforeAgent struct {
	src        *source // the file itself
	index      int
	compaction format.AgentCompaction
	before     *source // path is the file's; data the rendered session
	sessionID  string
}

func (r *Runner) readBeforeAgent(path, label string) (*beforeAgent, error) {
	i, ok := agentIndex(label)
	if !ok {
		return nil, fmt.Errorf("%q names no agent compaction: use a1, a2, … as compactd history lists them", label)
	}
	src, err := readSource(path)
	if err != nil {
		return nil, err
	}
	reader, list := agentCompactions(src)
	switch {
	case reader == nil:
		return nil, fmt.Errorf("%s is a %s transcript, whose agent records no compactions compactd can undo", path, src.codec.Format())
	case i >= len(list):
		if len(list) == 0 {
			return nil, fmt.Errorf("the agent has not compacted %s: there is nothing before a compaction to restore", path)
		}
		return nil, fmt.Errorf("%s has %d agent compactions (a1–a%d), not %s", path, len(list), len(list), label)
	}
	return beforeAgentOf(src, reader, list, i)
}

// beforeAgentOf is the conversation before compaction i of list, read
// from src.
func beforeAgentOf(src *source, reader format.CompactionReader, list []format.AgentCompaction, i int) (*beforeAgent, error) {
	label := AgentLabel(i)
	session := uuid.NewString()
	data, err := reader.BeforeCompaction(src.t, i, format.ForkOptions{SessionID: session})
	if err != nil {
		return nil, fmt.Errorf("render the conversation before %s: %w", label, err)
	}
	t, err := src.codec.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("the conversation before %s does not parse back: %w", label, err)
	}
	if t.Meta.SessionID != "" {
		session = t.Meta.SessionID
	}
	return &beforeAgent{src: src, index: i, compaction: list[i], sessionID: session,
		before: &source{path: src.path, data: data, hash: contentHash(data), codec: src.codec, t: t}}, nil
}

// RestoreBeforeAgent writes, as a new session beside path, the
// conversation as it was just before the agent's compaction label ("a2"):
// the history the agent's summary replaced, which the agent resumes. The
// file is recorded first, and the restored conversation as its child.
func (r *Runner) RestoreBeforeAgent(ctx context.Context, path, label string) (_ *RestoreResult, err error) {
	defer func() { err = r.Store.Explain(err) }()
	defer r.recovered(&err, "restore "+path+" before "+label)
	if path, err = absPath(path); err != nil {
		return nil, err
	}
	b, err := r.readBeforeAgent(path, label)
	if err != nil {
		return nil, err
	}
	conv, err := r.conversation(ctx, b.src)
	if err != nil {
		return nil, err
	}
	lock, err := r.lockConversation(ctx, conv.Key)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	if err := r.Store.CheckSound(ctx); err != nil {
		return nil, untouched(path, err)
	}
	srcVersion, err := r.recordSource(ctx, conv, b.src)
	if err != nil {
		return nil, untouched(path, err)
	}
	versions, err := r.Store.Versions(ctx, conv.ID)
	if err != nil {
		return nil, err
	}
	target := forkPath(path, b.src.codec.Format(), b.sessionID, fmt.Sprintf("before-%s-v%d", AgentLabel(b.index), len(versions)+1), r.now())
	if _, err := os.Lstat(target); err == nil {
		return nil, fmt.Errorf("%s already exists; not overwriting it", target)
	}
	if err := checkForkFolder(target, path, ""); err != nil {
		return nil, err
	}
	rec, _, err := r.Store.RecordVersion(ctx, store.NewVersion{
		Conversation: conv, Kind: store.KindRestore, ParentID: srcVersion.ID, SourcePath: path,
		SourceHash: b.src.hash(), Format: string(b.src.codec.Format()), ForkPath: target, Content: b.before.data,
		Cuts: recordCuts(b.before.t), Pipeline: []string{"before agent compaction " + AgentLabel(b.index) + " (" + b.compaction.Kind + ")"}, Created: r.now(),
	})
	if err != nil {
		return nil, err
	}
	if err := createFork(target, path, b.before.data); err != nil {
		return nil, r.forgetUnwritten(rec, err)
	}
	return &RestoreResult{Path: target, Version: AgentLabel(b.index), Recorded: rec.Label, Notes: guardSource(b.src.codec.Format(), path),
		Session: b.before.t.Meta.SessionID, Resume: resumeCommand(b.src.codec.Format(), b.before.t.Meta.Cwd, target, b.before.t.Meta.SessionID)}, nil
}

// AgentRetention compares, on the history before one of the agent's
// compactions, what the agent's own summary kept with what compactd's
// compaction of that history keeps.
type AgentRetention struct {
	// Compaction is the agent compaction's label ("a2") and Kind its
	// format's name for it.
	Compaction string `json:"compaction"`
	Kind       string `json:"kind"`
	// Agent is the retention of the agent's summary (and what it kept
	// verbatim); Ours the retention of compactd's result.
	Agent strategy.Retention `json:"agent"`
	Ours  strategy.Retention `json:"ours"`
	// AgentLostOursKept are the key facts the agent's summary lost that
	// compactd's compaction keeps.
	AgentLostOursKept []facts.Fact `json:"agentLostOursKept"`
	// OursLostAgentKept are the other way round.
	OursLostAgentKept []facts.Fact `json:"oursLostAgentKept"`
}

// agentKept is what the agent's summary kept of the history before it.
func agentKept(b *beforeAgent) strategy.Retention {
	after := make([]transcript.Message, len(b.compaction.After))
	for i, m := range b.compaction.After {
		m.Parts = append([]transcript.Part(nil), m.Parts...)
		for k := range m.Parts {
			m.Parts[k].Changed = true // the agent's words: compared as text
		}
		after[i] = m
	}
	return strategy.Retain(b.before.t.Messages, &transcript.View{Source: b.before.t, Messages: after})
}

// agentRetention measures the agent's summary against ours.
func agentRetention(b *beforeAgent, ours strategy.Retention) *AgentRetention {
	agent := agentKept(b)
	out := &AgentRetention{Compaction: AgentLabel(b.index), Kind: b.compaction.Kind, Agent: agent, Ours: ours}
	lostBy := func(r strategy.Retention) map[facts.Fact]bool {
		m := map[facts.Fact]bool{}
		for _, f := range r.Lost {
			m[f] = true
		}
		return m
	}
	agentLost, oursLost := lostBy(agent), lostBy(ours)
	for _, f := range agent.Lost {
		if !oursLost[f] {
			out.AgentLostOursKept = append(out.AgentLostOursKept, f)
		}
	}
	for _, f := range ours.Lost {
		if !agentLost[f] {
			out.OursLostAgentKept = append(out.OursLostAgentKept, f)
		}
	}
	return out
}

// recompactAgent compacts the conversation as it was before the agent's
// compaction req.Before with compactd's pipeline, writes the result as a
// new session beside path, and records the file, that conversation and
// the result as a lineage (file → before aN → compacted).
func (r *Runner) recompactAgent(ctx context.Context, path string, req Request) (*Result, error) {
	b, err := r.readBeforeAgent(path, req.Before)
	if err != nil {
		return nil, err
	}
	conv, err := r.conversation(ctx, b.src)
	if err != nil {
		return nil, err
	}
	report(req.Progress, "lock", 5)
	lock, err := r.lockConversation(ctx, conv.Key)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	if err := r.Store.CheckSound(ctx); err != nil {
		return nil, untouched(path, err)
	}
	report(req.Progress, "record source", 10)
	srcVersion, err := r.recordSource(ctx, conv, b.src)
	if err != nil {
		return nil, untouched(path, err)
	}
	beforeVersion, _, err := r.Store.RecordVersion(ctx, store.NewVersion{
		Conversation: conv, Kind: store.KindRestore, ParentID: srcVersion.ID, SourcePath: path,
		SourceHash: b.src.hash(), Format: string(b.src.codec.Format()), Content: b.before.data, Cuts: recordCuts(b.before.t),
		Pipeline: []string{"before agent compaction " + AgentLabel(b.index) + " (" + b.compaction.Kind + ")"}, Created: r.now(),
	})
	if err != nil {
		return nil, err
	}
	sessionID := uuid.NewString()
	out, rep, err := r.compactBytes(ctx, b.before, conv.Key, req, sessionID, false)
	if err != nil {
		return nil, err
	}
	versions, err := r.Store.Versions(ctx, conv.ID)
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("v%d", len(versions)+1)
	if out.t.Meta.SessionID != "" {
		sessionID = out.t.Meta.SessionID
	}
	target := req.Out
	if target == "" {
		target = forkPath(path, b.src.codec.Format(), sessionID, label, r.now())
	} else if target, err = absPath(target); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(target); err == nil {
		return nil, fmt.Errorf("%s already exists; not overwriting it (choose another --out)", target)
	}
	if err := checkForkFolder(target, path, req.Workspace); err != nil {
		return nil, err
	}
	recorded := versionReport{Report: rep}
	if counter, err := r.tokenCounter(b.before.t); err == nil {
		recorded.forkOverhead(ctx, r, "", b.before.t, b.src.codec, out.view, counter, nil)
	}
	report(req.Progress, "record result", 80)
	v, _, err := r.Store.RecordVersion(ctx, store.NewVersion{
		Conversation: conv, Kind: store.KindCompact, ParentID: beforeVersion.ID,
		SourcePath: path, SourceHash: beforeVersion.ContentHash, Format: string(b.src.codec.Format()),
		Pipeline: pipelineNames(req.Options), Options: out.options, Report: recorded,
		TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter, ForkPath: target,
		Content: out.data, Cuts: recordCuts(out.t), Created: r.now(), Recalls: out.recalls,
	})
	if err != nil {
		return nil, err
	}
	report(req.Progress, "write", 90)
	if err := createFork(target, path, out.data); err != nil {
		return nil, r.forgetUnwritten(v, err)
	}
	res := &Result{
		Format: string(b.src.codec.Format()), ForkPath: target, Version: v.Label, Parent: beforeVersion.Label,
		TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter, Steps: rep.Steps,
		Retention: rep.Retention, Notes: rep.Notes, Summarizer: out.summarizer, Tangents: rep.Tangents,
		Session: out.t.Meta.SessionID, Resume: resumeCommand(b.src.codec.Format(), out.t.Meta.Cwd, target, out.t.Meta.SessionID),
		AgentRetention: agentRetention(b, rep.Retention),
	}
	res.Notes = append(res.Notes, guardSource(b.src.codec.Format(), path)...)
	res.Overhead, _ = recorded.total()
	if recorded.Resent != nil {
		res.Resent = *recorded.Resent
	}
	report(req.Progress, "done", 100)
	return res, nil
}
