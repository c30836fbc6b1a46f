// Package formattest holds what every codec's tests share: reading
// fixtures and the shared sample corpus, golden files with -update, a
// byte-exact round trip, fork → re-parse → compare with the view (and the
// view edits fork goldens are written for), a renewed copy that changes
// only its session lines, Append-in-random-chunks equals Parse, the body
// of the FuzzParse targets, the live gauge, and the sample files every
// detector is tried on. It is imported by tests only, and imports no codec.
package formattest

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// RoundTrip parses src and checks Write gives it back byte for byte.
func RoundTrip(t testing.TB, c format.Codec, name string, src []byte) *transcript.Transcript {
	t.Helper()
	tr, err := c.Parse(src)
	if err != nil {
		t.Fatalf("%s: parse: %v", name, err)
	}
	out, err := c.Write(tr)
	if err != nil {
		t.Fatalf("%s: write: %v", name, err)
	}
	if !bytes.Equal(out, src) {
		i := 0
		for i < len(out) && i < len(src) && out[i] == src[i] {
			i++
		}
		t.Fatalf("%s: Write(Parse(src)) differs from src at byte %d of %d (got %d bytes)", name, i, len(src), len(out))
	}
	return tr
}

// Semantic is the part of a transcript Append must agree with Parse on.
// Where its reads end may decide how lines that join (see jsonl.Runs)
// group into records, so records are compared by the source lines they
// hold: Records counts lines, message and part references are the
// source offsets of the records they name, Problems the lines whose
// records are malformed.
type Semantic struct {
	Messages []transcript.Message
	Turns    []transcript.Turn
	Problems []int
	Meta     transcript.Meta
	Records  int
	Size     int64
}

func semantic(tr *transcript.Transcript) Semantic {
	s := Semantic{Messages: byOffset(tr, tr.Messages), Turns: tr.Turns, Meta: tr.Meta, Size: tr.Size}
	for _, r := range tr.Records {
		s.Records += 1 + bytes.Count(r.Raw, []byte("\n"))
	}
	for _, p := range tr.Problems {
		n := 1
		if p.Record >= 0 && p.Record < len(tr.Records) {
			n += bytes.Count(tr.Records[p.Record].Raw, []byte("\n"))
		}
		for k := range n {
			s.Problems = append(s.Problems, p.Line+k)
		}
	}
	return s
}

// byOffset copies msgs with each reference to a record of tr replaced by
// the record's offset in the source.
func byOffset(tr *transcript.Transcript, msgs []transcript.Message) []transcript.Message {
	if len(msgs) == 0 {
		return nil
	}
	at := func(r int) int {
		if r < 0 || r >= len(tr.Records) {
			return r
		}
		return int(tr.Records[r].Start)
	}
	out := slices.Clone(msgs)
	for i := range out {
		m := &out[i]
		m.Records = slices.Clone(m.Records)
		for k, r := range m.Records {
			m.Records[k] = at(r)
		}
		if m.Parts != nil {
			m.Parts = slices.Clone(m.Parts)
			for k := range m.Parts {
				m.Parts[k].Ref.Record = at(m.Parts[k].Ref.Record)
			}
		}
	}
	return out
}

// AppendInChunks feeds src (which must end with a newline) to Append in
// random splits, re-feeding unconsumed bytes like a tailer does, and checks
// the result equals Parse and that no Append changed its input.
func AppendInChunks(t *testing.T, c format.Codec, src []byte, seed uint64) {
	t.Helper()
	app, ok := c.(format.Appender)
	if !ok {
		t.Fatalf("%s codec is not an Appender", c.Format())
	}
	want, err := c.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	tr, err := app.Append(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	avail := 0
	for tr.Size < int64(len(src)) {
		avail = min(len(src), avail+1+rng.IntN(len(src)/8+2))
		before := semantic(tr)
		next, err := app.Append(tr, src[tr.Size:avail])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, semantic(tr)) {
			t.Fatalf("Append changed its input transcript")
		}
		if next.Size > int64(avail) {
			t.Fatalf("consumed %d bytes of %d available", next.Size, avail)
		}
		// Kept promises its leading messages are the input's, unchanged
		// (usage included): consumers carry their figures forward on it.
		if next.Kept > len(tr.Messages) || next.Kept > len(next.Messages) {
			t.Fatalf("Kept = %d, beyond the %d messages appended to", next.Kept, len(tr.Messages))
		}
		for i := range next.Kept {
			if !reflect.DeepEqual(tr.Messages[i], next.Messages[i]) {
				t.Fatalf("Kept = %d, but message %d changed:\n was %+v\n now %+v", next.Kept, i, tr.Messages[i], next.Messages[i])
			}
		}
		if nl := bytes.LastIndexByte(src[:avail], '\n'); int64(nl+1) != next.Size && nl+1 > int(tr.Size) {
			t.Fatalf("size %d, want %d (up to the last newline)", next.Size, nl+1)
		}
		tr = next
	}
	got, wantS := semantic(tr), semantic(want)
	if !reflect.DeepEqual(got, wantS) {
		for i := range min(len(got.Messages), len(wantS.Messages)) {
			if !reflect.DeepEqual(got.Messages[i], wantS.Messages[i]) {
				t.Fatalf("message %d differs:\n got %+v\nwant %+v", i, got.Messages[i], wantS.Messages[i])
			}
		}
		t.Fatalf("append result differs from parse: %d vs %d messages, %d vs %d records, problems %v vs %v, turns %v vs %v",
			len(got.Messages), len(wantS.Messages), got.Records, wantS.Records, got.Problems, wantS.Problems, len(got.Turns), len(wantS.Turns))
	}
	out, _ := c.Write(tr)
	if !bytes.Equal(out, src) {
		t.Fatalf("Write after appends is not the source")
	}
}

