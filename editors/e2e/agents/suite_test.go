// Package agents is compactd's real-agent suite: Claude Code, Codex and
// Gemini CLI, installed from npm at pinned versions (install.sh), work in a
// temp project against a scripted model server of ours on 127.0.0.1
// (modelserver), while `compactd serve`, started by a real LSP client,
// watches; then compactd gauges, compacts and restores their sessions and the
// agents resume every fork, each resumed request checked by the server the
// way the real API would check it.
//
// Run it with `make e2e-agents` (installs the agents, builds compactd), or
// by hand: COMPACTD_AGENTS_E2E=1 COMPACTD_BIN=$PWD/bin/compactd go test
// ./editors/e2e/agents -run RealAgents -v. Without COMPACTD_AGENTS_E2E=1 the
// suite skips; with it under CI=true a missing agent is a failure.
package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// repoRoot is the module root, three levels above this package's folder, where
// go test (and run.sh) runs the test binary. (Not runtime.Caller: make builds
// with -trimpath, which leaves no folder in the file name.)
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", "..", ".."))
}

// e2eHome is where install.sh put the agents: $COMPACTD_E2E_HOME, else
// $E2E_HOME, else <repo>/.cache/e2e (as editors/e2e/setup/lib.sh decides).
func e2eHome(t *testing.T) string {
	for _, k := range []string{"COMPACTD_E2E_HOME", "E2E_HOME"} {
		if v := os.Getenv(k); v != "" {
			abs, err := filepath.Abs(v)
			if err != nil {
				t.Fatalf("%s=%q: %v", k, v, err)
			}
			return abs
		}
	}
	return filepath.Join(repoRoot(t), ".cache", "e2e")
}

// enabled skips the test unless the suite was asked for.
func enabled(t *testing.T) {
	t.Helper()
	if os.Getenv("COMPACTD_AGENTS_E2E") != "1" {
		t.Skip("the real-agent suite runs with COMPACTD_AGENTS_E2E=1 (make e2e-agents installs the agents and runs it)")
	}
}

// missing fails under CI (the suite was asked for and must run there) and
// skips elsewhere.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: the real-agent suite must not skip; run editors/e2e/agents/install.sh)", msg)
	}
	t.Skipf("%s; run editors/e2e/agents/install.sh", msg)
}

// compactdBin is the compactd the suite drives: $COMPACTD_BIN, else
// <repo>/bin/compactd (make build).
func compactdBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("COMPACTD_BIN")
	if bin == "" {
		bin = filepath.Join(repoRoot(t), "bin", "compactd")
	}
	if _, err := os.Stat(bin); err != nil {
		missing(t, "compactd binary %s not found (make build, or set COMPACTD_BIN)", bin)
	}
	abs, _ := filepath.Abs(bin)
	return abs
}

// installedAgent returns the command install.sh put in the cache for agent.
func installedAgent(t *testing.T, agent, command string) (path, version string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "editors", "e2e", "agents", "npm", agent, "package.json"))
	if err != nil {
		t.Fatalf("read the pinned manifest of %s: %v", agent, err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil || len(pkg.Dependencies) != 1 {
		t.Fatalf("npm/%s/package.json must pin exactly one dependency: %v", agent, err)
	}
	for _, v := range pkg.Dependencies {
		version = v
	}
	path = filepath.Join(e2eHome(t), "agents", agent+"-"+version, "node_modules", ".bin", command)
	if _, err := os.Stat(path); err != nil {
		missing(t, "%s %s is not installed at %s", agent, version, path)
	}
	return path, version
}

// A sandbox is one agent's isolated world: its project, its home folders and
// compactd's store, all under one temp dir, and the environment naming them.
type sandbox struct {
	root    string
	project string
	home    string
	env     []string
	// wrap, when set, prefixes every command the sandbox runs (a
	// namespace the agent and compactd share).
	wrap []string
}

// command is name and args as the sandbox runs them: wrapped.
func (sb *sandbox) command(name string, args ...string) (string, []string) {
	if len(sb.wrap) == 0 {
		return name, args
	}
	return sb.wrap[0], append(append(append([]string(nil), sb.wrap[1:]...), name), args...)
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root := t.TempDir()
	if os.Getenv("COMPACTD_AGENTS_KEEP") == "1" {
		// Keep the sandbox (sessions, forks, every request) for a post-mortem.
		var err error
		if root, err = os.MkdirTemp("", "compactd-agents-"); err != nil {
			t.Fatal(err)
		}
		t.Logf("sandbox kept: %s", root)
	}
	sb := &sandbox{root: root, project: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	dirs := map[string]string{
		"HOME": sb.home, "XDG_CONFIG_HOME": root + "/xdg/config", "XDG_DATA_HOME": root + "/xdg/data",
		"XDG_STATE_HOME": root + "/xdg/state", "XDG_CACHE_HOME": root + "/xdg/cache", "XDG_RUNTIME_DIR": root + "/xdg/run",
		"TMPDIR": root + "/tmp", "CLAUDE_CONFIG_DIR": root + "/claude", "CODEX_HOME": root + "/codex",
	}
	var env []string
	for k, v := range dirs {
		if err := os.MkdirAll(v, 0o700); err != nil {
			t.Fatal(err)
		}
		env = append(env, k+"="+v)
	}
	env = append(env, "COMPACTD_STORE="+root+"/store/compactd.db")
	// Only what a process needs from the outer environment passes through.
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "TERM", "NODE_OPTIONS"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "NO_COLOR=1")
	sb.env = env
	copyTree(t, filepath.Join(repoRoot(t), "editors", "e2e", "agents", "testdata", "project"), sb.project)
	return sb
}

// getenv reads a variable of the sandbox's environment.
func (sb *sandbox) getenv(k string) string {
	for _, kv := range sb.env {
		if strings.HasPrefix(kv, k+"=") {
			return kv[len(k)+1:]
		}
	}
	return ""
}

func (sb *sandbox) setenv(kv ...string) { sb.env = append(sb.env, kv...) }

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// run runs a command in the sandbox (cwd: the project) and returns stdout;
// a non-zero exit fails the test with both outputs.
func (sb *sandbox) run(t *testing.T, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	out, errOut, err := sb.try(timeout, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n--- stdout\n%s\n--- stderr\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(out, 3000), tail(errOut, 3000))
	}
	return out
}

