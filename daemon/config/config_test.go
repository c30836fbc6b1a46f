package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/agents"
)

// isolate points HOME and XDG_CONFIG_HOME at temp dirs and returns the
// user config path and a workspace dir.
func isolate(t *testing.T) (userFile, workspace string) {
	t.Helper()
	home, xdg := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	userFile = filepath.Join(xdg, "compactd", "config.toml")
	if err := os.MkdirAll(filepath.Dir(userFile), 0o755); err != nil {
		t.Fatal(err)
	}
	return userFile, t.TempDir()
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadLayers(t *testing.T) {
	user, ws := isolate(t)
	write(t, user, `
[gauge]
warn = 0.7
model = "claude-sonnet-4-5"
[compact]
keep_last = 2
[tools."Read"]
response = "keep"
dedup = false
[models."my-local"]
context_window = 32768
encoding = "cl100k_base"
[summarize]
timeout = "90s"
`)
	write(t, filepath.Join(ws, WorkspaceFile), `
[compact]
strategies = ["dedup-tools", "strip-tool-results"]
[tools."Read"]
request = "strip"
[tools."cargo_*"]
response = "remove"
`)
	c, err := Load(filepath.Join(ws, WorkspaceFile))
	if err != nil {
		t.Fatal(err)
	}
	if c.Gauge.Warn != 0.7 || c.Gauge.Critical != 0.9 || c.Gauge.Model != "claude-sonnet-4-5" {
		t.Errorf("gauge = %+v", c.Gauge)
	}
	if c.Compact.KeepLast != 2 || strings.Join(c.Compact.Strategies, ",") != "dedup-tools,strip-tool-results" || c.Compact.BufferTurns != 4 {
		t.Errorf("compact = %+v", c.Compact)
	}
	read := c.Tools["Read"]
	if read.Request != "strip" || read.Response != "keep" || read.Dedup == nil || *read.Dedup {
		t.Errorf("tools.Read merged wrong: %+v", read)
	}
	if c.Tools["cargo_*"].Response != "remove" {
		t.Errorf("glob hint lost")
	}
	if c.Models["my-local"].ContextWindow != 32768 {
		t.Errorf("models = %+v", c.Models)
	}
	if c.Summarize.Timeout.Duration != 90*time.Second {
		t.Errorf("timeout = %v", c.Summarize.Timeout)
	}
	if len(c.Sources) != 2 {
		t.Errorf("sources = %q", c.Sources)
	}

	// The editor's settings come last, camelCase, under "compactd" or bare.
	if err := c.ApplyJSON(json.RawMessage(`{"compactd":{"compact":{"keepLast":0},"tools":{"Read":{"response":"strip"}},"autoCompact":{"enabled":true,"minTurns":6}}}`)); err != nil {
		t.Fatal(err)
	}
	if c.Tools["Read"].Request != "strip" || c.Tools["Read"].Response != "strip" {
		t.Errorf("JSON overlay on Read = %+v", c.Tools["Read"])
	}
	opts := c.CompactOptions(200000, Overrides{})
	if opts.KeepLast == nil || *opts.KeepLast != 0 || opts.Window != 200000 || opts.Hints["Read"].Response != "strip" || opts.SummarizeThreshold != 0.5 {
		t.Errorf("options = %+v", opts)
	}
	tr, on := c.Trigger()
	if !on || tr.MinTurns != 6 || !tr.Fires(180000, 200000, 10) || tr.Fires(180000, 200000, 5) {
		t.Errorf("trigger = %+v enabled %v", tr, on)
	}
}

func TestLoadDefaultsWithoutFiles(t *testing.T) {
	_, ws := isolate(t)
	c, err := Load(filepath.Join(ws, WorkspaceFile))
	if err != nil {
		t.Fatal(err)
	}
	if c.Compact.KeepLast != 1 || c.AutoCompact.Enabled || c.Log.Level != "info" || !c.Watch.Agent("claude") {
		t.Errorf("defaults = %+v", c)
	}
}

func TestHomeFallback(t *testing.T) {
	home, appData := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("APPDATA", appData)
	t.Setenv("XDG_CONFIG_HOME", "")
	// Where each OS keeps a user's settings: ~/.config on Linux and macOS
	// (as CLI tools do there), %APPDATA% on Windows.
	dir := filepath.Join(home, ".config", "compactd")
	if runtime.GOOS == "windows" {
		dir = filepath.Join(appData, "compactd")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "config.toml"), "[log]\nlevel = \"debug\"\n")
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Log.Level != "debug" {
		t.Errorf("log level = %q, the ~/.config file was not read", c.Log.Level)
	}
}

