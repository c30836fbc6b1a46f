// Package agentstest holds what the tests of several packages share about
// the agents: the per-source cases of their auto-compaction thresholds,
// each with the agent's settings files, its environment and the point the
// agent compacts at, worked out by hand from what the real agent was seen
// to do (the real-agent suite's threshold grid runs each agent until it
// compacts). daemon/agents/<name>, `compactd gauge --json`, `compactd
// statusline`, MCP context_status and the LSP gauge are each held to the
// same table.
//
// Only tests import it.
package agentstest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/gemini"
)

// A Layout is one test's folders: the agents' home and the project the
// session runs in.
type Layout struct {
	Home, Project string
}

// TOML marks a settings file's content as TOML (Codex's config.toml);
// anything else is written as JSON.
type TOML map[string]any

// A Case is one setting source of one agent.
type Case struct {
	// Name is "<agent>/<source>".
	Name  string
	Agent string
	// Env is the agent's environment (beside HOME).
	Env func(l Layout) map[string]string
	// Files are the settings files to write: path → content.
	Files func(l Layout) map[string]any
	// Model, when set, is the model the session runs instead of its
	// fixture's.
	Model string
	// Version, when set, is the agent version the session records
	// instead of the one each agent's cases take (Claude Code's 2.1.330,
	// whose behaviour the threshold grid holds them to).
	Version string
	// Args, when set, is the agent's command line (its process's, as
	// compactd reads it when it can); surfaces that find it only in a
	// running process skip the case.
	Args []string
	// Prepare, when set, runs after the files are written (a folder's
	// permissions).
	Prepare func(t testing.TB, l Layout)
	// Want is where the agent compacts.
	Want Want
}

// Want is the expected threshold.
type Want struct {
	At       int
	Disabled bool
	Source   string
}

// Getenv is the case's environment as a lookup, HOME included.
func (c Case) Getenv(l Layout) func(string) string {
	env := map[string]string{"HOME": l.Home, "USERPROFILE": l.Home} // the home on Unix and on Windows
	if c.Env != nil {
		for k, v := range c.Env(l) {
			env[k] = v
		}
	}
	return func(k string) string { return env[k] }
}

// AgentEnv is where the agents' files live for the case: under the
// layout's home, unless its environment moves them (CODEX_HOME, …).
func (c Case) AgentEnv(l Layout) agents.Env { return agents.EnvFromOS(c.Getenv(l)) }

// Vars is the case's environment as a map, HOME included.
func (c Case) Vars(l Layout) map[string]string {
	env := map[string]string{"HOME": l.Home, "USERPROFILE": l.Home} // the home on Unix and on Windows
	if c.Env != nil {
		for k, v := range c.Env(l) {
			env[k] = v
		}
	}
	return env
}

