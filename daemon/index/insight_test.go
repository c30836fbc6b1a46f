package index

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/sessiongen"
)

// TestInsightCarriedAcrossAppends: the breakdown, estimate error and cost
// a snapshot carries forward append by append equal those of a fresh
// index of the same bytes, and the breakdown's parts sum to the gauge.
func TestInsightCarriedAcrossAppends(t *testing.T) {
	ix := testIndexer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	src := sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, Turns: 6, Cwd: dir})
	r := rand.New(rand.NewPCG(3, 14))
	cut := min(3000, len(src))
	if err := os.WriteFile(path, src[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &tracked{path: path}
	if _, err := tr.update(ix); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for step := 0; cut < len(src); step++ {
		next := min(cut+1+r.IntN(3000), len(src))
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(src[cut:next])
		f.Close()
		cut = next
		if _, err := tr.update(ix); err != nil {
			t.Fatal(err)
		}
		fresh := &tracked{path: path}
		if _, err := fresh.update(ix); err != nil {
			t.Fatal(err)
		}
		got, want := tr.snap.Load(), fresh.snap.Load()
		if got.Insight.Breakdown == nil {
			t.Fatalf("step %d: no breakdown", step)
		}
		if sum := got.Insight.Breakdown.Sum(); sum != got.Tokens {
			t.Fatalf("step %d: breakdown sums to %d, gauge %d", step, sum, got.Tokens)
		}
		if !reflect.DeepEqual(got.Insight.Breakdown, want.Insight.Breakdown) {
			t.Fatalf("step %d: carried breakdown\n%+v\nfresh\n%+v", step, *got.Insight.Breakdown, *want.Insight.Breakdown)
		}
		if !reflect.DeepEqual(got.Insight.EstimateError, want.Insight.EstimateError) || !sameCost(got.Insight.Cost, want.Insight.Cost) {
			t.Fatalf("step %d: carried error %+v cost %+v, fresh %+v %+v", step, got.Insight.EstimateError, got.Insight.Cost, want.Insight.EstimateError, want.Insight.Cost)
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d appends checked", checked)
	}
	last := tr.snap.Load().Insight
	// The index's figures (trimmed as it goes) equal the breakdown of a
	// whole parse counted at once, as the CLI computes it.
	whole, err := claude.Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := ix.forced.CountMessages(t.Context(), whole.Messages)
	if err != nil {
		t.Fatal(err)
	}
	g := gauge.Compute(whole, counts, gauge.Options{})
	want := gauge.Tally{}.Advance(whole, counts, 0, gauge.TallyOptions{CountText: ix.forced.Text, Images: gauge.Resolve(whole, gauge.Options{}).Info.Provider.ImagePricing()}).Breakdown(g, whole, counts, gauge.BreakdownOptions{})
	if got := last.Breakdown; got.Inside != want.Inside || !reflect.DeepEqual(got.Parts, want.Parts) || !reflect.DeepEqual(got.Tools, want.Tools) {
		t.Fatalf("the index's breakdown\n%+v\na whole parse's\n%+v", *got, want)
	}
	if last.Cost == nil || last.Cost.Responses == 0 || last.Cost.Session <= 0 {
		t.Fatalf("no session cost: %+v", last.Cost)
	}
}

// sameCost compares costs up to float rounding: a carried cost takes back
// what changed messages added, and adds them again.
func sameCost(a, b *pricing.Figures) bool {
	if a == nil || b == nil {
		return a == b
	}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	return a.Responses == b.Responses && near(a.Session, b.Session) && near(a.Detail.Input, b.Detail.Input) &&
		near(a.Detail.CacheWrite, b.Detail.CacheWrite) && near(a.Detail.CacheRead, b.Detail.CacheRead) &&
		near(a.Detail.Output, b.Detail.Output) && a.NextTurn == b.NextTurn && a.Model == b.Model
}
