package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() {
	register(section{
		Name:    "append",
		Summary: "append 10 KB to a small and a huge Claude Code transcript: parse + count + gauge",
		Run:     benchAppend,
	})
}

// appendBytes is the size of one append, as an agent writes after a tool call.
const appendBytes = 10 << 10

// benchAppend shows that an append costs O(appended bytes): the time to
// absorb 10 KB into a 200 MB transcript must stay within 1.5× the time
// for a 1 MB one.
func benchAppend(ctx context.Context, cfg *config) ([]row, error) {
	codec, ok := format.Lookup(transcript.FormatClaudeCode)
	if !ok {
		return nil, errors.New("the Claude Code codec is not registered in compaction/format/all")
	}
	appender, ok := codec.(format.Appender)
	if !ok {
		return nil, errors.New("the Claude Code codec does not implement format.Appender")
	}
	small, large, largeName := 1<<20, 200<<20, "200 MB"
	runs := 15
	if cfg.Quick {
		large, largeName, runs = 20<<20, "20 MB", 5
	}
	// Both fixtures first, then the runs interleaved (1 MB, 200 MB, 1 MB, …):
	// load on this shared machine drifts, and timing one size after the
	// other put the drift on one side of the ratio.
	fixtures := make([]*appendFixture, 0, 2)
	for _, size := range []int{small, large} {
		f, err := newAppendFixture(cfg, codec, size)
		if err != nil {
			return nil, err
		}
		fixtures = append(fixtures, f)
	}
	runtime.GC() // finish collecting the fixtures' garbage before timing
	durations := make([][]time.Duration, len(fixtures))
	for range runs {
		for i, f := range fixtures {
			d, err := f.appendOnce(ctx, appender)
			if err != nil {
				return nil, err
			}
			durations[i] = append(durations[i], d)
		}
	}
	smallT, largeT := median(durations[0]), median(durations[1])
	ratio := float64(largeT) / float64(smallT)
	return []row{
		{Name: fmt.Sprintf("append 10 KB: %s / 1 MB time ratio (interleaved runs)", largeName), Value: fmt.Sprintf("%.2f×", ratio), Anchor: "≤ 1.5", Pass: ratio <= 1.5},
		{Name: "append 10 KB to 1 MB (median)", Value: ms(smallT)},
		{Name: fmt.Sprintf("append 10 KB to %s (median)", largeName), Value: ms(largeT)},
	}, nil
}

// appendFixture is a parsed session and the 10 KB that continues it, with
// what the daemon keeps per transcript: a registry and the gauge's figures
// of the previous parse, carried forward on each append.
type appendFixture struct {
	size     int
	prev     *transcript.Transcript
	chunk    []byte
	registry *tokens.Registry
	stats    transcript.Stats
	model    tokens.Model
}

func newAppendFixture(cfg *config, codec format.Codec, size int) (*appendFixture, error) {
	start := time.Now()
	base := sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(size), TargetBytes: size})
	f := &appendFixture{size: size, chunk: tenKB(sessiongen.Continue(transcript.FormatClaudeCode, base, 7, 200)), registry: tokens.NewRegistry()}
	prev, err := codec.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("parse generated %d-byte session: %w", len(base), err)
	}
	f.prev, f.stats = prev, transcript.StatsOf(prev.Messages)
	f.model, _ = f.registry.Lookup(gauge.Resolve(prev, gauge.Options{Registry: f.registry, Stats: &f.stats}).Model)
	cfg.logf("append: %.1f MB session (%d messages) generated and parsed in %v", float64(len(base))/(1<<20), len(prev.Messages), time.Since(start).Round(time.Millisecond))
	return f, nil
}

// appendOnce times one append of the 10 KB: codec Append, carrying the
// gauge's figures forward, counting the messages the calibrated gauge
// needs, and the gauge itself.
func (f *appendFixture) appendOnce(ctx context.Context, appender format.Appender) (time.Duration, error) {
	// A fresh cache per run, so every run counts the new text.
	counter, err := tokens.NewForModel(f.model, tokens.WithCache(tokens.NewMemoryCache(0)))
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	next, err := appender.Append(f.prev, f.chunk)
	if err != nil {
		return 0, fmt.Errorf("append to %d-byte session: %w", f.size, err)
	}
	st := f.stats.Advance(f.prev.Messages, next.Messages, next.Kept)
	g, err := gauge.CountLive(ctx, counter, next, gauge.Options{Registry: f.registry, Stats: &st})
	if err != nil {
		return 0, err
	}
	d := time.Since(t0)
	if next.Size != f.prev.Size+int64(len(f.chunk)) || g.Tokens <= 0 {
		return 0, fmt.Errorf("append consumed %d of %d bytes, gauge %d tokens", next.Size-f.prev.Size, len(f.chunk), g.Tokens)
	}
	return d, nil
}

// tenKB returns the first complete lines of lines adding up to at least
// appendBytes.
func tenKB(lines []byte) []byte {
	end := 0
	for end < appendBytes {
		i := bytes.IndexByte(lines[end:], '\n')
		if i < 0 {
			break
		}
		end += i + 1
	}
	return lines[:end]
}
