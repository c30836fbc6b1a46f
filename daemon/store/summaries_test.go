package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
)

func summary(text string, from, to, level int) summarize.Summary {
	return summarize.Summary{
		Text: text, FromTurn: from, ToTurn: to, Tokens: len(text) / 4, Model: "gpt-test",
		Created: time.Date(2025, 11, 17, 9, 30, from, 0, time.UTC), Redacted: from % 3, Level: level,
	}
}

func TestSummaryArchiveRoundTripAndOrder(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	a := s.Summaries()
	if got, err := a.Load(ctx, "session:never"); err != nil || len(got) != 0 {
		t.Fatalf("Load of an unknown conversation = %v, %v; want none and no error", got, err)
	}
	// Saved out of order: Load returns them ordered by FromTurn.
	want := []summarize.Summary{summary("turns eight to twelve", 8, 12, 0), summary("turns zero to four", 0, 4, 1), summary("turns four to eight", 4, 8, 0)}
	if err := a.Save(ctx, "session:a", want); err != nil {
		t.Fatal(err)
	}
	if err := a.Save(ctx, "session:b", []summarize.Summary{summary("other conversation", 0, 2, 0)}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Load(ctx, "session:a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("Load = %d summaries; want 3", len(got))
	}
	for i, w := range []summarize.Summary{want[1], want[2], want[0]} {
		if !got[i].Created.Equal(w.Created) {
			t.Errorf("summary %d created %v; want %v", i, got[i].Created, w.Created)
		}
		got[i].Created = w.Created
		if got[i] != w {
			t.Errorf("summary %d = %+v; want %+v", i, got[i], w)
		}
	}

	// Reopening the file gives the same set: it is on disk, not in memory.
	path := s.Path()
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	again, err := s2.Summaries().Load(ctx, "session:a")
	if err != nil || len(again) != 3 || again[0].Text != "turns zero to four" {
		t.Fatalf("after reopen: %+v, %v", again, err)
	}

	// Save replaces the whole set.
	if err := s2.Summaries().Save(ctx, "session:a", []summarize.Summary{summary("merged", 0, 12, 2)}); err != nil {
		t.Fatal(err)
	}
	got, _ = s2.Summaries().Load(ctx, "session:a")
	if len(got) != 1 || got[0].Text != "merged" || got[0].Level != 2 {
		t.Errorf("after replacing: %+v", got)
	}
	if other, _ := s2.Summaries().Load(ctx, "session:b"); len(other) != 1 {
		t.Errorf("replacing one conversation's set touched another's: %+v", other)
	}
	// An empty set clears it.
	if err := s2.Summaries().Save(ctx, "session:a", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s2.Summaries().Load(ctx, "session:a"); len(got) != 0 {
		t.Errorf("after saving none: %+v", got)
	}
}

// A set that cannot be saved whole is not saved at all: the old set stays.
func TestSummaryArchiveSaveIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	a := s.Summaries()
	old := []summarize.Summary{summary("kept span", 0, 4, 0)}
	if err := a.Save(ctx, "c", old); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]summarize.Summary{
		{summary("fine", 0, 4, 0), summary("  \n", 4, 8, 0)},
		{summary("fine", 0, 4, 0), summary("backwards", 8, 4, 0)},
	} {
		err := a.Save(ctx, "c", bad)
		if err == nil {
			t.Fatalf("Save(%+v) succeeded", bad)
		}
		if got, _ := a.Load(ctx, "c"); len(got) != 1 || got[0].Text != "kept span" {
			t.Errorf("a failed save changed the archive: %+v", got)
		}
	}
	if err := a.Save(ctx, "c", []summarize.Summary{summary("\t", 0, 1, 0)}); !errors.Is(err, summarize.ErrBlank) {
		t.Errorf("blank summary: err = %v; want ErrBlank", err)
	}

	// A canceled context fails the save and leaves the old set.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.Save(cctx, "c", []summarize.Summary{summary("new", 0, 8, 0)}); err == nil {
		t.Error("Save with a canceled context succeeded")
	}
	if got, _ := a.Load(ctx, "c"); len(got) != 1 || got[0].Text != "kept span" {
		t.Errorf("a canceled save changed the archive: %+v", got)
	}
}

// Concurrent savers of whole sets never leave a mixture behind.
func TestSummaryArchiveConcurrentSaves(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			tag := strings.Repeat(string(rune('a'+w)), 3)
			set := []summarize.Summary{summary(tag+" one", 0, 4, 0), summary(tag+" two", 4, 8, 0)}
			for i := 0; i < 10; i++ {
				if err := s.Summaries().Save(ctx, "c", set); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	got, err := s.Summaries().Load(ctx, "c")
	if err != nil || len(got) != 2 || got[0].Text[:3] != got[1].Text[:3] {
		t.Errorf("after concurrent saves: %+v, %v", got, err)
	}
}

// summarize.Additive over the store archive: a second cycle on another
// handle to the same file summarizes only the new span.
func TestSummaryArchiveBacksAdditive(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var msgs []transcript.Message
	for i := 0; i < 8; i++ {
		msgs = append(msgs,
			transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Parts: []transcript.Part{{Kind: transcript.PartText, Text: "request " + string(rune('A'+i))}}},
			transcript.Message{Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Parts: []transcript.Part{{Kind: transcript.PartText, Text: "done " + string(rune('A'+i))}}})
	}
	turns := transcript.BuildTurns(msgs)
	calls := 0
	counting := countingSummarizer{calls: &calls}
	add := &summarize.Additive{Summarizer: counting, Archive: s.Summaries()}
	if _, err := add.Summarize(ctx, "session:x", msgs, turns, 4); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	add2 := &summarize.Additive{Summarizer: counting, Archive: s2.Summaries()}
	got, err := add2.Summarize(ctx, "session:x", msgs, turns, 8)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || len(got) != 2 || got[0].ToTurn != 4 || got[1].FromTurn != 4 || got[1].ToTurn != 8 {
		t.Fatalf("%d summarizer calls, summaries %+v; want 2 calls and spans 0–4, 4–8", calls, got)
	}
	if !strings.Contains(got[1].Text, "request E") || strings.Contains(got[1].Text, "request D") {
		t.Errorf("second span's summary covers the wrong turns: %q", got[1].Text)
	}
}

