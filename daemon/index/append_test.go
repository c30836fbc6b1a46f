package index

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestAppendPiecesMatchFullIndex writes a session to a real file in random
// pieces (many ending inside a response split over several lines, whose
// next piece merges into an earlier message) and checks after each update
// that what the entry carries forward — gauge figures, per-message counts,
// the snapshot — equals indexing the file from scratch.
func TestAppendPiecesMatchFullIndex(t *testing.T) {
	for _, hot := range []bool{true, false} {
		t.Run(map[bool]string{true: "hot", false: "trimmed"}[hot], func(t *testing.T) { appendPiecesMatchFullIndex(t, hot) })
	}
}

func appendPiecesMatchFullIndex(t *testing.T, hot bool) {
	ix := testIndexer(t)
	for seed := range uint64(2) {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		src := sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, Turns: 6, Cwd: dir})
		r := rand.New(rand.NewPCG(seed, 7))
		cut := min(4000, len(src))
		if err := os.WriteFile(path, src[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		tr := &tracked{path: path}
		tr.wantHot.Store(hot)
		if _, err := tr.update(ix); err != nil {
			t.Fatal(err)
		}
		for step := 0; cut < len(src); step++ {
			next := min(cut+1+r.IntN(6000), len(src))
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(src[cut:next])
			f.Close()
			cut = next
			if _, err := tr.update(ix); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if tr.hot.Load() != hot {
				t.Fatalf("seed %d step %d: hot = %v", seed, step, tr.hot.Load())
			}
			fresh := &tracked{path: path}
			fresh.wantHot.Store(true)
			if _, err := fresh.update(ix); err != nil {
				t.Fatal(err)
			}
			if want := transcript.StatsOf(fresh.t.Messages); tr.stats != want {
				t.Fatalf("seed %d step %d: carried stats %+v, recomputed %+v", seed, step, tr.stats, want)
			}
			if hot {
				for i := range fresh.parts {
					if fresh.parts[i] != nil && tr.parts[i] != nil && !slices.Equal(fresh.parts[i], tr.parts[i]) {
						t.Fatalf("seed %d step %d: message %d parts counted %v, a fresh index %v", seed, step, i, tr.parts[i], fresh.parts[i])
					}
				}
			} else if tr.trimmed == 0 && len(tr.t.Messages) > keepParts+4 {
				t.Fatalf("seed %d step %d: nothing trimmed of %d messages", seed, step, len(tr.t.Messages))
			}
			if len(fresh.counts) != len(tr.counts) {
				t.Fatalf("seed %d step %d: %d counts, a fresh index has %d", seed, step, len(tr.counts), len(fresh.counts))
			}
			for i := range fresh.counts {
				if fresh.counts[i] != tr.counts[i] {
					t.Fatalf("seed %d step %d: message %d counted %v, a fresh index counts %v", seed, step, i, tr.counts[i], fresh.counts[i])
				}
			}
			got, want := *tr.snap.Load(), *fresh.snap.Load()
			if got.Tokens != want.Tokens || got.Model != want.Model || got.Source != want.Source || got.Window != want.Window || len(got.Turns) != len(want.Turns) {
				t.Fatalf("seed %d step %d: snapshot %d tokens (%s, %s, %d turns), a fresh index %d (%s, %s, %d turns)",
					seed, step, got.Tokens, got.Model, got.Source, len(got.Turns), want.Tokens, want.Model, want.Source, len(want.Turns))
			}
			if !reflect.DeepEqual(got.Insight.Breakdown, want.Insight.Breakdown) {
				t.Fatalf("seed %d step %d: breakdown %+v, a fresh index says %+v", seed, step, got.Insight.Breakdown, want.Insight.Breakdown)
			}
			for i := range want.Turns {
				if got.Turns[i].Tokens != want.Turns[i].Tokens || got.Turns[i].StartLine != want.Turns[i].StartLine {
					t.Fatalf("seed %d step %d: turn %d is %+v, a fresh index says %+v", seed, step, i, got.Turns[i], want.Turns[i])
				}
			}
		}
	}
}

// TestHotBudgetKeepsRecentFiles: after the cold scan (newest first) the
// transcripts left hot are the most recently modified ones, not the ones
// the scan happened to read last; every one is indexed.
func TestHotBudgetKeepsRecentFiles(t *testing.T) {
	ws := t.TempDir()
	var paths []string
	var sizes []int64
	for i := range 4 {
		p := filepath.Join(ws, fmt.Sprintf("s%d.jsonl", i))
		data := sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(i + 1), Turns: 4, Cwd: ws})
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// s0 is the newest, s3 the oldest.
		mt := time.Now().Add(-time.Duration(i+1) * time.Hour)
		os.Chtimes(p, mt, mt)
		paths, sizes = append(paths, p), append(sizes, int64(len(data)))
	}
	x, _ := startIndex(t, ws, Options{HotBytes: sizes[0] + sizes[1]})
	for i, p := range paths {
		tr := x.entry(p, false)
		if tr == nil {
			t.Fatalf("%s is not indexed", p)
		}
		if want := i < 2; tr.hot.Load() != want || !tr.parsed.Load() {
			t.Errorf("s%d (the %d. newest) hot = %v, want %v (parsed %v)", i, i+1, tr.hot.Load(), want, tr.parsed.Load())
		}
	}
}

