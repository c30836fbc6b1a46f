package tokens

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/sessiongen"
	"testing"
	"time"
)

func corpusText(b *testing.B) string {
	p := filepath.Join(repoRoot(b), "..", "shared", "corpus", "claude-code", "real-v2.0.42-thinking-PREFIX.jsonl")
	raw, err := os.ReadFile(p)
	if err != nil {
		b.Skip("corpus not available:", err)
	}
	return string(raw)
}

// Benchmarks make a new Counter per iteration: its cache of merged pieces
// starts cold, as when the daemon counts a transcript for the first time.

// reportCPU adds MB per CPU second, measured from start, to b's results.
func reportCPU(b *testing.B, start time.Duration, bytesPerOp int) {
	if cpu := processCPUTime() - start; cpu > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}

func BenchmarkCountText(b *testing.B) {
	s := corpusText(b)
	newCounter(b, O200kBase) // loads the encoding outside the clock
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "sequential", 2: "parallel2"}[workers], func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			cpu := processCPUTime()
			for b.Loop() {
				newCounter(b, O200kBase, WithWorkers(workers)).CountText(s)
			}
			reportCPU(b, cpu, len(s))
		})
	}
}

func BenchmarkCountMessagesCached(b *testing.B) {
	msgs := sampleMessages(2000)
	c := newCounter(b, O200kBase, WithCache(NewMemoryCache(0)))
	if _, err := c.CountMessages(context.Background(), msgs); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.CountMessages(context.Background(), msgs); err != nil {
			b.Fatal(err)
		}
	}
}

// transcriptLines is generated Claude Code JSONL cut into lines, the way
// the daemon and cmd/compactd-bench count it.
func transcriptLines(size int) ([]string, int) {
	text := sessiongen.ClaudeCode(sessiongen.Options{Seed: 20, TargetBytes: size})
	return strings.Split(string(text), "\n"), len(text)
}

func BenchmarkCountTranscriptLines(b *testing.B) {
	lines, size := transcriptLines(4 << 20)
	newCounter(b, O200kBase)
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "sequential", 2: "parallel2"}[workers], func(b *testing.B) {
			b.SetBytes(int64(size))
			cpu := processCPUTime()
			for b.Loop() {
				c := newCounter(b, O200kBase, WithWorkers(workers))
				if _, err := c.CountTexts(context.Background(), lines); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu, size)
		})
	}
}