type countingSummarizer struct{ calls *int }

func (c countingSummarizer) Name() string { return "counting" }
func (c countingSummarizer) Summarize(_ context.Context, req summarize.Request) (summarize.Summary, error) {
	*c.calls++
	var b strings.Builder
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			b.WriteString(p.Text + "; ")
		}
	}
	return summarize.Summary{Text: b.String(), Model: "counting"}, nil
}

// The v2 fixture (content-addressed, stamped) gains the summaries table and
// keeps everything it held.
func TestMigrateFromV2Fixture(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	fixture, err := os.ReadFile("testdata/v2.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(fixture)); err != nil {
		t.Fatal(err)
	}
	var uv int
	db.QueryRow(`PRAGMA user_version`).Scan(&uv)
	db.Close()
	if uv != 2 {
		t.Fatalf("fixture user_version = %d; want 2", uv)
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.db.QueryRow(`PRAGMA user_version`).Scan(&uv)
	if uv != SchemaVersion || SchemaVersion != 7 {
		t.Fatalf("user_version after migration = %d (SchemaVersion %d); want 7", uv, SchemaVersion)
	}
	c, ok, err := s.FindConversation(ctx, "/home/dev/.claude/projects/-home-dev-app/9d1c0f22-2222-4b3c-8d4e-6f7a8b9c0d1e.jsonl", "")
	if err != nil || !ok || c.Format != "claude-code" {
		t.Fatalf("conversation after migration = %+v, %v, %v", c, ok, err)
	}
	vs, err := s.Versions(ctx, c.ID)
	if err != nil || len(vs) != 2 || vs[1].Kind != KindCompact || vs[1].TokensAfter != 40 {
		t.Fatalf("versions after migration = %+v, %v", vs, err)
	}
	content, err := s.Content(ctx, vs[1].ContentHash)
	if err != nil || !bytes.Equal(content, []byte(`{"type":"user","uuid":"u2","message":{"role":"user","content":"thanks"}}`+"\n")) {
		t.Errorf("v2 content after migration = %q, %v", content, err)
	}
	var cached int
	s.db.QueryRow(`SELECT tokens FROM token_cache`).Scan(&cached)
	if cached != 42 {
		t.Errorf("token cache after migration = %d; want 42", cached)
	}
	// The new table works on the migrated file.
	if err := s.Summaries().Save(ctx, c.Key, []summarize.Summary{summary("first span", 0, 2, 0)}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Summaries().Load(ctx, c.Key); err != nil || len(got) != 1 {
		t.Errorf("summaries on the migrated store: %+v, %v", got, err)
	}
	if probs, err := s.IntegrityCheck(ctx); err != nil || len(probs) > 0 {
		t.Errorf("integrity after migration: %v %v", probs, err)
	}
}

// The v1 fixture goes through both migrations and gets a usable archive.
func TestMigrateFromV1GainsSummaries(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	fixture, _ := os.ReadFile("testdata/v1.sql")
	db, _ := sql.Open("sqlite", path)
	if _, err := db.Exec(string(fixture)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Summaries().Save(ctx, "k", []summarize.Summary{summary("x", 0, 1, 0)}); err != nil {
		t.Fatalf("save on a store migrated from v1: %v", err)
	}
}

func TestDeleteUnwrittenOnlyTheNewestLeaf(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	c, _ := s.EnsureConversation(ctx, Conversation{Key: "path:/d", SourcePath: "/d"})
	b := []byte("a\nb\n")
	v1, _, _ := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindSource, Content: b, Cuts: LineCuts(b)})
	v2, _, _ := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindCompact, ParentID: v1.ID, Content: []byte("b\n")})
	if err := s.DeleteUnwritten(ctx, v1.ID); err == nil {
		t.Error("deleted a version with a derived version")
	}
	if err := s.DeleteUnwritten(ctx, v2.ID); err != nil {
		t.Fatal(err)
	}
	vs, _ := s.Versions(ctx, c.ID)
	if len(vs) != 1 || vs[0].Label != "v1" {
		t.Fatalf("after delete: %+v", vs)
	}
	v2again, _, _ := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindCompact, ParentID: v1.ID, Content: []byte("b\n")})
	if v2again.Label != "v2" {
		t.Errorf("next label after delete = %s; want v2", v2again.Label)
	}
	if _, err := s.Content(ctx, v2again.ContentHash); err != nil {
		t.Errorf("content shared with the deleted version: %v", err)
	}
}
