package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

// split frames src the way a codec's Parse does, accepting a line when it
// is valid JSON or terminated.
func split(src []byte, f Frame, base int64, recs []transcript.Record) (Frame, []transcript.Record, int) {
	lines := f.Lines(len(recs))
	f, n := f.Split(src, base, len(recs), lines, func(l Line) Verdict {
		if !l.Terminated && !json.Valid(l.Raw) {
			return Wait
		}
		recs = append(recs, transcript.Record{Raw: l.Raw, Start: l.Start, End: l.End})
		return Take
	})
	return f, recs, n
}

func TestSplitWriteRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		records  int
		consumed int // -1 = all
		pending  string
	}{
		{"plain", "{}\n[]\n", 2, -1, ""},
		{"lead and blank lines", "\n  \n{}\n\n\n[]\n \n", 2, -1, ""},
		{"crlf", "{}\r\n[]\r\n", 2, -1, ""},
		{"no final newline", "{}\n[]", 2, -1, ""},
		{"partial last line", "{}\n{\"a\":", 1, 3, `{"a":`},
		{"blank unterminated tail", "{}\n   ", 1, 3, "   "},
		{"malformed terminated line is a record", "{}\nnot json\n{}\n", 3, -1, ""},
		{"empty", "", 0, -1, ""},
		// An editor on Windows saved it: the mark is the lead's, the first
		// line a record.
		{"byte order mark", "\xef\xbb\xbf{}\r\n[]\r\n", 2, -1, ""},
		{"byte order mark and blank lines", "\xef\xbb\xbf\n\n{}\n", 1, -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, recs, n := split([]byte(tc.src), Frame{}, 0, nil)
			if len(recs) != tc.records {
				t.Errorf("%d records, want %d", len(recs), tc.records)
			}
			want := tc.consumed
			if want < 0 {
				want = len(tc.src)
			}
			if n != want {
				t.Errorf("consumed %d, want %d", n, want)
			}
			if string(f.Pending) != tc.pending {
				t.Errorf("pending %q, want %q", f.Pending, tc.pending)
			}
			for _, r := range recs {
				if string(r.Raw) != tc.src[r.Start:r.End] {
					t.Errorf("record %q has range [%d,%d) = %q", r.Raw, r.Start, r.End, tc.src[r.Start:r.End])
				}
				if tc.consumed < 0 && !json.Valid(r.Raw) && !strings.Contains(tc.src, "not json") {
					t.Errorf("record %q is not the line's JSON", r.Raw)
				}
			}
			if out := Write(&f, recs); string(out) != tc.src {
				t.Errorf("Write = %q, want %q", out, tc.src)
			}
		})
	}
}

func TestLineNumbers(t *testing.T) {
	src := "\n{}\n\n\nbad\n{}\n"
	var numbers []int
	f := Frame{}
	f.Split([]byte(src), 0, 0, 0, func(l Line) Verdict {
		numbers = append(numbers, l.Number)
		return Take
	})
	if !slices.Equal(numbers, []int{2, 5, 6}) {
		t.Errorf("line numbers %v, want [2 5 6]", numbers)
	}
}

// Feeding a source in pieces, as a tailer does, frames it like one Split.
func TestSplitIncrementally(t *testing.T) {
	src := []byte("\n{}\n\n[1]\n\n\n{\"x\":2}\n \n{}\n")
	for cut := 0; cut <= len(src); cut++ {
		f, recs, n := split(CompleteLines(src[:cut]), Frame{}, 0, nil)
		if f.Lines(len(recs)) != bytes.Count(src[:n], newline) {
			t.Fatalf("cut %d: Lines = %d, want %d", cut, f.Lines(len(recs)), bytes.Count(src[:n], newline))
		}
		g := f
		f, recs, m := split(src[n:], f, int64(n), recs)
		if n+m != len(src) {
			t.Fatalf("cut %d: consumed %d+%d of %d", cut, n, m, len(src))
		}
		if out := Write(&f, recs); !bytes.Equal(out, src) {
			t.Fatalf("cut %d: Write = %q", cut, out)
		}
		// The first frame is untouched by the second Split.
		if out := Write(&g, recs[:len(recs)-countRecs(src[n:])]); !bytes.Equal(out, src[:n]) {
			t.Fatalf("cut %d: earlier frame changed: %q", cut, out)
		}
	}
}

func countRecs(b []byte) int {
	n := 0
	for _, l := range bytes.Split(b, newline) {
		if !IsBlank(l) {
			n++
		}
	}
	return n
}

