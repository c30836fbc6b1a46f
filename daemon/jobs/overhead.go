package jobs

import (
	"context"
	"encoding/json"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/store"
)

// versionReport is what a compaction records as its version's report: the
// pipeline's report and the overhead its source's gauge held beyond the
// transcript (system prompt, tools, memory files), which the fork inherits
// and its gauge adds (gauge.Options.Overhead) until the agent reports usage
// on it.
type versionReport struct {
	*strategy.Report
	SourceOverhead *int `json:"sourceOverhead,omitempty"`
}

// sourceOverhead measures what t's gauge holds beyond its messages: its
// last reported usage minus our count of what that usage covered, from
// inside, our count of every message (the pipeline's TokensBefore), and a
// count of the messages after the last usage only. A source without usage
// that is itself a fork passes on its own overhead.
func (r *Runner) sourceOverhead(ctx context.Context, path string, t *transcript.Transcript, counter *tokens.Counter, inside int) (int, bool) {
	opts := gauge.Options{}
	if t.LastUsage() < 0 {
		if over, ok := r.ForkOverhead(ctx, path); ok {
			opts.Overhead = over
		}
	}
	g, err := gauge.CountLive(ctx, counter, t, opts)
	if err != nil {
		return 0, false
	}
	return gauge.Overhead(g, inside)
}

// ForkOverhead returns the overhead recorded for the transcript at path
// when compactd wrote it (a fork, or a file compacted in place): what its
// source's gauge held beyond the transcript. ok is false for files compactd
// did not write, or wrote without a measured overhead.
func (r *Runner) ForkOverhead(ctx context.Context, path string) (int, bool) {
	return StoreOverhead(ctx, r.Store, path)
}

// StoreOverhead is ForkOverhead on a store.
func StoreOverhead(ctx context.Context, s *store.Store, path string) (int, bool) {
	if s == nil || path == "" {
		return 0, false
	}
	v, ok, err := s.LatestForkVersion(ctx, path)
	if err != nil || !ok {
		return 0, false
	}
	var rep struct {
		SourceOverhead *int `json:"sourceOverhead"`
	}
	if json.Unmarshal(v.Report, &rep) != nil || rep.SourceOverhead == nil {
		return 0, false
	}
	return *rep.SourceOverhead, true
}
