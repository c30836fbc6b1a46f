package jobs

import (
	"context"
	"encoding/json"

	"github.com/compactd/compactd/compaction/format"
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
	// Resent is what the agent sends again beside the fork when it
	// resumes it (format.Resender: Codex's initial context after a fork
	// that clears its context baseline), counted from the source. The
	// fork's gauge adds it to SourceOverhead.
	Resent *int `json:"resent,omitempty"`
}

// forkOverhead records on rec what the fork's gauge holds beyond its own
// transcript: the source's overhead (gauge.Overhead) and what the agent
// resends beside the fork on resume.
func (rec *versionReport) forkOverhead(ctx context.Context, r *Runner, path string, src *transcript.Transcript, codec format.Codec, view *transcript.View, counter *tokens.Counter, known *strategy.Counts) {
	over, ok := r.sourceOverhead(ctx, path, src, counter, known)
	if !ok {
		return
	}
	rec.SourceOverhead = &over
	if n := resentTokens(src, codec, view, counter); n > 0 {
		rec.Resent = &n
	}
}

// resentTokens counts what the agent sends again beside the fork of view
// when it resumes it (format.Resender). A source without usage of its own
// (a fork not yet resumed) passes on the overhead recorded for it, which
// counts what its agent resends already: 0.
func resentTokens(src *transcript.Transcript, codec format.Codec, view *transcript.View, counter *tokens.Counter) int {
	rs, ok := codec.(format.Resender)
	if !ok || view == nil || src.LastUsage() < 0 {
		return 0
	}
	n := 0
	for _, m := range rs.Resent(view) {
		n += counter.Message(&m)
	}
	return n
}

// total is what the fork's gauge adds to its own count; ok is false when
// nothing was measured.
func (rec versionReport) total() (int, bool) {
	if rec.SourceOverhead == nil {
		return 0, false
	}
	n := *rec.SourceOverhead
	if rec.Resent != nil {
		n += *rec.Resent
	}
	return n, true
}

// sourceOverhead measures what t's gauge holds beyond its messages: its
// last reported usage minus our count of what that usage covered. A
// source without usage that is itself a fork passes on its own overhead.
// known are t's part counts when the pipeline has them (nil counts here).
func (r *Runner) sourceOverhead(ctx context.Context, path string, t *transcript.Transcript, counter *tokens.Counter, known *strategy.Counts) (int, bool) {
	var counts []tokens.Count
	if known != nil && known.Covers(t) {
		counts = known.Messages()
	} else {
		var err error
		if counts, err = counter.CountMessages(ctx, t.Messages); err != nil {
			return 0, false
		}
	}
	opts := gauge.Options{}
	if t.LastUsage() < 0 {
		if over, ok := r.ForkOverhead(ctx, path); ok {
			opts.Overhead = over
		}
	}
	return gauge.Overhead(gauge.Compute(t, counts, opts), tokens.Sum(counts).N)
}

// ForkOverhead returns the overhead recorded for the transcript at path
// when compactd wrote it (a fork, or a file compacted in place): what its
// source's gauge held beyond the transcript. ok is false for files compactd
// did not write, or wrote without a measured overhead.
func (r *Runner) ForkOverhead(ctx context.Context, path string) (n int, ok bool) {
	var err error
	defer r.recovered(&err, "read the recorded overhead of "+path)
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
	return reportOverhead(v.Report)
}

// reportOverhead reads what a version's report recorded its fork's gauge
// adds to the fork's own count: the source's overhead and what the agent
// resends on resume.
func reportOverhead(report json.RawMessage) (int, bool) {
	var rep struct {
		SourceOverhead *int `json:"sourceOverhead"`
		Resent         *int `json:"resent"`
	}
	if len(report) == 0 || json.Unmarshal(report, &rep) != nil {
		return 0, false
	}
	return versionReport{SourceOverhead: rep.SourceOverhead, Resent: rep.Resent}.total()
}
