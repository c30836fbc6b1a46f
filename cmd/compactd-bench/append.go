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
	var rows []row
	times := map[int]time.Duration{}
	for _, size := range []int{small, large} {
		d, err := appendTime(ctx, cfg, codec, appender, size, runs)
		if err != nil {
			return nil, err
		}
		times[size] = d
	}
	ratio := float64(times[large]) / float64(times[small])
	rows = append(rows,
		row{Name: fmt.Sprintf("append 10 KB: %s / 1 MB time ratio", largeName), Value: fmt.Sprintf("%.2f×", ratio), Anchor: "≤ 1.5", Pass: ratio <= 1.5},
		row{Name: "append 10 KB to 1 MB (median)", Value: ms(times[small])},
		row{Name: fmt.Sprintf("append 10 KB to %s (median)", largeName), Value: ms(times[large])},
	)
	return rows, nil
}

// appendTime builds a session of size bytes, parses it once, then times
// runs appends of the same 10 KB: codec Append, carrying the gauge's
// figures forward, counting the messages the calibrated gauge needs, and
// the gauge itself. It returns the median.
func appendTime(ctx context.Context, cfg *config, codec format.Codec, appender format.Appender, size, runs int) (time.Duration, error) {
	start := time.Now()
	base := sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(size), TargetBytes: size})
	chunk := tenKB(sessiongen.Continue(transcript.FormatClaudeCode, base, 7, 200))
	prev, err := codec.Parse(base)
	if err != nil {
		return 0, fmt.Errorf("parse generated %d-byte session: %w", len(base), err)
	}
	cfg.logf("append: %.1f MB session (%d messages) generated and parsed in %v", float64(len(base))/(1<<20), len(prev.Messages), time.Since(start).Round(time.Millisecond))
	// What the daemon keeps per transcript: a registry, and the gauge's
	// figures of the previous parse, carried forward on each append.
	registry := tokens.NewRegistry()
	stats := transcript.StatsOf(prev.Messages)
	model, _ := registry.Lookup(gauge.Resolve(prev, gauge.Options{Registry: registry, Stats: &stats}).Model)
	// Building the fixture left a collection of its garbage under way;
	// finish it, so the runs time the append path and not its marking (a
	// daemon appends to a heap that has long settled).
	runtime.GC()
	durations := make([]time.Duration, 0, runs)
	for range runs {
		// A fresh cache per run, so every run counts the new text.
		counter, err := tokens.NewForModel(model, tokens.WithCache(tokens.NewMemoryCache(0)))
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		next, err := appender.Append(prev, chunk)
		if err != nil {
			return 0, fmt.Errorf("append to %d-byte session: %w", len(base), err)
		}
		st := stats.Advance(prev.Messages, next.Messages, next.Kept)
		g, err := gauge.CountLive(ctx, counter, next, gauge.Options{Registry: registry, Stats: &st})
		if err != nil {
			return 0, err
		}
		durations = append(durations, time.Since(t0))
		if next.Size != prev.Size+int64(len(chunk)) || g.Tokens <= 0 {
			return 0, fmt.Errorf("append consumed %d of %d bytes, gauge %d tokens", next.Size-prev.Size, len(chunk), g.Tokens)
		}
	}
	return median(durations), nil
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
