package daemon

import (
	"context"
	"errors"
	"fmt"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/jobs"
)

// RunnerJobs routes the editor's commands to daemon/jobs.
type RunnerJobs struct {
	Runner *jobs.Runner
	// Memory, when set, is lifted while a compaction or a restore runs.
	Memory *MemoryLimit
}

var _ Jobs = RunnerJobs{}

func (j RunnerJobs) Compact(ctx context.Context, req JobRequest, progress Progress) (*JobResult, error) {
	opts := strategy.Options{Strategies: req.Strategies, KeepLast: req.KeepLast, Turns: req.Turns, Window: req.Window}
	jr := jobs.Request{
		Path: req.Path, DryRun: req.DryRun, InPlace: req.InPlace, Before: req.Before,
		Workspace: req.Workspace, ConfirmedTangents: req.ConfirmedTangents,
		Progress: jobs.Progress(progress), Parsed: req.Parsed,
	}
	if req.Config != nil {
		opts = req.Config.StrategyOptions(req.Window)
		if len(req.Strategies) > 0 {
			opts.Strategies = req.Strategies
		}
		if req.KeepLast != 0 {
			opts.KeepLast = req.KeepLast
		}
		if req.Turns > 0 {
			opts.Turns = req.Turns
		}
		jr.Summarize = req.Config.Summarize
	}
	jr.Options = opts
	defer j.Memory.Lift()()
	res, err := j.Runner.Compact(ctx, jr)
	if err != nil {
		return nil, err
	}
	saved := res.TokensBefore - res.TokensAfter
	out := &JobResult{Data: res, Tangents: res.PendingTangents()}
	switch {
	case res.AgentRetention != nil:
		ar := res.AgentRetention
		out.Message = fmt.Sprintf("the history before the agent's compaction %s, compacted by compactd: %s → %s tokens; the agent's summary kept %.0f %% of the key facts, this %.0f %% (%d it lost are kept)",
			ar.Compaction, Short(res.TokensBefore), Short(res.TokensAfter), 100*ar.Agent.Score, 100*ar.Ours.Score, len(ar.AgentLostOursKept))
		out.Open = res.ForkPath
	case res.DryRun:
		out.Message = fmt.Sprintf("dry run: compaction would save %s tokens (%s → %s); nothing was written", Short(saved), Short(res.TokensBefore), Short(res.TokensAfter))
		out.Open = res.ReportPath
	case req.InPlace:
		out.Message = fmt.Sprintf("compacted in place: %s → %s tokens (saved %s); the previous content is version %s", Short(res.TokensBefore), Short(res.TokensAfter), Short(saved), res.Parent)
	default:
		out.Message = fmt.Sprintf("compacted: %s → %s tokens (saved %s); fork written beside the original", Short(res.TokensBefore), Short(res.TokensAfter), Short(saved))
		out.Open = res.ForkPath
	}
	return out, nil
}

func (j RunnerJobs) History(ctx context.Context, req JobRequest) (*JobResult, error) {
	h, err := j.Runner.History(ctx, req.Path)
	if err != nil {
		return nil, err
	}
	return &JobResult{Message: fmt.Sprintf("%d stored versions of this conversation", len(h.Versions)), Data: h}, nil
}

func (j RunnerJobs) Restore(ctx context.Context, req JobRequest, progress Progress) (*JobResult, error) {
	if progress != nil {
		progress("restoring "+req.Version, -1)
	}
	defer j.Memory.Lift()()
	r, err := j.Runner.Restore(ctx, req.Path, req.Version, req.InPlace)
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("restored version %s as a new transcript", r.Version)
	if jobs.IsAgentLabel(r.Version) {
		msg = fmt.Sprintf("restored the conversation before the agent's compaction %s as a new session", r.Version)
	}
	if r.InPlace {
		msg = fmt.Sprintf("restored version %s in place", r.Version)
	}
	return &JobResult{Message: msg, Open: r.Path, Data: r}, nil
}

func (j RunnerJobs) Diff(ctx context.Context, req JobRequest) (*JobResult, error) {
	if req.From == "" {
		return nil, errors.New("diff needs from (and optionally to) version labels")
	}
	d, err := j.Runner.Diff(ctx, req.Path, req.From, req.To)
	if err != nil {
		return nil, err
	}
	return &JobResult{Message: fmt.Sprintf("diff of %s and %s", req.From, orCurrent(req.To)), Data: map[string]string{"diff": d}}, nil
}

// AgentCompactions implements AgentCompactionLister.
func (j RunnerJobs) AgentCompactions(ctx context.Context, path string) ([]string, error) {
	return j.Runner.AgentCompactions(ctx, path)
}

func (j RunnerJobs) Versions(ctx context.Context, path string) (int, error) {
	h, err := j.Runner.History(ctx, path)
	if err != nil {
		return 0, err
	}
	return len(h.Versions), nil
}

func orCurrent(s string) string {
	if s == "" {
		return "the current file"
	}
	return s
}
