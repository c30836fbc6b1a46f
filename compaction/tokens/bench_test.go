package tokens

import (
	"context"
	"io/fs"
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

// corpusLines is every file of the shared corpus of real transcripts, cut
// into lines; cmd/compactd-bench/node/throughput.js counts the same file
// (written to corpus.txt when TOKENS_CORPUS_OUT names a path) for the
// comparison with OpenAI's tiktoken on real rather than generated text.
func corpusLines(b *testing.B) ([]string, int) {
	root := filepath.Join(repoRoot(b), "..", "shared", "corpus")
	var all strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		all.Write(raw)
		all.WriteByte('\n')
		return nil
	})
	if err != nil || all.Len() == 0 {
		b.Skip("corpus not available:", err)
	}
	if out := os.Getenv("TOKENS_CORPUS_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(all.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return strings.Split(all.String(), "\n"), all.Len()
}

func BenchmarkCountCorpusLines(b *testing.B) {
	lines, size := corpusLines(b)
	newCounter(b, O200kBase)
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "sequential", 2: "parallel2"}[workers], func(b *testing.B) {
			b.SetBytes(int64(size))
			cpu := processCPUTime()
			var total Count
			for b.Loop() {
				counts, err := newCounter(b, O200kBase, WithWorkers(workers)).CountTexts(context.Background(), lines)
				if err != nil {
					b.Fatal(err)
				}
				total = Sum(counts)
			}
			reportCPU(b, cpu, size)
			b.ReportMetric(float64(total.N), "tokens")
		})
	}
}