// Two transcripts extended from the same frame must not see each other's
// separators.
func TestExtendDoesNotAlias(t *testing.T) {
	base := Frame{}.Extend(0, []byte("\n\n"))
	base.Seps = append(make([]Separator, 0, 8), base.Seps...)
	a := base.Extend(1, []byte("\n\n"))
	b := base.Extend(1, []byte("\n\n\n"))
	if string(a.SepAfter(1)) != "\n\n\n" || string(b.SepAfter(1)) != "\n\n\n\n" {
		t.Errorf("separators alias: a=%q b=%q", a.SepAfter(1), b.SepAfter(1))
	}
}

// Blank lines cost linear time and memory, whether in one long run or one
// after every record: a file of a million blank lines once took minutes
// and gigabytes to frame, because every blank line copied the separator
// and the separator list.
func TestSplitBlankLinesIsLinear(t *testing.T) {
	const n = 20000
	cases := map[string][]byte{
		"one run":          append([]byte("{\"a\":1}\n"), bytes.Repeat([]byte("\n"), n)...),
		"after each":       bytes.Repeat([]byte("{\"a\":1}\n\n"), n),
		"leading":          append(bytes.Repeat([]byte(" \n"), n), "{\"a\":1}\n"...),
		"runs of crlf":     bytes.Repeat([]byte("{\"a\":1}\r\n\r\n\r\n"), n),
		"unterminated end": append(bytes.Repeat([]byte("{\"a\":1}\n\n"), n), "  "...),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			f, recs, _ := split(src, Frame{}, 0, nil)
			runtime.ReadMemStats(&after)
			if got := Write(&f, recs); !bytes.Equal(got, src) {
				t.Fatalf("round trip differs (%d bytes in, %d out)", len(src), len(got))
			}
			// Records, separators and their bytes: about a hundred bytes per
			// line, a few hundred with slice growth. The quadratic framing
			// allocated gigabytes here.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(1000*n+len(src)*4) {
				t.Errorf("framing %d bytes allocated %d bytes; want linear in the input", len(src), alloc)
			}
		})
	}
}

// TestSplitParallelEqualsSplit: decoding on every core hands record the
// same lines, values and frame as Split does in line order, blank lines,
// a refused unterminated last line and all.
func TestSplitParallelEqualsSplit(t *testing.T) {
	var src bytes.Buffer
	src.WriteString("\n  \n")
	for i := 0; src.Len() < 3*parallelBytes; i++ {
		fmt.Fprintf(&src, `{"n":%d,"pad":"%s"}`+"\n", i, strings.Repeat("x", i%300))
		if i%97 == 0 {
			src.WriteString("\n\n")
		}
		if i%1001 == 0 {
			src.WriteString("not json\n")
		}
	}
	src.WriteString(`{"partial":`)
	decode := func(k int, l Line) string {
		if !json.Valid(l.Raw) {
			return fmt.Sprintf("%d:bad", k)
		}
		return fmt.Sprintf("%d:%d:%s", k, len(l.Raw), l.Raw[:min(8, len(l.Raw))])
	}
	run := func(parallel bool) (Frame, int, []string) {
		var got []string
		k := 0
		record := func(l Line, v string) Verdict {
			if strings.HasSuffix(v, ":bad") && !l.Terminated {
				return Wait
			}
			got = append(got, fmt.Sprintf("%s@%d-%d#%d", v, l.Start, l.End, l.Number))
			return Take
		}
		if parallel {
			f, n := SplitParallel(Frame{}, src.Bytes(), 100, 0, 0, decode, record)
			return f, n, got
		}
		f, n := Frame{}.Split(src.Bytes(), 100, 0, 0, func(l Line) Verdict {
			v := decode(k, l)
			k++
			return record(l, v)
		})
		return f, n, got
	}
	f1, n1, got1 := run(false)
	f2, n2, got2 := run(true)
	if n1 != n2 || !slices.Equal(got1, got2) || string(f1.Pending) != string(f2.Pending) || len(f1.Seps) != len(f2.Seps) || string(f1.Lead) != string(f2.Lead) {
		t.Fatalf("parallel split differs: consumed %d vs %d, %d vs %d records, pending %q vs %q", n1, n2, len(got1), len(got2), f1.Pending, f2.Pending)
	}
	if string(f2.Pending) != `{"partial":` || len(got2) < 1000 {
		t.Fatalf("pending %q, %d records", f2.Pending, len(got2))
	}
}
