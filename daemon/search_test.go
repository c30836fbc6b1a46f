package daemon

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/search"
	"github.com/compactd/compactd/daemon/store"
)

// claudeTurn renders a Claude Code prompt and answer as the agent writes
// them.
func claudeTurn(t *testing.T, session string, n int, prompt, answer string) []byte {
	t.Helper()
	var out []byte
	for i, l := range []struct{ role, text string }{{"user", prompt}, {"assistant", answer}} {
		uuid := fmt.Sprintf("%s-%d-%d", session, n, i)
		parent := any(nil)
		if i == 1 {
			parent = fmt.Sprintf("%s-%d-0", session, n)
		} else if n > 0 {
			parent = fmt.Sprintf("%s-%d-1", session, n-1)
		}
		rec := map[string]any{"parentUuid": parent, "isSidechain": false, "cwd": "/home/ada/shop", "sessionId": session, "version": "2.1.152",
			"type": l.role, "uuid": uuid, "timestamp": time.Date(2026, 5, 1, 9, n, i, 0, time.UTC).Format(time.RFC3339Nano),
			"message": map[string]any{"role": l.role, "content": []any{map[string]any{"type": "text", "text": l.text}}}}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	return out
}

// searchWaiter hears of the daemon's search indexing.
type searchWaiter chan search.Stats

func (w searchWaiter) next(t *testing.T, what string) search.Stats {
	t.Helper()
	select {
	case st := <-w:
		return st
	case <-time.After(20 * time.Second):
		t.Fatalf("the search index never indexed %s", what)
		return search.Stats{}
	}
}

func found(t *testing.T, d *Daemon, q, path string) bool {
	t.Helper()
	res, err := d.Search(t.Context(), SearchRequest{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Path == path {
			return true
		}
	}
	return false
}

// TestTheDaemonKeepsSearchCurrent: with real file events, the daemon
// indexes a session of another project at start (the machine's sync),
// then what an agent appends to a session of the workspace, and drops a
// deleted one.
func TestTheDaemonKeepsSearchCurrent(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "compactd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	env := agents.Env{Home: home}
	projects := filepath.Join(home, ".claude", "projects")
	elsewhere := filepath.Join(projects, agents.Slug(filepath.Join(home, "other")), "0e0e0e0e-0000-4000-8000-000000000001.jsonl")
	mine := filepath.Join(projects, agents.Slug(ws), "0e0e0e0e-0000-4000-8000-000000000002.jsonl")
	for _, f := range []struct {
		path, prompt string
	}{{elsewhere, "the ferry timetable parser drops the last sailing"}, {mine, "rename the pallet table"}} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, claudeTurn(t, filepath.Base(f.path), 0, f.prompt, "Done."), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indexed := make(searchWaiter, 16)
	d, _ := startDaemon(t, Options{Folders: []string{ws}, Env: env, Jobs: jobs.New(st), SearchDelay: time.Millisecond,
		OnSearch: func(s search.Stats) { indexed <- s }})
	if s := indexed.next(t, "the machine"); s.Indexed < 2 {
		t.Fatalf("the first sync indexed %d sessions: %+v", s.Indexed, s)
	}
	if !found(t, d, `"ferry timetable parser"`, elsewhere) {
		t.Fatal("a session of another project is not found")
	}
	f, err := os.OpenFile(mine, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(claudeTurn(t, filepath.Base(mine), 1, "add a quarantine flag to each pallet", "Added.")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for !found(t, d, `"quarantine flag to each pallet"`, mine) {
		indexed.next(t, "the appended turn")
	}
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	for found(t, d, "pallet", mine) {
		indexed.next(t, "the deletion")
	}
}
