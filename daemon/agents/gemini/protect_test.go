package gemini_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/gemini"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
)

// stub writes the stub Gemini CLI 0.61.0's --resume left beside the
// fixture's session, for project hash, last written at mtime.
func stub(t *testing.T, path, hash string, mtime time.Time) {
	t.Helper()
	src, err := os.ReadFile("../../jobs/testdata/gemini-two-files/session-2026-11-26T00-58-11111111.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.ReplaceAll(string(src), "5f1d55a628da01b680e0cf976ce6deb2bf2039a2977c55a9cf131a4be44506b8", hash))
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// appendTurn appends a message line to a recording, as Gemini CLI does
// once it has moved from the stub to the session's file.
func appendTurn(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(`{"$set":{"sessionId":"11111111-2222-4333-8444-555555555555"}}` + "\n"); err != nil {
		t.Fatal(err)
	}
}

// TestTheDaemonKeepsGeminiFromDeletingWhatCompactdForked is issue 23's
// data loss once the fork is written: each resume of the original leaves
// a stub with which Gemini CLI's next start of any other session (a
// fork's resume too) deletes the original. The daemon, seeing Gemini CLI
// write the session after the stub, removes the stub — for a session
// compactd forked; one it never touched is left to the agent.
func TestTheDaemonKeepsGeminiFromDeletingWhatCompactdForked(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws, home := t.TempDir(), t.TempDir()
	chats := filepath.Join(home, ".gemini", "tmp", "my-project", "chats")
	forked := filepath.Join(chats, "session-2026-11-26T00-57-11111111.jsonl")
	session(t, forked, gemini.ProjectHash(ws))
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "compactd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runner := jobs.New(st)
	if _, err := runner.Compact(context.Background(), jobs.Request{Path: forked, Options: strategy.Options{Strategies: []string{"turn-window"}, Turns: 1}}); err != nil {
		t.Fatal(err)
	}
	// Another session of the same project that compactd never forked.
	untouched := filepath.Join(chats, "session-2026-11-26T01-10-99999999.jsonl")
	src, _ := os.ReadFile(forked)
	os.WriteFile(untouched, []byte(strings.ReplaceAll(string(src), "11111111-2222-4333-8444-555555555555", "99999999-2222-4333-8444-555555555555")), 0o644)

	d, err := daemon.New(daemon.Options{Folders: []string{ws}, Env: agents.Env{Home: home}, Jobs: runner})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	<-d.ScanDone()

	old := time.Now().Add(-time.Minute)
	untouchedStub := filepath.Join(chats, "session-2026-11-26T01-11-99999999.jsonl")
	stub(t, untouchedStub, gemini.ProjectHash(ws), old)
	src, _ = os.ReadFile(untouchedStub)
	os.WriteFile(untouchedStub, []byte(strings.ReplaceAll(string(src), "11111111-2222-4333-8444-555555555555", "99999999-2222-4333-8444-555555555555")), 0o644)
	os.Chtimes(untouchedStub, old, old)
	appendTurn(t, untouched)
	if _, err := d.Refresh(untouched); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(untouchedStub); err != nil {
		t.Fatalf("the stub of a session compactd never touched was removed: %v", err)
	}

	forkedStub := filepath.Join(chats, "session-2026-11-26T01-12-11111111.jsonl")
	stub(t, forkedStub, gemini.ProjectHash(ws), old)
	appendTurn(t, forked)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(forkedStub); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stub beside the session compactd forked is still there once Gemini CLI wrote the session: its next start of another session deletes the session")
		}
		d.Refresh(forked) // the watcher may not have seen the append yet
	}
	if _, err := os.Stat(forked); err != nil {
		t.Fatal(err)
	}

	// Gemini CLI resumes the session again: the stub gets its header as
	// the process starts and the session's file its turn; removed now, the
	// stub's last line would come back as a file with no header. It stays
	// until that line is written, and goes then.
	running := filepath.Join(chats, "session-2026-11-26T01-13-11111111.jsonl")
	full, _ := os.ReadFile(forkedStubSource(t))
	full = []byte(strings.ReplaceAll(string(full), "5f1d55a628da01b680e0cf976ce6deb2bf2039a2977c55a9cf131a4be44506b8", gemini.ProjectHash(ws)))
	header, last, _ := strings.Cut(string(full), "\n")
	os.WriteFile(running, []byte(header+"\n"), 0o644)
	appendTurn(t, forked)
	if _, err := d.Refresh(forked); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(running); err != nil {
		t.Fatalf("a stub Gemini CLI is still writing was removed: %v", err)
	}
	f, _ := os.OpenFile(running, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(last)
	f.Close()
	deadline = time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(running); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stub is still there once Gemini CLI wrote its last line")
		}
		d.Refresh(running) // the watcher may not have seen the write yet
	}
}

func forkedStubSource(t *testing.T) string {
	return "../../jobs/testdata/gemini-two-files/session-2026-11-26T00-58-11111111.jsonl"
}
