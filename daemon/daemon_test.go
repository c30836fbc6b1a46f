package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/index"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestClaudeSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/Users/a.b/x", "-Users-a-b-x"},
		{"/home/dev/src/inventory-service", "-home-dev-src-inventory-service"},
		{"/tmp/é_1", "-tmp---1"}, // é is one UTF-16 unit, as Claude Code's JavaScript counts
	} {
		if got := agents.Slug(tc.in); got != tc.want {
			t.Errorf("ClaudeSlug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestGaugeText(t *testing.T) {
	for _, tc := range []struct {
		tokens, window int
		want           string
	}{
		{156_000, 200_000, "156k / 200k · 78 %"},
		{950, 200_000, "950 / 200k · 0 %"},
		{1_234, 8_000, "1.2k / 8k · 15 %"},
		{1_050_000, 1_048_576, "1.05M / 1.05M · 100 %"},
	} {
		if got := index.GaugeText(tc.tokens, tc.window); got != tc.want {
			t.Errorf("index.GaugeText(%d, %d) = %q, want %q", tc.tokens, tc.window, got, tc.want)
		}
	}
}

// TestSettingsShapeTheGauge: window overrides (global and per model
// prefix) and thresholds reach the snapshot, and SetSettings re-derives it
// without re-reading the file.
func TestSettingsShapeTheGauge(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "s.jsonl")
	os.WriteFile(path, sessiongen.ClaudeCode(sessiongen.Options{Seed: 1, Turns: 4, Cwd: ws}), 0o644)
	d, rec := newTestDaemon(t, ws)
	first := rec.wait(t, func(ev index.Event) bool { return ev.Path == path && ev.Snapshot != nil })
	if first.Snapshot.Window < 200_000 || first.Snapshot.Level != index.LevelOK {
		t.Fatalf("default gauge: window %d level %s", first.Snapshot.Window, first.Snapshot.Level)
	}
	read := d.Stats().BytesRead
	for _, tc := range []struct {
		set    map[string]any
		window int
		level  index.Level
	}{
		{map[string]any{"models": map[string]any{"claude-sonnet": map[string]any{"contextWindow": 1_000_000}}}, 1_000_000, index.LevelOK},
		{window(first.Snapshot.Tokens * 10 / 8), first.Snapshot.Tokens * 10 / 8, index.LevelWarn},         // 80 %
		{window(first.Snapshot.Tokens * 100 / 95), first.Snapshot.Tokens * 100 / 95, index.LevelCritical}, // 95 %
		{map[string]any{"gauge": map[string]any{"contextWindow": first.Snapshot.Tokens * 10 / 8, "warn": 0.85, "critical": 0.95}}, first.Snapshot.Tokens * 10 / 8, index.LevelOK},
	} {
		setSettings(t, d, tc.set)
		s := d.Snapshot(path)
		if s.Window != tc.window || s.Level != tc.level {
			t.Errorf("%+v: window %d level %s, want %d %s", tc.set, s.Window, s.Level, tc.window, tc.level)
		}
	}
	if d.Stats().BytesRead != read {
		t.Fatal("new settings re-read the transcript")
	}
}

type recorder struct {
	mu     sync.Mutex
	events []index.Event
	ch     chan struct{}
}

func (r *recorder) add(ev index.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	select {
	case r.ch <- struct{}{}:
	default:
	}
}

func (r *recorder) wait(t *testing.T, pred func(index.Event) bool) index.Event {
	t.Helper()
	ev, ok := r.within(pred)
	if !ok {
		t.Fatal("timed out waiting for an event")
	}
	return ev
}

// reset forgets the events recorded so far.
func (r *recorder) reset() {
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
}

// within waits for an event that satisfies pred, at most 10 seconds.
func (r *recorder) within(pred func(index.Event) bool) (index.Event, bool) {
	deadline := time.After(10 * time.Second)
	for i := 0; ; {
		r.mu.Lock()
		for ; i < len(r.events); i++ {
			if pred(r.events[i]) {
				ev := r.events[i]
				r.mu.Unlock()
				return ev, true
			}
		}
		r.mu.Unlock()
		select {
		case <-r.ch:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			return index.Event{}, false
		}
	}
}

func newTestDaemon(t *testing.T, ws string) (*Daemon, *recorder) {
	t.Helper()
	return startDaemon(t, Options{Folders: []string{ws}})
}

// startDaemon starts a daemon (its home a temporary folder unless opts
// names one), records its events, and waits for its cold scan.
func startDaemon(t *testing.T, opts Options) (*Daemon, *recorder) {
	t.Helper()
	rec := &recorder{ch: make(chan struct{}, 1)}
	if opts.Env.Home == "" {
		opts.Env = agents.Env{Home: t.TempDir()}
	}
	if opts.OnChange == nil {
		opts.OnChange = rec.add
	}
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	<-d.ScanDone()
	return d, rec
}

// TestAppendReadsOnlyNewBytes: after the first parse, appends cost the
// appended bytes (plus nothing): the file is never re-read whole.
func TestAppendReadsOnlyNewBytes(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "s.jsonl")
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 1, Turns: 20, Cwd: ws})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d, rec := newTestDaemon(t, ws)
	first := rec.wait(t, func(ev index.Event) bool { return ev.Path == path && ev.Snapshot != nil })
	readBefore := d.Stats().BytesRead
	tokenizedBefore := d.Stats().MessagesTokenized

	more := sessiongen.Continue(transcript.FormatClaudeCode, data, 2, 10)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	// A partial last line first: it must wait, not be counted as malformed.
	cut := len(more) - 10
	f.Write(more[:cut])
	// The daemon reads the file while its last line is cut: the snapshot
	// of the complete lines before it is announced with the file's size.
	rec.wait(t, func(ev index.Event) bool {
		return ev.Path == path && ev.Snapshot != nil && ev.Snapshot.Size == int64(len(data)+cut)
	})
	f.Write(more[cut:])
	f.Close()
	last := rec.wait(t, func(ev index.Event) bool {
		return ev.Path == path && ev.Snapshot != nil && ev.Snapshot.Size == int64(len(data)+len(more))
	})
	if last.Snapshot.Problems != first.Snapshot.Problems {
		t.Fatalf("the partial line was counted as a problem: %d → %d", first.Snapshot.Problems, last.Snapshot.Problems)
	}
	read := d.Stats().BytesRead - readBefore
	if read > int64(len(more))*2 {
		t.Fatalf("append of %d bytes read %d bytes", len(more), read)
	}
	if n := d.Stats().MessagesTokenized - tokenizedBefore; n > int64(last.Snapshot.Messages-first.Snapshot.Messages)+4 {
		t.Fatalf("append re-tokenized %d messages (%d new)", n, last.Snapshot.Messages-first.Snapshot.Messages)
	}
	if last.Snapshot.Messages <= first.Snapshot.Messages || len(last.Snapshot.Turns) <= len(first.Snapshot.Turns) {
		t.Fatalf("append not seen: %d → %d messages", first.Snapshot.Messages, last.Snapshot.Messages)
	}
	if d.Active() != path {
		t.Fatalf("active = %q", d.Active())
	}
}