func (sb *sandbox) try(timeout time.Duration, name string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	name, args = sb.command(name, args...)
	cmd := exec.CommandContext(ctx, name, args...)
	ownGroup(cmd)
	cmd.Dir = sb.project
	cmd.Env = sb.env
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("did not finish within %s", timeout)
	}
	return stdout.String(), stderr.String(), err
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// gaugeResult is one transcript of `compactd gauge --json`.
type gaugeResult struct {
	Path          string  `json:"path"`
	Format        string  `json:"format"`
	Model         string  `json:"model"`
	ContextWindow int     `json:"contextWindow"`
	Tokens        int     `json:"tokens"`
	Source        string  `json:"source"`
	Turns         int     `json:"turns"`
	Messages      int     `json:"messages"`
	EstimateError float64 `json:"estimateError"`
	// AutoCompact is where compactd says the agent compacts by itself.
	AutoCompact *struct {
		At       int    `json:"at"`
		Disabled bool   `json:"disabled"`
		Source   string `json:"source"`
		Text     string `json:"text"`
	} `json:"autoCompact"`
}

func (sb *sandbox) gauge(t *testing.T, bin, path string) gaugeResult {
	t.Helper()
	var out []gaugeResult
	if err := json.Unmarshal([]byte(sb.run(t, time.Minute, bin, "gauge", "--json", path)), &out); err != nil || len(out) != 1 {
		t.Fatalf("compactd gauge --json %s: %v %v", path, err, out)
	}
	return out[0]
}

// compactResult is `compactd compact --json`.
type compactResult struct {
	Format       string   `json:"format"`
	ForkPath     string   `json:"forkPath"`
	Version      string   `json:"version"`
	Parent       string   `json:"parent"`
	TokensBefore int      `json:"tokensBefore"`
	TokensAfter  int      `json:"tokensAfter"`
	Notes        []string `json:"notes"`
	// Session is the fork's session id (what resumes it).
	Session string `json:"session"`
	// Overhead is what the source's reported usage holds beyond its own
	// messages (system prompt, tools), when the report states it.
	Overhead *int `json:"overhead"`
	Steps    []struct {
		Strategy      string `json:"strategy"`
		EventsRemoved int    `json:"eventsRemoved"`
		TokensSaved   int    `json:"tokensSaved"`
	} `json:"steps"`
}

func (sb *sandbox) compact(t *testing.T, bin string, args ...string) compactResult {
	t.Helper()
	var res compactResult
	out := sb.run(t, 2*time.Minute, bin, append([]string{"compact", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("compactd compact --json %v: %v\n%s", args, err, out)
	}
	return res
}

type restoreResult struct {
	Path     string `json:"path"`
	Version  string `json:"version"`
	Recorded string `json:"recorded"`
}

func (sb *sandbox) restore(t *testing.T, bin, path, version string) restoreResult {
	t.Helper()
	var res restoreResult
	out := sb.run(t, time.Minute, bin, "restore", "--json", path, version)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("compactd restore --json %s %s: %v\n%s", path, version, err, out)
	}
	return res
}

// within reports whether got is within frac of want.
func within(got, want int, frac float64) bool {
	return math.Abs(float64(got-want)) <= frac*float64(want)
}

// quantiles returns the median and the maximum of ds.
func quantiles(ds []time.Duration) (p50, max time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2], s[len(s)-1]
}
