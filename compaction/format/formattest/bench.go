package formattest

import (
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/sessiongen"
)

// BenchmarkAppendTail measures Append of about 10 KB of new records
// (sessiongen.Continue) to the parse of a generated session of size bytes
// in c's format; generate is sessiongen's generator for that format.
func BenchmarkAppendTail(b *testing.B, c format.Codec, generate func(sessiongen.Options) []byte, size int) {
	b.Helper()
	app, ok := c.(format.Appender)
	if !ok {
		b.Fatalf("%s codec is not an Appender", c.Format())
	}
	src := generate(sessiongen.Options{Seed: 1, TargetBytes: size})
	tr, err := c.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	var tail []byte
	for n := 10; len(tail) < 10<<10; n += 10 {
		tail = sessiongen.Continue(c.Format(), src, 2, n)
	}
	b.SetBytes(int64(len(tail)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := app.Append(tr, tail); err != nil {
			b.Fatal(err)
		}
	}
}
