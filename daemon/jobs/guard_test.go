package jobs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/format/gemini"
	"github.com/compactd/compactd/compaction/strategy"
)

// geminiSweep is Gemini CLI 0.61's session retention sweep at the start
// of session current (packages/cli/src/utils/sessionCleanup.ts), as far as
// damaged files go: for every file it takes for a damaged session, every
// session-*-<its 8 characters>.json[l] of another session is deleted.
func geminiSweep(t *testing.T, chats, current string) {
	t.Helper()
	entries, err := os.ReadDir(chats)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(chats, name))
		if err != nil || !strings.HasPrefix(name, "session-") || !gemini.SweepTakes(data) {
			continue
		}
		short := strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
		short = short[len(short)-8:]
		for _, other := range names {
			if !gemini.MaySessionFile(other, short) {
				continue
			}
			var head struct {
				SessionID string `json:"sessionId"`
			}
			b, _ := os.ReadFile(filepath.Join(chats, other))
			line, _, _ := strings.Cut(string(b), "\n")
			json.Unmarshal([]byte(line), &head)
			if head.SessionID != current {
				os.Remove(filepath.Join(chats, other))
			}
		}
	}
}

// twoFiles lays out the chats folder Gemini CLI 0.61.0 left for a session
// resumed a minute after it began: its recording and the stub of the
// resume (testdata/gemini-two-files, written by the real agent), the stub
// last written before the recording, as Gemini CLI writes them.
func twoFiles(t *testing.T, root string) (chats, real, stub string) {
	t.Helper()
	chats = filepath.Join(root, "home", ".gemini", "tmp", "project", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 26, 0, 58, 4, 0, time.UTC)
	for i, name := range []string{"session-2026-11-26T00-58-11111111.jsonl", "session-2026-11-26T00-57-11111111.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", "gemini-two-files", name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(chats, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		mtime := at.Add(time.Duration(i) * 200 * time.Millisecond)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	return chats, filepath.Join(chats, "session-2026-11-26T00-57-11111111.jsonl"), filepath.Join(chats, "session-2026-11-26T00-58-11111111.jsonl")
}

// TestGeminiForkResumeKeepsTheOriginal is issue 23's data loss: Gemini CLI
// 0.61.0 deleted both files of a session once a fork of it was resumed,
// because of the stub its own resume had left beside the session. Every
// write of a Gemini fork (compaction, restore) removes such stubs, so the
// original survives the sweep of the fork's start.
func TestGeminiForkResumeKeepsTheOriginal(t *testing.T) {
	for _, how := range []string{"compact", "restore"} {
		t.Run(how, func(t *testing.T) {
			root := isolate(t)
			r := realRunner(t)
			chats, real, stub := twoFiles(t, root)
			before, _ := os.ReadFile(real)
			var forkPath string
			var notes []string
			if how == "restore" {
				// The store knows the session already (v1, v2).
				if _, err := r.Compact(context.Background(), Request{Path: real, DryRun: false, Options: strategy.Options{Strategies: []string{"turn-window"}, KeepLast: new(1)}}); err != nil {
					t.Fatal(err)
				}
				// A later resume left a stub again.
				b, _ := os.ReadFile(filepath.Join("testdata", "gemini-two-files", filepath.Base(stub)))
				os.WriteFile(stub, b, 0o644)
				old := time.Date(2026, 11, 26, 0, 58, 0, 0, time.UTC)
				os.Chtimes(stub, old, old)
				res, err := r.Restore(context.Background(), real, "v1", false)
				if err != nil {
					t.Fatal(err)
				}
				forkPath, notes = res.Path, res.Notes
			} else {
				res, err := r.Compact(context.Background(), Request{Path: real, Options: strategy.Options{Strategies: []string{"turn-window"}, KeepLast: new(1)}})
				if err != nil {
					t.Fatal(err)
				}
				forkPath, notes = res.ForkPath, res.Notes
			}
			if _, err := os.Stat(stub); !os.IsNotExist(err) {
				t.Fatalf("the stub Gemini CLI left is still there (%v): its sweep deletes the session with it", err)
			}
			if !slices.ContainsFunc(notes, func(n string) bool {
				return strings.Contains(n, filepath.Base(stub)) && strings.Contains(n, "gemini-cli#27368")
			}) {
				t.Errorf("no note names the stub removed: %q", notes)
			}
			// Gemini CLI resumes the fork: its sweep runs for the fork's id.
			var head struct {
				SessionID string `json:"sessionId"`
			}
			b, _ := os.ReadFile(forkPath)
			line, _, _ := strings.Cut(string(b), "\n")
			if err := json.Unmarshal([]byte(line), &head); err != nil || head.SessionID == "" {
				t.Fatalf("fork %s: no session id (%v)", forkPath, err)
			}
			geminiSweep(t, chats, head.SessionID)
			after, err := os.ReadFile(real)
			if err != nil {
				t.Fatalf("the original is gone after the fork's start: %v", err)
			}
			if string(after) != string(before) {
				t.Fatal("the original changed")
			}
			if _, err := os.Stat(forkPath); err != nil {
				t.Fatalf("the fork is gone: %v", err)
			}
		})
	}
}

// TestGeminiGuardLeavesWhatIsNotAStub: a stub Gemini CLI is still
// writing (its header alone: the process runs), and a damaged file of the
// same 8 characters that holds more than a stub, stay where they are; the
// result warns that Gemini CLI may delete the session. A file of the same
// characters that holds a session of its own is neither touched nor named.
func TestGeminiGuardLeavesWhatIsNotAStub(t *testing.T) {
	root := isolate(t)
	r := realRunner(t)
	chats, real, stub := twoFiles(t, root)
	header, _ := json.Marshal(map[string]any{"sessionId": "11111111-2222-4333-8444-555555555555", "projectHash": "p", "kind": "main"})
	os.WriteFile(stub, append(header, '\n'), 0o644)
	damaged := filepath.Join(chats, "session-2026-11-26T01-02-11111111.jsonl")
	shown, _ := json.Marshal(map[string]any{"id": "e1", "type": "error", "content": "quota exceeded"})
	os.WriteFile(damaged, append(append(header, '\n'), append(shown, '\n')...), 0o644)
	other := filepath.Join(chats, "session-2026-11-26T01-03-11111111.jsonl")
	realBytes, _ := os.ReadFile(real)
	os.WriteFile(other, realBytes, 0o644)

	res, err := r.Compact(context.Background(), Request{Path: real, Options: strategy.Options{Strategies: []string{"turn-window"}, KeepLast: new(1)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stub, damaged, other, real} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	warned := slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "warning:") && strings.Contains(n, filepath.Base(stub)) && strings.Contains(n, filepath.Base(damaged)) && !strings.Contains(n, filepath.Base(other))
	})
	if !warned {
		t.Errorf("no warning naming the stub still being written and the damaged file (and only them): %q", res.Notes)
	}
}