func TestValidationErrors(t *testing.T) {
	cases := []struct{ name, toml, want string }{
		{"unknown key", "[compact]\nkeep_lats = 2\n", "unknown key compact.keep_lats"},
		{"unknown strategy", "[compact]\nstrategies = [\"foo\"]\n", `compact.strategies: unknown strategy "foo" (valid: auto,`},
		{"bad hint", "[tools.Bash]\nresponse = \"drop\"\n", `tools."Bash": response = "drop" is not a valid mode (valid: keep, remove, strip)`},
		{"bad provider", "[summarize]\nprovider = \"gemini\"\n", `summarize.provider = "gemini" is not valid`},
		{"bad ratio", "[auto_compact]\nratio = 1.5\n", "auto_compact.ratio = 1.5 must be above 0 and at most 1"},
		{"warn above critical", "[gauge]\nwarn = 0.95\n", "gauge.warn = 0.95 must be below gauge.critical"},
		{"bad duration", "[summarize]\ntimeout = \"soon\"\n", `"soon" is not a duration`},
		{"negative keep", "[compact]\nkeep_last = -1\n", "compact.keep_last = -1 must be 0 or more"},
		{"notes without file", "[summarize]\nprovider = \"notes\"\n", "summarize.notes_file must be set"},
		{"bad level", "[log]\nlevel = \"loud\"\n", `log.level = "loud" is not valid (valid: debug, info, warn, error)`},
		{"bad encoding", "[models.\"x\"]\nencoding = \"p50k\"\n", `models."x".encoding = "p50k" is not valid`},
		{"price without rates", "[prices.\"my-model\"]\ncached_input = 0.1\n", `prices."my-model": price of my-model: set input and output`},
		{"negative price", "[prices.\"m\"]\ninput = -1\noutput = 2\n", `prices."m": price of m: rates cannot be negative`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, ws := isolate(t)
			path := filepath.Join(ws, WorkspaceFile)
			write(t, path, tc.toml)
			_, err := Load(filepath.Join(ws, WorkspaceFile))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to name %s and contain %q", err, path, tc.want)
			}
		})
	}
	t.Run("unknown JSON key", func(t *testing.T) {
		err := Default().ApplyJSON(json.RawMessage(`{"gauge":{"wran":0.5}}`))
		if err == nil || !strings.Contains(err.Error(), `LSP settings`) || !strings.Contains(err.Error(), `"wran"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestAgentWatchSwitches: every registered agent's [watch] switch is on
// by default and turns off alone, from TOML (its Setting) and from an
// editor's JSON settings (camelCase); unknown switches are refused with the
// valid ones named.
func TestAgentWatchSwitches(t *testing.T) {
	for _, a := range agents.All() {
		c := Default()
		if !c.Watch.Agent(a.Name) {
			t.Fatalf("%s off by default", a.Name)
		}
		if err := c.ApplyTOML("x.toml", []byte("[watch]\n"+a.Setting+" = false\n")); err != nil {
			t.Fatal(err)
		}
		for _, b := range agents.All() {
			if c.Watch.Agent(b.Name) != (b != a) {
				t.Errorf("TOML %s = false: %s is %v", a.Setting, b.Name, c.Watch.Agent(b.Name))
			}
		}
		settings, err := json.Marshal(map[string]any{"watch": map[string]any{a.ClientSetting(): true}})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.ApplyJSON(settings); err != nil {
			t.Fatal(err)
		}
		if !c.Watch.Agent(a.Name) {
			t.Errorf("JSON %s = true left it off", a.ClientSetting())
		}
	}
	c := Default()
	if err := c.ApplyTOML("x.toml", []byte("[watch]\nclaud = false\n")); err == nil || !strings.Contains(err.Error(), "watch.claud") || !strings.Contains(err.Error(), "copilot_cli") {
		t.Errorf("unknown switch: %v", err)
	}
	if err := c.ApplyJSON([]byte(`{"watch":{"copilot_cli":false}}`)); err == nil || !strings.Contains(err.Error(), "copilotCli") {
		t.Errorf("snake case from an editor: %v", err)
	}
}

// Prices from the user file and the workspace file, and from the editor's
// settings, land on top of the bundled table.
func TestPrices(t *testing.T) {
	user, ws := isolate(t)
	write(t, user, `
[prices."my-local"]
input = 0.2
output = 0.6
[prices."claude-sonnet-4-5"]
input = 2.5
output = 12
`)
	write(t, filepath.Join(ws, WorkspaceFile), `
[prices."qwen3-coder-plus"]
input = 1
cached_input = 0.1
output = 5
tiers = [{above = 32000, input = 2, cached_input = 0.2, output = 10}]
`)
	c, err := Load(filepath.Join(ws, WorkspaceFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ApplyJSON(json.RawMessage(`{"prices":{"gpt-5":{"input":1,"cachedInput":0.1,"output":8}}}`)); err != nil {
		t.Fatal(err)
	}
	table := c.PriceTable()
	for model, want := range map[string]float64{"my-local-7b": 0.2, "claude-sonnet-4-5-20250929": 2.5, "gpt-5-codex": 1, "claude-opus-4-5": 5} {
		if p, ok := table.Lookup(model); !ok || p.Input != want {
			t.Errorf("%s: input %v (%v), want %v", model, p.Input, ok, want)
		}
	}
	q, _ := table.Lookup("qwen3-coder-plus")
	if r := q.RatesFor(40_000); r.Input != 2 || r.CachedInput != 0.2 || q.Source != "settings" {
		t.Errorf("qwen tiers from TOML: %+v at 40k → %+v", q, r)
	}
}
