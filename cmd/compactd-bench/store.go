package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/store"
)

func init() {
	register(section{
		Name:    "store",
		Summary: "version store: size of 20 compacted versions of a 50 MB transcript, time to list 1,000 versions",
		Run:     benchStore,
	})
}

// benchStore measures what keeping history costs: the store's size after a
// transcript and 20 compacted versions of it (content-addressed lines keep
// the shared tail once), and how fast `history` lists 1,000 versions.
func benchStore(ctx context.Context, cfg *config) ([]row, error) {
	source, sourceName, historyRuns := 50<<20, "50 MB", 5
	if cfg.Quick {
		source, sourceName, historyRuns = 10<<20, "10 MB", 3
	}
	const versions, historyVersions = 20, 1000

	dir, err := os.MkdirTemp(cfg.TempDir, "store-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	m, err := store.MeasureVersionOverhead(ctx, dir, source, versions)
	if err != nil {
		return nil, fmt.Errorf("record %d versions of a %s transcript: %w", versions, sourceName, err)
	}
	cfg.logf("store: %d versions of %.1f MB (store's synthetic text): store %.1f MB in %v", versions, mb(m.SourceBytes), mb(m.StoreBytes), m.Elapsed.Round(time.Millisecond))
	// The store's own measure uses a small-vocabulary text that compresses
	// well; the same versions over a generated Claude Code session (ids,
	// hashes, base64, tool output) show the cost on realistic bytes.
	g, err := measureGeneratedOverhead(ctx, dir, source, versions)
	if err != nil {
		return nil, err
	}
	cfg.logf("store: %d versions of %.1f MB (generated Claude Code): store %.1f MB in %v", versions, mb(g.SourceBytes), mb(g.StoreBytes), g.Elapsed.Round(time.Millisecond))

	// Each run records 1,000 versions in a fresh store, then times the
	// listing alone; the median of a few runs damps the shared machine.
	listings := make([]time.Duration, 0, historyRuns)
	for i := range historyRuns {
		runDir := filepath.Join(dir, fmt.Sprintf("history-%d", i))
		if err := os.MkdirAll(runDir, 0o755); err != nil {
			return nil, err
		}
		d, err := store.MeasureHistory(ctx, runDir, historyVersions)
		if err != nil {
			return nil, fmt.Errorf("history of %d versions: %w", historyVersions, err)
		}
		listings = append(listings, d)
	}
	slowest := slowest(listings)
	history := median(listings)
	cfg.logf("store: history of %d versions: median %v, slowest %v over %d runs", historyVersions, history, slowest, historyRuns)

	return []row{
		{Name: fmt.Sprintf("store size / one copy: %s synthetic transcript (store.MeasureVersionOverhead) + %d compacted versions", sourceName, versions),
			Value: fmt.Sprintf("%.2f× (%.1f MB for %.1f MB)", m.Ratio, mb(m.StoreBytes), mb(m.SourceBytes)), Anchor: "≤ 1.3", Pass: m.Ratio <= 1.3},
		{Name: fmt.Sprintf("store size / one copy: %s generated Claude Code transcript + %d compacted versions", sourceName, versions),
			Value: fmt.Sprintf("%.2f× (%.1f MB for %.1f MB)", g.Ratio, mb(g.StoreBytes), mb(g.SourceBytes)), Anchor: "≤ 1.3", Pass: g.Ratio <= 1.3},
		{Name: fmt.Sprintf("history of %d versions (median of %d)", historyVersions, historyRuns), Value: ms(history),
			Anchor: "≤ 50 ms", Pass: history <= 50*time.Millisecond},
		{Name: fmt.Sprintf("history of %d versions (slowest of %d)", historyVersions, historyRuns), Value: ms(slowest)},
		{Name: fmt.Sprintf("record a %s transcript and %d versions", sourceName, versions), Value: ms(m.Elapsed)},
	}, nil
}

// measureGeneratedOverhead is store.MeasureVersionOverhead's workload —
// a source and versions that each drop a growing share of the oldest
// records behind a summary line, as in-place compaction does — over a
// generated Claude Code session instead of the store's synthetic text.
func measureGeneratedOverhead(ctx context.Context, dir string, sourceBytes, versions int) (store.VersionOverhead, error) {
	src := sessiongen.ClaudeCode(sessiongen.Options{Seed: 50, TargetBytes: sourceBytes})
	s, err := store.Open(ctx, filepath.Join(dir, "generated.db"))
	if err != nil {
		return store.VersionOverhead{}, err
	}
	defer s.Close()
	start := time.Now()
	c, err := s.EnsureConversation(ctx, store.Conversation{Key: "session:generated", SourcePath: "/generated.jsonl"})
	if err != nil {
		return store.VersionOverhead{}, err
	}
	cuts := store.LineCuts(src)
	v, _, err := s.RecordVersion(ctx, store.NewVersion{Conversation: c, Kind: store.KindSource, Content: src, Cuts: cuts})
	if err != nil {
		return store.VersionOverhead{}, fmt.Errorf("record the %d-byte source: %w", len(src), err)
	}
	parent := v.ID
	for i := 1; i <= versions; i++ {
		drop := cuts[len(cuts)*i/(versions*2)]
		summary := fmt.Sprintf(`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary of the first %d bytes, pass %d"}}`+"\n", drop, i)
		content := append([]byte(summary), src[drop:]...)
		nv, _, err := s.RecordVersion(ctx, store.NewVersion{Conversation: c, Kind: store.KindCompact, ParentID: parent,
			Content: content, Cuts: store.LineCuts(content), Pipeline: []string{"auto"}})
		if err != nil {
			return store.VersionOverhead{}, fmt.Errorf("record version %d: %w", i, err)
		}
		parent = nv.ID
	}
	if err := s.Checkpoint(ctx); err != nil {
		return store.VersionOverhead{}, err
	}
	size, err := s.Size()
	if err != nil {
		return store.VersionOverhead{}, err
	}
	return store.VersionOverhead{SourceBytes: int64(len(src)), Versions: versions, StoreBytes: size,
		Ratio: float64(size) / float64(len(src)), Elapsed: time.Since(start)}, nil
}

// slowest returns the largest of d.
func slowest(d []time.Duration) time.Duration {
	var m time.Duration
	for _, x := range d {
		m = max(m, x)
	}
	return m
}

// mb converts bytes to MiB for display.
func mb[N int | int64](n N) float64 { return float64(n) / (1 << 20) }
