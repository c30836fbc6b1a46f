package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/store"
)

// isolate points every home-like variable at temp dirs.
func isolate(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, k := range []string{"HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"} {
		t.Setenv(k, filepath.Join(root, strings.ToLower(k)))
	}
	t.Setenv("COMPACTD_STORE", filepath.Join(root, "state", "compactd.db"))
	return root
}

func newRunner(t *testing.T, storePath string) *Runner {
	t.Helper()
	s, err := store.Open(context.Background(), storePath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := New(s)
	r.Pipeline = dropOldTurns
	return r
}

// conversationBytes renders turns of a user prompt and an assistant reply.
func conversationBytes(session string, turns int, tag string) []byte {
	var b bytes.Buffer
	for i := 0; i < turns; i++ {
		fmt.Fprintf(&b, `{"session":%q,"role":"user","text":"%s prompt %d: please edit main.go"}`+"\n", session, tag, i)
		fmt.Fprintf(&b, `{"session":%q,"role":"assistant","text":"%s reply %d: %s"}`+"\n", session, tag, i, strings.Repeat("done and tested. ", 8))
	}
	return b.Bytes()
}

func writeTranscript(t *testing.T, dir string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, "chat.tjsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompactForkLineageAndReuse(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	orig := conversationBytes("s-1", 10, "a")
	path := writeTranscript(t, root, orig)

	var stages []string
	res, err := r.Compact(ctx, Request{Path: path, Progress: func(s string, pct int) { stages = append(stages, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Fatal("the source was modified by a fork compaction")
	}
	if res.Version != "v2" || res.Parent != "v1" || res.ForkPath != filepath.Join(root, "chat.compactd-v2.tjsonl") {
		t.Errorf("result = %+v", res)
	}
	if res.TokensAfter >= res.TokensBefore || len(res.Steps) != 1 {
		t.Errorf("tokens %d → %d, steps %v", res.TokensBefore, res.TokensAfter, res.Steps)
	}
	fork, err := os.ReadFile(res.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(fork, []byte(`"s-1"`)) || !bytes.Contains(fork, []byte("a prompt 9")) || bytes.Contains(fork, []byte("a prompt 0")) {
		t.Errorf("fork content unexpected:\n%s", fork)
	}
	if stages[len(stages)-1] != "done" {
		t.Errorf("progress stages = %v", stages)
	}

	// Same source again: v1 is reused; the fork of the fork joins the lineage.
	res2, err := r.Compact(ctx, Request{Path: path, Options: strategy.Options{KeepLast: new(2)}})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Parent != "v1" || res2.Version != "v3" {
		t.Errorf("second compaction = %s parent %s; want v3 parent v1", res2.Version, res2.Parent)
	}
	res3, err := r.Compact(ctx, Request{Path: res.ForkPath, Options: strategy.Options{KeepLast: new(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if res3.Parent != "v2" {
		t.Errorf("compacting the fork: parent = %s; want v2 (the fork's own version)", res3.Parent)
	}
	h, err := r.History(ctx, res3.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	var lineage []string
	for _, v := range h.Versions {
		lineage = append(lineage, v.Label+"<"+v.Parent)
	}
	if got := strings.Join(lineage, " "); got != "v1< v2<v1 v3<v1 v4<v2" {
		t.Errorf("lineage = %s", got)
	}
	// An existing --out is never overwritten.
	if _, err := r.Compact(ctx, Request{Path: path, Out: res.ForkPath}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("compact onto an existing file: err = %v", err)
	}
}

func TestRestoreIsByteIdentical(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	// A partial last line and a malformed line must survive the round trip.
	orig := append(conversationBytes("s-2", 6, "b"), []byte("{not json}\n{\"session\":\"s-2\",\"ro")...)
	path := writeTranscript(t, root, orig)

	res, err := r.Compact(ctx, Request{Path: path, InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(path)
	if bytes.Equal(now, orig) || !bytes.HasSuffix(now, []byte(`{"session":"s-2","ro`)) {
		t.Fatalf("in-place result did not replace the file or lost the partial last line:\n%s", now)
	}
	if res.ForkPath != path {
		t.Errorf("in-place ForkPath = %s", res.ForkPath)
	}

	back, err := r.Restore(ctx, path, "v1", true)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Errorf("restored v1 differs from the original")
	}
	if back.Saved == "" {
		t.Error("restore in place did not record the prior content")
	}
	// The prior content (compacted + partial line) was saved: restore it too.
	if _, err := r.Restore(ctx, path, back.Saved, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, now) {
		t.Errorf("restoring the saved pre-restore version differs")
	}

	// Even after the file is deleted, v1 comes back.
	os.Remove(path)
	if _, err := r.Restore(ctx, path, "v1", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Errorf("v1 restored over a deleted file differs")
	}

	// As a fork: a new session beside the original, recorded in history.
	fork, err := r.Restore(ctx, path, "v1", false)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fork.Path)
	if bytes.Contains(got, []byte(`"s-2"`)) || !bytes.Contains(got, []byte("b prompt 0")) || fork.Recorded == "" {
		t.Errorf("restored fork %s (recorded %s):\n%s", fork.Path, fork.Recorded, got)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Errorf("a fork restore touched the source")
	}

	_, err = r.Restore(ctx, path, "v99", false)
	var uv *store.UnknownVersionError
	if !errors.As(err, &uv) || !strings.Contains(err.Error(), "v1, v2") {
		t.Errorf("unknown version: err = %v; want the known versions listed", err)
	}
}

func TestDiffShowsDroppedTurns(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	path := writeTranscript(t, root, conversationBytes("s-3", 4, "c"))
	if _, err := r.Compact(ctx, Request{Path: path, Options: strategy.Options{KeepLast: new(1)}}); err != nil {
		t.Fatal(err)
	}
	d, err := r.Diff(ctx, path, "v1", "v2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--- v1\n+++ v2\n", "- user: c prompt 0", "+ user/compact-summary: 3 earlier turns elided", "  user: c prompt 3"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "- user: c prompt 3") {
		t.Errorf("diff marks the kept turn as removed:\n%s", d)
	}
	if _, err := r.Diff(ctx, path, "v1", "v7"); err == nil {
		t.Error("diff against an unknown version: want an error")
	}
}

func TestDryRunWritesOnlyTheReport(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	orig := conversationBytes("s-4", 6, "d")
	path := writeTranscript(t, root, orig)
	res, err := r.Compact(ctx, Request{Path: path, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || res.ForkPath != "" || res.Version != "" {
		t.Errorf("dry run result = %+v", res)
	}
	md, err := os.ReadFile(res.ReportPath)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(res.ReportPath) != r.Store.ReportsDir() || !strings.Contains(string(md), "| turn-window |") || !strings.Contains(string(md), "- user: d prompt 0") {
		t.Errorf("report %s:\n%s", res.ReportPath, md)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.Contains(e.Name(), "compactd-") {
			t.Errorf("dry run wrote %s", e.Name())
		}
	}
	if _, err := r.History(ctx, path); !errors.Is(err, store.ErrNoConversation) {
		t.Errorf("dry run recorded versions: History err = %v", err)
	}
}

func TestDoctorFindsVanishedFiles(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	path := writeTranscript(t, root, conversationBytes("s-5", 4, "e"))
	res, err := r.Compact(ctx, Request{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Doctor(ctx)
	if err != nil || !d.OK() || len(d.OrphanedForks) != 0 || len(d.VanishedSources) != 0 || d.StoreSize == 0 {
		t.Fatalf("healthy doctor = %+v, %v", d, err)
	}
	os.Remove(res.ForkPath)
	os.Remove(path)
	d, err = r.Doctor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.OrphanedForks) != 1 || d.OrphanedForks[0].Label != "v2" || len(d.VanishedSources) != 1 {
		t.Errorf("doctor = orphans %v, vanished %v", d.OrphanedForks, d.VanishedSources)
	}
}

func TestCompactRefusesUnrecognizedFile(t *testing.T) {
	root := isolate(t)
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	p := filepath.Join(root, "notes.txt")
	os.WriteFile(p, []byte("hello"), 0o644)
	if _, err := r.Compact(context.Background(), Request{Path: p}); err == nil || !strings.Contains(err.Error(), "not a recognized transcript") {
		t.Errorf("err = %v", err)
	}
	if _, err := r.Compact(context.Background(), Request{Path: filepath.Join(root, "missing.tjsonl")}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestInPlaceCarriesAppendsMadeDuringCompaction(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	path := writeTranscript(t, root, conversationBytes("s-6", 6, "f"))
	appended := `{"session":"s-6","role":"user","text":"typed while compacting"}` + "\n"
	r.Pipeline = func(ctx context.Context, tr *transcriptT, c *counterT, o strategy.Options) (*viewT, *strategy.Report, error) {
		f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString(appended)
		f.Close()
		return dropOldTurns(ctx, tr, c, o)
	}
	res, err := r.Compact(ctx, Request{Path: path, InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.HasSuffix(got, []byte(appended)) || res.Carried != int64(len(appended)) {
		t.Errorf("carried %d; file:\n%s", res.Carried, got)
	}
	if bytes.Contains(got, []byte("f prompt 0")) {
		t.Errorf("file was not compacted:\n%s", got)
	}
}

// TestInspectSeesTheJobsCounts: the caller's figures are made from the
// counts the job made (one counting pass), and they are the counts a
// counter of its own gives, estimates marked as such.
func TestInspectSeesTheJobsCounts(t *testing.T) {
	root := isolate(t)
	data, err := os.ReadFile("testdata/claude-31-turns.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "session.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		r := New(newRunner(t, os.Getenv("COMPACTD_STORE")).Store)
		var seen Counted
		var texts int64 = -1
		inspect := func(ctx context.Context, tr *transcript.Transcript, counters *tokens.CounterSet, counted Counted) {
			seen = counted
			texts = counters.Stats().Texts
			own := tokens.NewCounterSet()
			c, err := own.For(gauge.Resolve(tr, gauge.Options{}).Info)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.CountMessages(ctx, tr.Messages)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(counted.For(c), want) {
				t.Errorf("dry=%v: the job's counts differ from a counter's own:\n got %v\nwant %v", dry, counted.Messages, want)
			}
			if got := own.Stats().Texts; texts > got {
				t.Errorf("dry=%v: the job counted %d texts before Inspect, one pass counts %d", dry, texts, got)
			}
		}
		if _, err := r.Compact(t.Context(), Request{Path: path, DryRun: dry, Workspace: root, Inspect: inspect}); err != nil {
			t.Fatal(err)
		}
		if seen.Messages == nil || texts < 0 {
			t.Fatalf("dry=%v: Inspect saw no counts", dry)
		}
	}
}