// Write writes the case's settings files.
func (c Case) Write(t testing.TB, l Layout) {
	t.Helper()
	if c.Prepare != nil {
		defer c.Prepare(t, l)
	}
	if c.Files == nil {
		return
	}
	for path, content := range c.Files(l) {
		var data []byte
		switch v := content.(type) {
		case TOML:
			var b bytes.Buffer
			if err := toml.NewEncoder(&b).Encode(map[string]any(v)); err != nil {
				t.Fatal(err)
			}
			data = b.Bytes()
		default:
			var err error
			if data, err = json.MarshalIndent(v, "", "  "); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// NewLayout makes a layout under t's temporary folder.
func NewLayout(t testing.TB) Layout {
	t.Helper()
	root := t.TempDir()
	l := Layout{Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project")}
	for _, d := range []string{l.Home, l.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// fixtureCwd is the folder each fixture session was recorded in.
var fixtureCwd = map[string]string{
	"claude": "/home/dev/src/inventory-service",
	"codex":  "/home/dev/src/ledger",
	"qwen":   "/home/ada/calc",
}

// WriteSession writes the case's agent's fixture session where the agent
// keeps the sessions of l.Project, its folder replaced by l.Project, and
// returns its path.
func (c Case) WriteSession(t testing.TB, l Layout) string {
	path := WriteSession(t, c.Agent, l, c.AgentEnv(l))
	version := c.Version
	if version == "" {
		version = caseVersion[c.Agent]
	}
	if c.Model == "" && version == "" {
		return path
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "" {
		data = rewrite(t, data, fixtureModel[c.Agent], c.Model, false)
	}
	if version != "" {
		data = rewrite(t, data, fixtureVersion[c.Agent], version, false)
	}
	writeFile(t, path, data)
	return path
}

// fixtureVersion is the agent version a fixture session records, and
// caseVersion the one the cases take by default.
var (
	fixtureVersion = map[string]string{"claude": "2.0.42"}
	caseVersion    = map[string]string{"claude": "2.1.330"}
)

// fixtureModel is the model each fixture session runs.
var fixtureModel = map[string]string{
	"claude": "claude-sonnet-4-5-20250929",
	"codex":  "gpt-5.5",
	"gemini": "gemini-2.5-pro",
	"qwen":   "qwen3-coder-plus",
}

// WriteSession writes an agent's fixture session where the agent keeps the
// sessions of l.Project under env, its folder replaced by l.Project, and
// returns its path.
func WriteSession(t testing.TB, agent string, l Layout, env agents.Env) string {
	t.Helper()
	data := Fixture(t, agent, l.Project)
	var path string
	switch agent {
	case "claude":
		path = filepath.Join(env.Or(env.Var("CLAUDE_CONFIG_DIR"), ".claude"), "projects", agents.Slug(l.Project), "7b1f3c2e-9d4a-4c1b-8e2f-0a6d5c4b3a21.jsonl")
	case "codex":
		path = filepath.Join(env.Or(env.Var("CODEX_HOME"), ".codex"), "sessions", "2026", "11", "26", "rollout-2026-11-26T00-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	case "gemini":
		tmp := filepath.Join(env.Home, ".gemini", "tmp", "project", "chats")
		path = filepath.Join(tmp, "session-2026-11-26T00-00-5b9e2c71.jsonl")
		projects, _ := json.Marshal(map[string]any{"projects": map[string]string{l.Project: "project"}})
		writeFile(t, filepath.Join(env.Home, ".gemini", "projects.json"), projects)
	case "qwen":
		path = filepath.Join(env.Home, ".qwen", "projects", agents.Slug(l.Project), "chats", "3c9e2b7a-8f41-4d6c-a1e5-7b0d9f2c4e18.jsonl")
	default:
		t.Fatalf("no fixture session for %s", agent)
	}
	writeFile(t, path, data)
	return path
}

// Fixture is an agent's fixture session recorded in project: its folder
// replaced by project (for Gemini CLI, the project's hash too).
func Fixture(t testing.TB, agent, project string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(formattest.RepoRoot(), "daemon", "agents", "agentstest", "testdata", agent+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return rewrite(t, src, fixtureCwd[agent], project, agent == "gemini")
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// rewrite replaces, in every JSONL record, each string equal to from by
// to; for Gemini CLI it names the project by the hash of to.
func rewrite(t testing.TB, src []byte, from, to string, geminiHash bool) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimRight(src, "\n"), []byte("\n")) {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			// Kept as it is: a partial line, as agents leave them.
			out.Write(line)
			out.WriteByte('\n')
			continue
		}
		v = replace(v, from, to)
		if m, ok := v.(map[string]any); ok && geminiHash {
			if _, has := m["projectHash"]; has {
				m["projectHash"] = gemini.ProjectHash(to)
			}
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func replace(v any, from, to string) any {
	switch x := v.(type) {
	case string:
		if from != "" && x == from {
			return to
		}
	case map[string]any:
		for k, e := range x {
			x[k] = replace(e, from, to)
		}
	case []any:
		for i, e := range x {
			x[i] = replace(e, from, to)
		}
	}
	return v
}