// SameContent compares messages by what the model sees, ignoring where
// the parts came from.
func SameContent(a, b []transcript.Message) (int, bool) {
	if len(a) != len(b) {
		return min(len(a), len(b)), false
	}
	for i := range a {
		if a[i].Role != b[i].Role || a[i].Origin != b[i].Origin || len(a[i].Parts) != len(b[i].Parts) {
			return i, false
		}
		for k := range a[i].Parts {
			p, q := a[i].Parts[k], b[i].Parts[k]
			p.Ref, q.Ref, p.Changed, q.Changed = transcript.Ref{}, transcript.Ref{}, false, false
			if p != q {
				return i, false
			}
		}
	}
	return 0, true
}

// AppendTrimmed feeds src to Append in random splits like AppendInChunks,
// trimming every transcript as far as the codec allows before the next
// Append (as the daemon does), and checks the contract of format.Trimmer:
// each Append either fails with format.ErrTrimmed (then the source so far
// is parsed again, as the daemon would) or keeps its first Kept messages
// unchanged and gives every later message its parts; at the end, the
// messages equal Parse's apart from the trimmed parts. It returns how
// many appends needed a fresh parse.
func AppendTrimmed(t *testing.T, c format.Codec, src []byte, seed uint64) (reparses int) {
	t.Helper()
	trimmer, ok := c.(format.Trimmer)
	if !ok {
		t.Fatalf("%s codec is not a Trimmer", c.Format())
	}
	want, err := c.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	tr, err := trimmer.Append(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	trimmed := 0
	avail := 0
	for tr.Size < int64(len(src)) {
		avail = min(len(src), avail+1+rng.IntN(len(src)/8+2))
		next, err := trimmer.Append(tr, src[tr.Size:avail])
		if errors.Is(err, format.ErrTrimmed) {
			reparses++
			if next, err = trimmer.Append(nil, src[:avail]); err != nil {
				t.Fatal(err)
			}
			trimmed = 0
		} else if err != nil {
			t.Fatal(err)
		} else {
			kept := next.Kept
			if kept > len(tr.Messages) || kept > len(next.Messages) {
				t.Fatalf("Kept %d of %d messages (was %d)", kept, len(next.Messages), len(tr.Messages))
			}
			for i := 0; i < kept; i++ {
				a, b := tr.Messages[i], next.Messages[i]
				if a.ID != b.ID || !slices.Equal(a.Records, b.Records) || len(a.Parts) != len(b.Parts) || a.Role != b.Role {
					t.Fatalf("message %d is within Kept (%d) but changed", i, kept)
				}
			}
			for i := kept; i < len(next.Messages); i++ {
				if i < trimmed && next.Messages[i].Parts == nil && len(next.Messages[i].Records) > 0 {
					t.Fatalf("message %d (after Kept %d) lost its parts to Trim (trimmed before %d)", i, kept, trimmed)
				}
			}
			if kept < trimmed {
				trimmed = kept // the codec rebuilt what follows
			}
		}
		tr = next
		floor := trimmer.Floor(tr)
		if floor < 0 || floor > len(tr.Messages) {
			t.Fatalf("Floor %d of %d messages", floor, len(tr.Messages))
		}
		// Trim keeps the parts from Floor on: what carries figures from
		// one append to the next resumes there.
		if got := trimmer.Trim(tr, len(tr.Messages)); got > max(floor, trimmed) {
			t.Fatalf("Trim dropped parts up to message %d; Floor says %d may still change", got, floor)
		} else {
			trimmed = max(trimmed, got)
		}
	}
	got, wantS := semantic(tr), semantic(want)
	if len(got.Messages) != len(wantS.Messages) || got.Records != wantS.Records || tr.Size != want.Size || !reflect.DeepEqual(tr.Turns, want.Turns) {
		t.Fatalf("trimmed appends end with %d messages, %d lines of records, %d bytes, %d turns; Parse gives %d, %d, %d, %d",
			len(got.Messages), got.Records, tr.Size, len(tr.Turns), len(wantS.Messages), wantS.Records, want.Size, len(want.Turns))
	}
	for i := range got.Messages {
		g, w := got.Messages[i], wantS.Messages[i]
		if i < trimmed {
			if g.Parts != nil {
				t.Fatalf("message %d is before the trim point %d but kept its parts", i, trimmed)
			}
			g.Parts, w.Parts = nil, nil
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("message %d differs from Parse's (trimmed before %d):\n got %+v\nwant %+v", i, trimmed, g, w)
		}
	}
	return reparses
}

// AppendSuspended is AppendTrimmed across processes: after every append
// the transcript is trimmed, suspended and resumed (format.Suspender)
// into lists that keep only what a later process gets back — the records
// before Suspend's first record and the messages Trim emptied become
// zero placeholders keeping their role and origin, as daemon/index
// restores them — and every Append on a resumed transcript must either
// fail with format.ErrTrimmed (then the source so far is parsed again)
// or go on as it would have. At the end the messages from the last
// resume's placeholders on, the turns, the size and the meta equal
// Parse's. It returns how many appends needed a fresh parse.
func AppendSuspended(t *testing.T, c format.Codec, src []byte, seed uint64) (reparses int) {
	t.Helper()
	sus, ok := c.(format.Suspender)
	if !ok {
		t.Fatalf("%s codec is not a Suspender", c.Format())
	}
	want, err := c.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	tr, err := sus.Append(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	placeholders := 0
	avail := 0
	for tr.Size < int64(len(src)) {
		avail = min(len(src), avail+1+rng.IntN(len(src)/8+2))
		next, err := sus.Append(tr, src[tr.Size:avail])
		if errors.Is(err, format.ErrTrimmed) {
			reparses++
			if next, err = sus.Append(nil, src[:avail]); err != nil {
				t.Fatal(err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
		kept := sus.Trim(next, len(next.Messages))
		state, first, err := sus.Suspend(next)
		if err != nil {
			t.Fatal(err)
		}
		if first < 0 || first > len(next.Records) {
			t.Fatalf("Suspend's first record %d of %d", first, len(next.Records))
		}
		// What another process gets back.
		r := &transcript.Transcript{Format: next.Format, Size: next.Size, Skipped: next.Skipped,
			Turns: slices.Clone(next.Turns), Problems: slices.Clone(next.Problems),
			Records: make([]transcript.Record, len(next.Records)), Messages: make([]transcript.Message, len(next.Messages))}
		copy(r.Records[first:], next.Records[first:])
		for i, m := range next.Messages {
			if i < kept {
				r.Messages[i] = transcript.Message{Role: m.Role, Origin: m.Origin}
			} else {
				r.Messages[i] = m
			}
		}
		if err := sus.Resume(r, state); err != nil {
			t.Fatal(err)
		}
		tr, placeholders = r, kept
	}
	if len(tr.Messages) != len(want.Messages) || tr.Size != want.Size || !reflect.DeepEqual(tr.Turns, want.Turns) || tr.Meta != want.Meta {
		t.Fatalf("suspended appends end with %d messages, %d bytes, %d turns, meta %+v; Parse gives %d, %d, %d, %+v",
			len(tr.Messages), tr.Size, len(tr.Turns), tr.Meta, len(want.Messages), want.Size, len(want.Turns), want.Meta)
	}
	got, wantM := byOffset(tr, tr.Messages), byOffset(want, want.Messages)
	for i := range got {
		g, w := got[i], wantM[i]
		if i < placeholders {
			if g.Role != w.Role || g.Origin != w.Origin {
				t.Fatalf("placeholder %d is a %s %s message, Parse's a %s %s", i, g.Role, g.Origin, w.Role, w.Origin)
			}
			continue
		}
		if g.Parts == nil {
			w.Parts = nil // trimmed after the last resume
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("message %d differs from Parse's (placeholders before %d):\n got %+v\nwant %+v", i, placeholders, g, w)
		}
	}
	return reparses
}
