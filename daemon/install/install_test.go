package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/compactd/compactd/daemon/agents"
	_ "github.com/compactd/compactd/daemon/agents/all"
)

func testEnv(t *testing.T) (agents.Env, string) {
	t.Helper()
	root := t.TempDir()
	env := agents.Env{Home: filepath.Join(root, "home"), ConfigHome: filepath.Join(root, "xdg"), Vars: map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(root, "claude"), "CODEX_HOME": filepath.Join(root, "codex")}}
	project := filepath.Join(root, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	return env, project
}

var server = Server{Command: "/opt/compactd/bin/compactd", Store: "/var/lib/compactd/compactd.db", Getenv: func(k string) string {
	if k == "CODEX_HOME" {
		return "/home/dev/.codex"
	}
	return ""
}}

func apply(t *testing.T, cs ...Change) {
	t.Helper()
	for _, c := range cs {
		if err := c.Apply(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMCPInstallRoundTripsForEveryAgent: for each agent that reads MCP
// servers, an install shows in the status, a second install changes
// nothing, and an uninstall leaves the file as it was (or gone, when the
// install created it).
func TestMCPInstallRoundTripsForEveryAgent(t *testing.T) {
	for _, name := range []string{"claude", "codex", "gemini", "qwen", "opencode"} {
		for _, scope := range []Scope{ScopeUser, ScopeProject} {
			t.Run(name+"/"+string(scope), func(t *testing.T) {
				env, project := testEnv(t)
				a, err := Agent(name)
				if err != nil {
					t.Fatal(err)
				}
				target := Target{Agent: a, Scope: scope, Folder: project, Env: env}
				c, err := PlanMCP(target, server, false)
				if err != nil {
					t.Fatal(err)
				}
				if c.Before != nil || !c.Changed() || !bytes.Contains(c.After, []byte(server.Command)) {
					t.Fatalf("install into no file: %+v", c)
				}
				apply(t, c)
				st, err := MCPStatus(a, env, project, server)
				if err != nil || len(st) != 1 || st[0].Scope != scope || !st[0].Current {
					t.Fatalf("status after install: %+v %v", st, err)
				}
				if again, _ := PlanMCP(target, server, false); again.Changed() {
					t.Fatal("a second install would change the file")
				}
				rm, err := PlanMCP(target, server, true)
				if err != nil {
					t.Fatal(err)
				}
				apply(t, rm)
				if _, err := os.Stat(c.Path); !os.IsNotExist(err) {
					t.Fatalf("the file the install created is still there after the uninstall: %v", err)
				}
				if scope == ScopeProject {
					entries, _ := os.ReadDir(project)
					if len(entries) != 0 {
						t.Fatalf("the uninstall left %v in the project", entries)
					}
				}
				if st, _ := MCPStatus(a, env, project, server); len(st) != 0 {
					t.Fatalf("status after uninstall: %+v", st)
				}
			})
		}
	}
}

func TestApplyRefusesAFileChangedSincePlanned(t *testing.T) {
	env, project := testEnv(t)
	a, _ := Agent("gemini")
	c, err := PlanMCP(Target{Agent: a, Scope: ScopeUser, Folder: project, Env: env}, server, false)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(c.Path), 0o700)
	os.WriteFile(c.Path, []byte(`{"theme": "x"}`), 0o600)
	if err := c.Apply(); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("applying a stale plan: %v", err)
	}
	if b, _ := os.ReadFile(c.Path); string(b) != `{"theme": "x"}` {
		t.Fatalf("the file was touched: %s", b)
	}
}

func TestHooksInstallRoundTrips(t *testing.T) {
	env, project := testEnv(t)
	a, _ := Agent("claude")
	settings := filepath.Join(env.Var("CLAUDE_CONFIG_DIR"), "settings.json")
	orig := []byte(`{
  "permissions": { "allow": ["Bash(ls:*)"] },
  "hooks": {
    "PreCompact": [
      { "matcher": "auto", "hooks": [{ "type": "command", "command": "/usr/local/bin/notify compacting" }] }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }]
  },
  "env": { "CLAUDE_CODE_PLUGIN_DIRS": "/home/dev/my-plugin" }
}
`)
	os.MkdirAll(filepath.Dir(settings), 0o700)
	if err := os.WriteFile(settings, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := HookOptions{Compaction: true, PluginDir: filepath.Join(t.TempDir(), "claude-plugin")}
	target := Target{Agent: a, Scope: ScopeUser, Folder: project, Env: env}
	cs, err := PlanHooks(target, server, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, cs...)
	b, _ := os.ReadFile(settings)
	for _, want := range []string{"/usr/local/bin/notify compacting", "say done", "hooks precompact --agent claude", "/home/dev/my-plugin" + string(os.PathListSeparator) + opts.PluginDir} {
		enc, _ := json.Marshal(want) // as it stands in the JSON (a Windows path's \ doubled)
		if !bytes.Contains(b, enc[1:len(enc)-1]) {
			t.Fatalf("settings after install lack %q:\n%s", want, b)
		}
	}
	js, err := os.ReadFile(filepath.Join(opts.PluginDir, "hooks", "register.js"))
	if err != nil || !bytes.Contains(js, []byte(`"/opt/compactd/bin/compactd"`)) || !bytes.Contains(js, []byte(`"session.compact"`)) {
		t.Fatalf("plugin module: %v\n%s", err, js)
	}
	st, err := HooksStatus(a, env, project, opts.PluginDir)
	if err != nil || len(st) != 1 || !st[0].Compaction {
		t.Fatalf("status: %+v %v", st, err)
	}
	if again, _ := PlanHooks(target, server, opts, false); again[0].Changed() {
		t.Fatal("a second install would change the settings")
	}
	rm, err := PlanHooks(target, server, opts, true)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, rm...)
	if b, _ := os.ReadFile(settings); !bytes.Equal(b, orig) {
		t.Fatalf("settings after install and uninstall:\n%s\nwant\n%s", b, orig)
	}
	if _, err := os.Stat(opts.PluginDir); !os.IsNotExist(err) {
		t.Fatal("the plugin folder is still there")
	}
	if _, err := PlanHooks(Target{Agent: a, Scope: ScopeProject, Folder: project, Env: env}, server, opts, false); err == nil {
		t.Fatal("--compaction in a project's settings: Claude Code would not load the plugin")
	}
}

func TestOpencodeHooksRoundTrip(t *testing.T) {
	env, project := testEnv(t)
	a, _ := Agent("opencode")
	store := filepath.Join(t.TempDir(), "state", "compactd.db")
	s := server
	s.Store = store
	cfg := filepath.Join(env.ConfigHome, "opencode", "opencode.json")
	orig := []byte("{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // mine\n  \"plugin\": [\"opencode-wakatime\"],\n  \"autoupdate\": false\n}\n")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, orig, 0o600)
	target := Target{Agent: a, Scope: ScopeUser, Folder: project, Env: env}
	cs, err := PlanHooks(target, s, HookOptions{}, false)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, cs...)
	b, _ := os.ReadFile(cfg)
	if !bytes.Contains(b, []byte(`"opencode-wakatime"`)) {
		t.Fatalf("opencode.json after install lost the user's plugin:\n%s", b)
	}
	// opencode turns a file: entry into a path with Node's fileURLToPath:
	// the entry must be a file URL without a host that names the module
	// (file:///home/… on Unix, file:///C:/… on Windows, never file://C:/…).
	entry := regexp.MustCompile(`"file:[^"]*"`).Find(b)
	if entry == nil {
		t.Fatalf("opencode.json after install names no file: plugin:\n%s", b)
	}
	var raw string
	if err := json.Unmarshal(entry, &raw); err != nil {
		t.Fatal(err)
	}
	if got, err := fileURLToPath(raw); err != nil || got != OpencodePlugin(store) {
		t.Fatalf("the plugin entry %s names %q (%v), want %q", raw, got, err, OpencodePlugin(store))
	}
	js, err := os.ReadFile(OpencodePlugin(store))
	if err != nil || !bytes.Contains(js, []byte(`"experimental.session.compacting"`)) || !bytes.Contains(js, []byte(`"precompact","--agent","opencode"`)) {
		t.Fatalf("plugin module: %v\n%s", err, js)
	}
	if st, err := HooksStatus(a, env, project, ""); err != nil || len(st) != 1 {
		t.Fatalf("status: %+v %v", st, err)
	}
	if _, err := PlanHooks(target, s, HookOptions{Compaction: true}, false); err == nil {
		t.Fatal("--compaction for opencode: it cannot stand in for opencode's compaction")
	}
	rm, err := PlanHooks(target, s, HookOptions{}, true)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, rm...)
	if b, _ := os.ReadFile(cfg); !bytes.Equal(b, orig) {
		t.Fatalf("opencode.json after install and uninstall:\n%s\nwant\n%s", b, orig)
	}
	if _, err := os.Stat(filepath.Dir(OpencodePlugin(store))); !os.IsNotExist(err) {
		t.Fatal("the plugin folder is still there")
	}
}

// fileURLToPath is Node's url.fileURLToPath, which opencode applies to a
// file: plugin entry: no host, a percent-decoded path, and on Windows a
// drive letter after the leading slash.
func fileURLToPath(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" || u.Host != "" {
		return "", fmt.Errorf("not a file URL without a host: scheme %q, host %q", u.Scheme, u.Host)
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		if len(p) < 3 || p[0] != '/' || p[2] != ':' {
			return "", fmt.Errorf("a Windows file URL's path starts with /X:, not %q", p)
		}
		p = p[1:]
	}
	return filepath.FromSlash(p), nil
}
