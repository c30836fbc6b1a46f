package gemini_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/gemini"
	"github.com/compactd/compactd/daemon/index"
)

// session is a Gemini CLI recording of project hash.
func session(t *testing.T, path, hash string) {
	t.Helper()
	src, err := os.ReadFile("../../jobs/testdata/gemini-two-files/session-2026-11-26T00-57-11111111.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.ReplaceAll(string(src), "5f1d55a628da01b680e0cf976ce6deb2bf2039a2977c55a9cf131a4be44506b8", hash))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTheDaemonWatchesTheWorkspacesGeminiSessions: the sessions Gemini
// CLI records for the workspace folder (found by the project hash their
// records carry, whatever the project's short name) are tracked, from the
// scan and as they are created; another project's are not.
func TestTheDaemonWatchesTheWorkspacesGeminiSessions(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws, home := t.TempDir(), t.TempDir()
	tmp := filepath.Join(home, ".gemini", "tmp")
	mine := filepath.Join(tmp, "my-project", "chats", "session-2026-11-26T00-57-11111111.jsonl")
	theirs := filepath.Join(tmp, "other", "chats", "session-2026-11-26T00-57-22222222.jsonl")
	session(t, mine, gemini.ProjectHash(ws))
	session(t, theirs, gemini.ProjectHash(filepath.Join(home, "elsewhere")))

	seen := make(chan string, 16)
	d, err := daemon.New(daemon.Options{Folders: []string{ws}, Env: agents.Env{Home: home}, OnChange: func(ev index.Event) {
		if ev.Snapshot != nil {
			seen <- ev.Path
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	<-d.ScanDone()
	if d.Snapshot(mine) == nil || d.Snapshot(theirs) != nil {
		t.Fatalf("after the scan: mine tracked %v, theirs %v", d.Snapshot(mine) != nil, d.Snapshot(theirs) != nil)
	}
	if !d.Allowed(mine) {
		t.Error("commands may not write beside the workspace's Gemini sessions")
	}
	live := filepath.Join(tmp, "my-project", "chats", "session-2026-11-26T01-00-33333333.jsonl")
	session(t, live, gemini.ProjectHash(ws))
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-seen:
			if p == live {
				return
			}
		case <-deadline:
			t.Fatal("a new session of the workspace was not seen")
		}
	}
}
