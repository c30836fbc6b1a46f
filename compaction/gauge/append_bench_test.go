package gauge_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// BenchmarkAppendLive measures what an agent's append costs the gauge:
// the Claude codec's Append of about 10 KB, counting the messages the
// calibrated gauge needs, and the gauge. It must not grow with the size
// of the transcript appended to.
func BenchmarkAppendLive(b *testing.B) {
	codec, _ := format.Lookup(transcript.FormatClaudeCode)
	app := codec.(format.Appender)
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			base := sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(size), TargetBytes: size})
			chunk := firstBytes(sessiongen.Continue(transcript.FormatClaudeCode, base, 7, 200), 10<<10)
			prev, err := codec.Parse(base)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				// A fresh cache each time, so every append counts its new text.
				b.StopTimer()
				counter, err := tokens.New("o200k_base", tokens.WithCache(tokens.NewMemoryCache(0)))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				next, err := app.Append(prev, chunk)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := gauge.CountLive(ctx, counter, next, gauge.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// firstBytes returns the complete lines of lines adding up to at least n bytes.
func firstBytes(lines []byte, n int) []byte {
	end := 0
	for end < n {
		i := bytes.IndexByte(lines[end:], '\n')
		if i < 0 {
			break
		}
		end += i + 1
	}
	return lines[:end]
}

// benchSizes are the transcript sizes BenchmarkAppendLive appends to.
var benchSizes = []int{1 << 20, 64 << 20}
