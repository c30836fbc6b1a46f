package gauge_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// deepCopy copies messages down to their parts, so a later change to the
// originals' shared arrays shows up in a comparison.
func deepCopy(msgs []transcript.Message) []transcript.Message {
	if msgs == nil {
		return nil
	}
	out := make([]transcript.Message, len(msgs))
	for i, m := range msgs {
		m.Records = slices.Clone(m.Records)
		m.Parts = slices.Clone(m.Parts)
		if m.Usage != nil {
			u := *m.Usage
			m.Usage = &u
		}
		out[i] = m
	}
	return out
}

// TestAppendCarriesStatsForward feeds Claude Code sessions to the codec's
// Append in random pieces — many of them ending inside a response split
// over several lines, so the next piece merges into a message of the
// previous transcript — and checks at every step that
//   - the previous transcript is unchanged (its readers never see a change),
//   - the Kept leading messages are the previous ones,
//   - the figures carried forward with Stats.Advance equal a full
//     recomputation, and the live gauge from them equals the one that
//     walks every message,
//
// and at the end that the result equals a parse of the whole file.
func TestAppendCarriesStatsForward(t *testing.T) {
	codec, ok := format.Lookup(transcript.FormatClaudeCode)
	if !ok {
		t.Fatal("the Claude Code codec is not registered")
	}
	app := codec.(format.Appender)
	merges := 0
	for seed := range uint64(6) {
		src := sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, Turns: 10})
		r := rand.New(rand.NewPCG(seed, 99))
		prev, err := app.Append(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := transcript.StatsOf(prev.Messages)
		for cut := 0; cut < len(src); {
			// The bytes written so far: a line longer than a piece is
			// consumed once a later piece completes it.
			cut = min(cut+1+r.IntN(3000), len(src))
			before := deepCopy(prev.Messages)
			beforeTurns := slices.Clone(prev.Turns)
			next, err := app.Append(prev, src[prev.Size:cut])
			if err != nil {
				t.Fatalf("seed %d: append up to %d: %v", seed, cut, err)
			}
			if !reflect.DeepEqual(prev.Messages, before) || !slices.Equal(prev.Turns, beforeTurns) {
				t.Fatalf("seed %d: appending up to byte %d changed the previous transcript", seed, cut)
			}
			if next.Kept < 0 || next.Kept > len(prev.Messages) || next.Kept > len(next.Messages) {
				t.Fatalf("seed %d: Kept %d out of range (%d → %d messages)", seed, next.Kept, len(prev.Messages), len(next.Messages))
			}
			for i := range next.Kept {
				if !reflect.DeepEqual(next.Messages[i], prev.Messages[i]) {
					t.Fatalf("seed %d: message %d is among the %d kept but changed", seed, i, next.Kept)
				}
			}
			if next.Kept < len(prev.Messages) {
				merges++
			}
			st = st.Advance(prev.Messages, next.Messages, next.Kept)
			if want := transcript.StatsOf(next.Messages); st != want {
				t.Fatalf("seed %d at byte %d: carried stats %+v, recomputed %+v", seed, next.Size, st, want)
			}
			tail := make([]tokens.Count, len(next.Messages)-gauge.TailStart(next))
			for i := range tail {
				tail[i] = tokens.Count{N: 10 + i}
			}
			if got, want := gauge.Live(next, tail, gauge.Options{Stats: &st}), gauge.Live(next, tail, gauge.Options{}); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d: gauge with carried stats %+v, walking every message %+v", seed, got, want)
			}
			prev = next
		}
		whole, err := codec.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(prev.Messages, whole.Messages) || !slices.Equal(prev.Turns, whole.Turns) {
			t.Fatalf("seed %d: appending in pieces gave %d messages, parsing the whole %d (or they differ)", seed, len(prev.Messages), len(whole.Messages))
		}
	}
	if merges == 0 {
		t.Fatal("no piece merged into a message of the previous transcript: the test no longer covers the split-response case")
	}
	t.Logf("%d appends merged into an earlier message", merges)
}
