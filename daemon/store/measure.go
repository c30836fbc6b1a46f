package store

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"time"
)

// VersionOverhead is what storing a transcript's versions costs.
type VersionOverhead struct {
	SourceBytes int64
	Versions    int
	StoreBytes  int64
	// Ratio is StoreBytes / SourceBytes: how many copies of the source
	// the whole history costs (target ≤ 1.3 for 20 compacted versions).
	Ratio   float64
	Elapsed time.Duration
}

// syntheticTranscript builds a Claude-Code-like JSONL transcript of about
// size bytes: varied prose and tool output, one record per line.
func syntheticTranscript(size int) []byte {
	rng := rand.New(rand.NewSource(42))
	words := strings.Fields("the build fails in main.go because the handler returns early; run go test ./... and check " +
		"the error message: undefined reference to config.Load, then fix the import path and retry the command " +
		"func main() { if err := run(); err != nil { log.Fatal(err) } } package server import fmt os strings")
	var b strings.Builder
	b.Grow(size + 4096)
	for i := 0; b.Len() < size; i++ {
		n := 20 + rng.Intn(400)
		text := make([]string, n)
		for j := range text {
			text[j] = words[rng.Intn(len(words))]
		}
		role := "assistant"
		if i%2 == 0 {
			role = "user"
		}
		fmt.Fprintf(&b, `{"type":%q,"uuid":"%08x-0000-4000-8000-%012x","sessionId":"5b0e8a52-6a7c-4a3e-9a53-2f4f7f1f0c11","message":{"role":%q,"content":[{"type":"text","text":%q}]}}`+"\n",
			role, i, i, role, strings.Join(text, " "))
	}
	return []byte(b.String())
}

// MeasureVersionOverhead records a synthetic transcript of sourceBytes and
// then `versions` compacted versions of it (each dropping a growing share
// of the oldest records behind a new summary line, as in-place compaction
// does), in a fresh store under dir, and reports the store's size.
func MeasureVersionOverhead(ctx context.Context, dir string, sourceBytes, versions int) (VersionOverhead, error) {
	src := syntheticTranscript(sourceBytes)
	s, err := Open(ctx, filepath.Join(dir, "measure.db"))
	if err != nil {
		return VersionOverhead{}, err
	}
	defer s.Close()
	start := time.Now()
	c, err := s.EnsureConversation(ctx, Conversation{Key: "session:measure", SourcePath: "/measure.jsonl"})
	if err != nil {
		return VersionOverhead{}, err
	}
	cuts := LineCuts(src)
	v, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindSource, Content: src, Cuts: cuts})
	if err != nil {
		return VersionOverhead{}, err
	}
	parent := v.ID
	for i := 1; i <= versions; i++ {
		drop := cuts[len(cuts)*i/(versions*2)]
		summary := fmt.Sprintf(`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary of the first %d bytes, pass %d"}}`+"\n", drop, i)
		content := append([]byte(summary), src[drop:]...)
		nv, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindCompact, ParentID: parent,
			Content: content, Cuts: LineCuts(content), Pipeline: []string{"turn-window"}})
		if err != nil {
			return VersionOverhead{}, err
		}
		parent = nv.ID
	}
	if err := s.Checkpoint(ctx); err != nil {
		return VersionOverhead{}, err
	}
	size, err := s.Size()
	if err != nil {
		return VersionOverhead{}, err
	}
	return VersionOverhead{SourceBytes: int64(len(src)), Versions: versions, StoreBytes: size,
		Ratio: float64(size) / float64(len(src)), Elapsed: time.Since(start)}, nil
}

// MeasureHistory records n versions of one conversation in a fresh store
// under dir and times listing them (what `compactd history` does).
func MeasureHistory(ctx context.Context, dir string, n int) (time.Duration, error) {
	s, err := Open(ctx, filepath.Join(dir, "history.db"))
	if err != nil {
		return 0, err
	}
	defer s.Close()
	c, err := s.EnsureConversation(ctx, Conversation{Key: "session:history", SourcePath: "/history.jsonl"})
	if err != nil {
		return 0, err
	}
	var parent int64
	for i := 0; i < n; i++ {
		content := []byte(fmt.Sprintf(`{"n":%d}`+"\n", i))
		v, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindCompact, ParentID: parent,
			Content: content, Cuts: LineCuts(content), Report: map[string]any{"tokensBefore": 1000, "steps": []string{"x"}}})
		if err != nil {
			return 0, err
		}
		parent = v.ID
	}
	start := time.Now()
	vs, err := s.Versions(ctx, c.ID)
	if err != nil {
		return 0, err
	}
	if len(vs) != n {
		return 0, fmt.Errorf("listed %d versions of %d", len(vs), n)
	}
	return time.Since(start), nil
}
