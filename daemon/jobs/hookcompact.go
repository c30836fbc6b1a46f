package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/config"
)

// AgentCompactRequest asks compactd to compact a conversation in the
// agent's place (Claude Code's session.compact hook): the summary that
// the agent continues on, nothing written but the store.
type AgentCompactRequest struct {
	Path string
	// Instructions are what the person asked the summary to keep (the
	// text after /compact).
	Instructions string
	Summarize    config.Summarize
}

// AgentCompactResult is the summary the agent continues on.
type AgentCompactResult struct {
	Summary string `json:"summary"`
	// Version is the store's version of the conversation as it was
	// before this compaction.
	Version      string `json:"version"`
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
	Summarizer   string `json:"summarizer"`
	// KeepTurns is how many of the last turns the summary leaves out:
	// the agent keeps them as they are.
	KeepTurns int `json:"keepTurns"`
}

// ErrNothingToSummarize is returned when the conversation has nothing
// before what is kept: the agent compacts as it would without compactd.
var ErrNothingToSummarize = errors.New("nothing to summarize")

// CompactForAgent records the conversation at req.Path (so the agent's
// own compaction stays restorable) and summarizes it with compactd's
// summarize step; the summary names the recall handle of what it stands
// for, kept in the store.
func (r *Runner) CompactForAgent(ctx context.Context, req AgentCompactRequest) (_ *AgentCompactResult, err error) {
	defer func() { err = r.Store.Explain(err) }()
	abs, err := absPath(req.Path)
	if err != nil {
		return nil, err
	}
	src, err := readSource(abs)
	if err != nil {
		return nil, err
	}
	conv, err := r.conversation(ctx, src)
	if err != nil {
		return nil, err
	}
	if err := r.Store.CheckSound(ctx); err != nil {
		return nil, err
	}
	v, err := r.recordSource(ctx, conv, src)
	if err != nil {
		return nil, err
	}
	counter, err := r.tokenCounter(src.t)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	sum, _, err := r.summarizerFor(src, conv.Key, Request{Summarize: req.Summarize}, false)
	if err != nil {
		return nil, err
	}
	// The last turn stays as it is (mid-turn, the work in progress); the
	// summary stands for the turns before it.
	book := recall.NewBook(&storeRegistry{ctx: ctx, s: r.Store})
	opts := strategy.Options{
		Strategies: []string{strategy.StrategySummarize}, Summarizer: sum, KeepLast: new(1), BufferTurns: new(1),
		Window: gauge.Resolve(src.t, gauge.Options{}).ContextWindow, NoRetention: true, Recall: book.Handle,
	}
	if opts.Counts, err = r.sourceCounts(ctx, src); err != nil {
		return nil, err
	}
	view, rep, err := strategy.Run(ctx, src.t, counter, opts)
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", abs, err)
	}
	if len(view.Summaries) == 0 {
		return nil, fmt.Errorf("%w in %s: %s", ErrNothingToSummarize, abs, strings.Join(rep.Notes, "; "))
	}
	if err := r.Store.AddRecalls(ctx, v.ID, recallsOf(view, book)); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("This session continues from an earlier conversation, summarized by compactd in place of the agent's own compaction.\n\n")
	if s := strings.TrimSpace(req.Instructions); s != "" {
		fmt.Fprintf(&b, "Asked to keep: %s\n\n", s)
	}
	for i, s := range view.Summaries {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s.Text)
	}
	turns := len(src.t.Turns)
	if turns == 0 {
		turns = len(transcript.BuildTurns(src.t.Messages))
	}
	last := view.Summaries[len(view.Summaries)-1]
	return &AgentCompactResult{Summary: b.String(), Version: v.Label, TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter,
		Summarizer: sum.Name(), KeepTurns: max(turns-last.ToTurn, 0)}, nil
}