// TestReplaceAndTruncate: an atomic rename over the file and a truncation
// both trigger a full re-parse; deletion reports the transcript gone.
func TestReplaceAndTruncate(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "s.jsonl")
	big := sessiongen.ClaudeCode(sessiongen.Options{Seed: 1, Turns: 12, Cwd: ws})
	small := sessiongen.ClaudeCode(sessiongen.Options{Seed: 5, Turns: 3, Cwd: ws})
	os.WriteFile(path, big, 0o644)
	_, rec := newTestDaemon(t, ws)
	rec.wait(t, func(ev index.Event) bool {
		return ev.Path == path && ev.Snapshot != nil && ev.Snapshot.Size == int64(len(big))
	})

	tmp := filepath.Join(ws, ".s.jsonl.tmp")
	os.WriteFile(tmp, small, 0o644)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	ev := rec.wait(t, func(ev index.Event) bool {
		return ev.Path == path && ev.Snapshot != nil && ev.Snapshot.Size == int64(len(small))
	})
	if len(ev.Snapshot.Turns) > 4 {
		t.Fatalf("after replace: %d turns, want the small session's", len(ev.Snapshot.Turns))
	}

	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, big[:len(big)/2+0], 0o644)
	os.Remove(path)
	rec.wait(t, func(ev index.Event) bool { return ev.Path == path && ev.Snapshot == nil })
}

func TestIgnoresNonTranscripts(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# hello\n\nnot a transcript\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "data.json"), []byte(`{"a":1}`), 0o644)
	os.MkdirAll(filepath.Join(ws, "node_modules", "x"), 0o755)
	os.WriteFile(filepath.Join(ws, "node_modules", "x", "s.jsonl"), sessiongen.ClaudeCode(sessiongen.Options{Seed: 1, Turns: 2}), 0o644)
	d, _ := newTestDaemon(t, ws)
	if n := len(d.Snapshots()); n != 0 {
		t.Fatalf("%d transcripts tracked, want 0", n)
	}
}

