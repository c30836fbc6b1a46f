package search

import (
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/format/formattest"
	_ "github.com/compactd/compactd/daemon/agents/all"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/store"
)

// repo is the repository's root, found from the working directory (go
// test runs in the package's folder): -trimpath, as make builds, leaves
// runtime.Caller's file name without its folder.
func repo(t *testing.T) string {
	t.Helper()
	return formattest.RepoRoot()
}

// corpus is a file of the shared corpus of real transcripts; without the
// corpus the test skips (fails under CI, where it belongs beside the
// clone).
func corpus(t *testing.T, rel string) string {
	t.Helper()
	dir := formattest.CorpusDir()
	if dir == "" {
		formattest.NoCorpus(t, "the shared corpus is not beside "+repo(t))
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the shared corpus lacks %s: %v", rel, err)
	}
	return p
}

// codecData is a file of a codec's testdata.
func codecData(t *testing.T, rel string) string {
	t.Helper()
	return filepath.Join(repo(t), "compaction", "format", filepath.FromSlash(rel))
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, p string, b []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// machine is a home with agents' folders, a workspace and a store, all
// temporary: nothing of the real home is read.
type machine struct {
	home, ws string
	env      agents.Env
	st       *store.Store
	storeAt  string
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	m := &machine{home: t.TempDir(), ws: t.TempDir()}
	m.env = agents.Env{Home: m.home, GOOS: runtime.GOOS}
	m.storeAt = filepath.Join(t.TempDir(), "compactd.db")
	m.st = m.openStore(t)
	return m
}

func (m *machine) openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), m.storeAt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (m *machine) index(t *testing.T, opts ...func(*Options)) *Index {
	t.Helper()
	o := Options{Store: m.st, Env: m.env, Folders: func() []string { return []string{m.ws} }}
	for _, f := range opts {
		f(&o)
	}
	x := New(o)
	t.Cleanup(func() { x.Close() })
	return x
}

// agentDB creates an agent's database (opencode's schema, as the agent
// writes it) under the home and returns the agent's own connection.
func (m *machine) agentDB(t *testing.T, agent string) *sql.DB {
	t.Helper()
	dir := filepath.Join(m.home, ".local", "share", agent)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	w, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, agent+".db"))+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	schema := readFile(t, filepath.Join(repo(t), "daemon", "agentdb", "testdata", "opencode-1.18.33-schema.sql"))
	if _, err := w.Exec(string(schema)); err != nil {
		t.Fatal(err)
	}
	return w
}

// importExport writes an `opencode export` into the agent's tables, row
// by row as the agent keeps them (what agentdb.Export reads back).
func importExport(t *testing.T, w *sql.DB, export []byte) string {
	t.Helper()
	var e struct {
		Info     map[string]any `json:"info"`
		Messages []struct {
			Info  json.RawMessage  `json:"info"`
			Parts []map[string]any `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(export, &e); err != nil {
		t.Fatal(err)
	}
	id := e.Info["id"].(string)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	num := func(m map[string]any) int64 {
		if tm, ok := m["time"].(map[string]any); ok {
			if c, ok := tm["created"].(float64); ok {
				return int64(c)
			}
		}
		return 0
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		id, str(e.Info, "projectID"), str(e.Info, "slug"), str(e.Info, "directory"), str(e.Info, "title"), str(e.Info, "version"), num(e.Info), num(e.Info))
	for _, msg := range e.Messages {
		var info map[string]any
		if json.Unmarshal(msg.Info, &info) != nil || info == nil {
			continue // the fixture's unreadable message: no row holds one
		}
		mid := str(info, "id")
		delete(info, "id")
		delete(info, "sessionID")
		data, _ := json.Marshal(info)
		exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, mid, id, num(info), num(info), string(data))
		for _, p := range msg.Parts {
			pid := str(p, "id")
			for _, k := range []string{"id", "sessionID", "messageID"} {
				delete(p, k)
			}
			data, _ := json.Marshal(p)
			exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, pid, mid, id, num(info), num(info), string(data))
		}
	}
	return id
}

// slug is a project folder as Claude Code and Qwen Code name it.
func slug(dir string) string { return agents.Slug(dir) }

// has reports whether res has a hit on source (a path, or a stored
// version's label) with role and part ("" for any).
func has(res *Results, path, version, role, part string) bool {
	for _, h := range res.Hits {
		if (path == "" || h.Path == path) && (version == "" || h.Version == version) && (role == "" || h.Role == role) && (part == "" || h.Part == part) {
			return true
		}
	}
	return false
}

func describeHits(res *Results) string {
	var b strings.Builder
	for _, h := range res.Hits {
		b.WriteString("\n  " + h.Agent + " " + h.Format + " " + h.Path + " " + h.Version + " " + h.Role + "/" + h.Part + ": " + h.Snippet)
	}
	return b.String()
}