// TestActiveTrimmedBecomesHot: a transcript read trimmed (over the hot
// budget) that becomes the conversation in use is read whole once, by the
// estimates, and kept hot from then on: commands start from its parse,
// and appends go on from it.
func TestActiveTrimmedBecomesHot(t *testing.T) {
	ws := t.TempDir()
	paths := []string{filepath.Join(ws, "a.jsonl"), filepath.Join(ws, "b.jsonl")}
	var datas [][]byte
	for i, p := range paths {
		data := sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(i + 21), Turns: 12, Cwd: ws})
		datas = append(datas, data)
		os.WriteFile(p, data, 0o644)
		mt := time.Now().Add(time.Duration(i-5) * time.Minute)
		os.Chtimes(p, mt, mt) // b is the newest
	}
	x, rec := startIndex(t, ws, Options{HotBytes: 1, SavingsDelay: time.Millisecond})
	a := x.entry(paths[0], false)
	if a.hot.Load() || x.Parsed(paths[0]) != nil {
		t.Fatal("a was read hot though over the budget and not in use")
	}
	more := sessiongen.Continue(transcript.FormatClaudeCode, datas[0], 4, 8)
	appendTo(t, x, paths[0], more)
	size := int64(len(datas[0]) + len(more))
	rec.wait(t, func(ev Event) bool {
		return ev.Path == paths[0] && ev.Snapshot != nil && ev.Snapshot.Size == size && !ev.Snapshot.SavingsPending
	})
	p := x.Parsed(paths[0])
	if p == nil || !a.hot.Load() {
		t.Fatal("the conversation in use did not become hot after its estimates")
	}
	fresh := &tracked{path: paths[0]}
	fresh.wantHot.Store(true)
	if _, err := fresh.update(x.ix); err != nil {
		t.Fatal(err)
	}
	if len(p.Parts) != len(fresh.parts) || len(p.Transcript.Messages) != len(fresh.t.Messages) {
		t.Fatalf("adopted parse: %d messages, %d part rows; a fresh one %d, %d", len(p.Transcript.Messages), len(p.Parts), len(fresh.t.Messages), len(fresh.parts))
	}
	for i, m := range p.Transcript.Messages {
		if m.Parts == nil && fresh.t.Messages[i].Parts != nil {
			t.Fatalf("message %d of the adopted parse has no parts", i)
		}
	}
	// Appends go on from the adopted parse.
	more2 := sessiongen.Continue(transcript.FormatClaudeCode, append(datas[0], more...), 5, 6)
	appendTo(t, x, paths[0], more2)
	ev := rec.wait(t, func(ev Event) bool {
		return ev.Path == paths[0] && ev.Snapshot != nil && ev.Snapshot.Size == size+int64(len(more2))
	})
	check := &tracked{path: paths[0]}
	check.wantHot.Store(true)
	if _, err := check.update(x.ix); err != nil {
		t.Fatal(err)
	}
	if got, want := ev.Snapshot.Tokens, check.snap.Load().Tokens; got != want || ev.Snapshot.Messages != len(check.t.Messages) {
		t.Fatalf("after an append to the adopted parse: %d tokens, %d messages; a fresh index %d, %d", got, ev.Snapshot.Messages, want, len(check.t.Messages))
	}
}

// TestGrowingSessionsKeepTheirState: two sessions growing in turn (a main
// session and its subagent) beyond ColdBytes. Each append made the other
// the active one, the cold budget dropped the first to its snapshot, and
// its next append read the whole file again (2.4 s an append for 200 MB
// in the bench). A transcript that changed lately keeps its trimmed
// state: its appends read what they add.
func TestGrowingSessionsKeepTheirState(t *testing.T) {
	ws := t.TempDir()
	paths := []string{filepath.Join(ws, "main.jsonl"), filepath.Join(ws, "subagent.jsonl")}
	datas := make([][]byte, 2)
	for i, p := range paths {
		datas[i] = sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(i + 31), Turns: 40 - 30*i, Cwd: ws})
		if err := os.WriteFile(p, datas[i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x, rec := startIndex(t, ws, Options{HotBytes: 1, ColdBytes: 1})
	main := x.entry(paths[0], false)
	read := main.bytesRead.Load()
	for round := range 4 {
		for i, p := range paths {
			more := sessiongen.Continue(transcript.FormatClaudeCode, datas[i], uint64(100+10*round+i), 4)
			appendTo(t, x, p, more)
			datas[i] = append(datas[i], more...)
			size := int64(len(datas[i]))
			rec.wait(t, func(ev Event) bool { return ev.Path == p && ev.Snapshot != nil && ev.Snapshot.Size == size })
		}
	}
	// The estimates may read the session in use whole once; four appends
	// that each read the file again read it four times.
	if got := main.bytesRead.Load() - read; got >= 2*int64(len(datas[0])) {
		t.Errorf("four appends to the main session read %d bytes of its %d: it was read again while the subagent grew", got, len(datas[0]))
	}
}