// TestEvictedTranscriptStillServes: past the hot-bytes budget a transcript
// keeps only its snapshot (hover still answers from it) and its next
// change re-parses it correctly.
func TestEvictedTranscriptStillServes(t *testing.T) {
	ws := t.TempDir()
	paths := []string{filepath.Join(ws, "a.jsonl"), filepath.Join(ws, "b.jsonl")}
	var datas [][]byte
	for i, p := range paths {
		data := sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(i + 1), Turns: 6, Cwd: ws})
		datas = append(datas, data)
		os.WriteFile(p, data, 0o644)
		mt := time.Now().Add(time.Duration(i-5) * time.Minute)
		os.Chtimes(p, mt, mt)
	}
	rec := &recorder{ch: make(chan struct{}, 1)}
	d, err := New(Options{Folders: []string{ws}, Env: agents.Env{Home: t.TempDir()}, OnChange: rec.add, HotBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	<-d.ScanDone()
	if got := d.Stats().Files; got != 1 {
		t.Fatalf("%d transcripts parsed in memory, want 1 (the active one)", got)
	}
	old := d.Snapshot(paths[0])
	if old == nil || len(old.Turns) == 0 {
		t.Fatal("the evicted transcript lost its snapshot")
	}
	if _, ok := old.TurnAtLine(old.Lines() - 2); !ok {
		t.Fatal("no turn for the evicted transcript's last line")
	}
	// New settings reach the evicted transcript without a re-read.
	read := d.Stats().BytesRead
	setSettings(t, d, window(old.Tokens))
	if s := d.Snapshot(paths[0]); s.Window != old.Tokens || s.Level != index.LevelCritical {
		t.Fatalf("evicted transcript under new settings: window %d level %s", s.Window, s.Level)
	}
	setSettings(t, d, map[string]any{"gauge": map[string]any{"contextWindow": 0, "model": ""}})
	if s := d.Snapshot(paths[0]); s.Window != old.Window || s.Level != old.Level {
		t.Fatalf("evicted transcript back to defaults: window %d level %s, want %d %s", s.Window, s.Level, old.Window, old.Level)
	}
	if d.Stats().BytesRead != read {
		t.Fatal("settings re-read an evicted transcript")
	}
	old = d.Snapshot(paths[0])
	f, _ := os.OpenFile(paths[0], os.O_APPEND|os.O_WRONLY, 0)
	f.Write(sessiongen.Continue(transcript.FormatClaudeCode, datas[0], 4, 8))
	f.Close()
	ev := rec.wait(t, func(ev index.Event) bool {
		return ev.Path == paths[0] && ev.Snapshot != nil && ev.Snapshot.Seq > old.Seq
	})
	if ev.Snapshot.Messages <= old.Messages || len(ev.Snapshot.Turns) <= len(old.Turns) {
		t.Fatalf("after re-parse: %d messages (was %d)", ev.Snapshot.Messages, old.Messages)
	}
	if d.Active() != paths[0] {
		t.Fatalf("active = %s", d.Active())
	}
}

// TestModelSettingRecounts: a transcript is counted with its model's
// encoding and image pricing, and changing the model setting recounts it,
// the parsed one at once and an evicted one by reading it again.
func TestModelSettingRecounts(t *testing.T) {
	ws := t.TempDir()
	paths := []string{filepath.Join(ws, "a.jsonl"), filepath.Join(ws, "b.jsonl")}
	for i, p := range paths {
		os.WriteFile(p, sessiongen.ClaudeScreenshots(fmt.Sprintf("s%d", i), 6, 1200, 900), 0o644)
		mt := time.Now().Add(time.Duration(i-5) * time.Minute)
		os.Chtimes(p, mt, mt) // b is the active one; a gets evicted
	}
	rec := &recorder{ch: make(chan struct{}, 1)}
	d, err := New(Options{Folders: []string{ws}, Env: agents.Env{Home: t.TempDir()}, OnChange: rec.add, HotBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	<-d.ScanDone()
	if got := d.Stats().Files; got != 1 {
		t.Fatalf("%d transcripts parsed, want 1", got)
	}
	claude := map[string]*index.Snapshot{}
	for _, p := range paths {
		claude[p] = d.Snapshot(p)
		// Six 1200×900 screenshots at Anthropic's width×height/750.
		if s := claude[p]; s.Model != "claude-sonnet-4-5-20250929" || s.Tokens < 6*1440 {
			t.Fatalf("%s: %s, %d tokens: not priced as Anthropic images", filepath.Base(p), s.Model, s.Tokens)
		}
	}
	setSettings(t, d, map[string]any{"gauge": map[string]any{"model": "gpt-4o"}})
	for _, p := range paths {
		ev := rec.wait(t, func(ev index.Event) bool {
			return ev.Path == p && ev.Snapshot != nil && ev.Snapshot.Model == "gpt-4o" && ev.Snapshot.Tokens < claude[p].Tokens
		})
		// OpenAI's tiles price each screenshot at 765: about half.
		if got, was := ev.Snapshot.Tokens, claude[p].Tokens; got > was-6*(1440-765)+100 {
			t.Errorf("%s as gpt-4o: %d tokens (was %d as Claude)", filepath.Base(p), got, was)
		}
	}
	setSettings(t, d, map[string]any{"gauge": map[string]any{"contextWindow": 0, "model": ""}})
	for _, p := range paths {
		rec.wait(t, func(ev index.Event) bool {
			return ev.Path == p && ev.Snapshot != nil && ev.Snapshot.Model == claude[p].Model && ev.Snapshot.Tokens == claude[p].Tokens
		})
	}
}

// window is the editor's setting of every transcript's context window.
func window(n int) map[string]any { return map[string]any{"gauge": map[string]any{"contextWindow": n}} }
