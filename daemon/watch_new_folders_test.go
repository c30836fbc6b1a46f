package daemon

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/agentstest"
	"github.com/compactd/compactd/daemon/index"
)

// newFolderLayouts are where each agent puts a new session, with the
// folders it creates together with it: every level of the path below the
// agent's home may be new, the home included (a fresh CLAUDE_CONFIG_DIR,
// CODEX_HOME or ~/.gemini).
var newFolderLayouts = []struct {
	agent string
	env   func(home string) agents.Env
	// session is the i-th session's file, of project, and the folders
	// the agent creates beside it.
	session func(env agents.Env, project string, i int) (file string, extra []string)
}{
	{"claude", func(home string) agents.Env {
		return agents.Env{Home: home, Vars: map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(home, "claude-config")}}
	}, func(env agents.Env, project string, i int) (string, []string) {
		// Claude Code creates projects/<slug>/, its memory/ folder and
		// the session at once.
		dir := filepath.Join(env.Var("CLAUDE_CONFIG_DIR"), "projects", agents.Slug(project))
		return filepath.Join(dir, fmt.Sprintf("7b1f3c2e-9d4a-4c1b-8e2f-%012d.jsonl", i)), []string{filepath.Join(dir, "memory")}
	}},
	{"codex", func(home string) agents.Env {
		return agents.Env{Home: home, Vars: map[string]string{"CODEX_HOME": filepath.Join(home, "codex-home")}}
	}, func(env agents.Env, _ string, i int) (string, []string) {
		// sessions/YYYY/MM/DD: a new day, a new month or a new year
		// (midnight on New Year's Eve creates three levels at once).
		y, m, d := 2026+i/4, 1+(i/2)%2, 1+i%2
		dir := filepath.Join(env.Var("CODEX_HOME"), "sessions", fmt.Sprintf("%04d", y), fmt.Sprintf("%02d", m), fmt.Sprintf("%02d", d))
		return filepath.Join(dir, fmt.Sprintf("rollout-%04d-%02d-%02dT00-00-00-0199a1b2-c3d4-7e5f-8a9b-%012d.jsonl", y, m, d, i)), nil
	}},
	{"gemini", func(home string) agents.Env { return agents.Env{Home: home} },
		func(env agents.Env, project string, i int) (string, []string) {
			dir := filepath.Join(env.Home, ".gemini", "tmp", filepath.Base(project), "chats")
			return filepath.Join(dir, fmt.Sprintf("session-2026-11-26T00-00-%08x.jsonl", i)), nil
		}},
	{"qwen", func(home string) agents.Env { return agents.Env{Home: home} },
		func(env agents.Env, project string, i int) (string, []string) {
			dir := filepath.Join(env.Home, ".qwen", "projects", agents.Slug(project), "chats")
			return filepath.Join(dir, fmt.Sprintf("3c9e2b7a-8f41-4d6c-a1e5-%012d.jsonl", i)), nil
		}},
}

// TestSessionsCreatedWithTheirFolders: an agent creates a session's
// folders and the session at once — none of them exists when the daemon
// starts, and each level is created before the daemon can watch its
// parent. Every session is indexed, and what the agent appends next
// reaches the gauge.
func TestSessionsCreatedWithTheirFolders(t *testing.T) {
	// Each round starts a daemon on a home where the agent never ran.
	const rounds, sessions = 3, 8
	for _, l := range newFolderLayouts {
		t.Run(l.agent, func(t *testing.T) {
			for round := range rounds {
				root := t.TempDir()
				home := filepath.Join(root, "home")
				if err := os.Mkdir(home, 0o755); err != nil {
					t.Fatal(err)
				}
				env := l.env(home)
				var projects []string
				for i := range sessions {
					p := filepath.Join(root, fmt.Sprintf("project%02d", i))
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
					projects = append(projects, p)
				}
				d, rec := startDaemon(t, Options{Folders: projects, Env: env})
				for i, project := range projects {
					file, extra := l.session(env, project, i)
					data := agentstest.Fixture(t, l.agent, project)
					for _, dir := range append(extra, filepath.Dir(file)) {
						if err := os.MkdirAll(dir, 0o755); err != nil {
							t.Fatal(err)
						}
					}
					if err := os.WriteFile(file, data, 0o600); err != nil {
						t.Fatal(err)
					}
					if _, ok := rec.within(func(ev index.Event) bool { return ev.Path == file && ev.Snapshot != nil }); !ok {
						t.Fatalf("round %d: session %d (%s) was never indexed; the daemon watches %d folders", round, i, file, d.WatchStats().WatchedFolders)
					}
					// The agent goes on: its next record (the first
					// message again) reaches the gauge.
					first := bytes.IndexByte(data, '\n') + 1
					next := data[first : first+bytes.IndexByte(data[first:], '\n')+1]
					f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := f.Write(next); err != nil {
						t.Fatal(err)
					}
					f.Close()
					size := int64(len(data) + len(next))
					if _, ok := rec.within(func(ev index.Event) bool { return ev.Path == file && ev.Snapshot != nil && ev.Snapshot.Size == size }); !ok {
						t.Fatalf("round %d: session %d (%s): the append never reached the gauge", round, i, file)
					}
				}
				d.Close()
			}
		})
	}
}

// TestSessionsRootRemovedAndCreatedAgain: the agent's folder goes (a user
// clears ~/.claude, a test harness a sandbox) and comes back with a new
// session at once; the daemon sees it as it saw the first.
func TestSessionsRootRemovedAndCreatedAgain(t *testing.T) {
	const times = 6
	for _, l := range newFolderLayouts {
		t.Run(l.agent, func(t *testing.T) {
			root := t.TempDir()
			home := filepath.Join(root, "home")
			project := filepath.Join(root, "project")
			for _, dir := range []string{home, project} {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			env := l.env(home)
			file, extra := l.session(env, project, 0)
			data := agentstest.Fixture(t, l.agent, project)
			// The agent's folder, as the user would remove it.
			agentDir := filepath.Join(home, strings.Split(filepath.ToSlash(mustRel(t, home, file)), "/")[0])
			create := func() {
				for _, dir := range append(extra, filepath.Dir(file)) {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(file, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			create() // there when the daemon starts
			_, rec := startDaemon(t, Options{Folders: []string{project}, Env: env})
			for i := range times {
				if _, ok := rec.within(func(ev index.Event) bool { return ev.Path == file && ev.Snapshot != nil }); !ok {
					t.Fatalf("time %d: the session was not indexed", i)
				}
				if err := os.RemoveAll(agentDir); err != nil {
					t.Fatal(err)
				}
				if _, ok := rec.within(func(ev index.Event) bool { return ev.Path == file && ev.Snapshot == nil }); !ok {
					t.Fatalf("time %d: the session's removal was not seen", i)
				}
				rec.reset()
				create()
			}
		})
	}
}

func mustRel(t *testing.T, base, p string) string {
	t.Helper()
	rel, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}
