package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// BenchmarkAppend measures one 10 KB append to an indexed transcript:
// read the tail, codec Append, recount, snapshot. It must not grow with
// the transcript's size.
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{1 << 20, 50 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "s.jsonl")
			base := sessiongen.ClaudeCode(sessiongen.Options{Seed: 1, TargetBytes: size})
			os.WriteFile(path, base, 0o644)
			more := sessiongen.Continue(transcript.FormatClaudeCode, base, 2, 30*(b.N+1))
			counter, _ := tokens.New("o200k_base", tokens.WithCache(tokens.NewMemoryCache(0)))
			ix := &indexer{forced: counter, registry: tokens.NewRegistry(), settings: defaultSettings, log: discard{}}
			tr := &tracked{path: path}
			if _, err := tr.update(ix); err != nil {
				b.Fatal(err)
			}
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			defer f.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				n := 0
				for k := 0; k < 30 && n < len(more); k++ {
					for n < len(more) && more[n] != '\n' {
						n++
					}
					n++
				}
				f.Write(more[:n])
				more = more[n:]
				if _, err := tr.update(ix); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
