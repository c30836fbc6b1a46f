package claude

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/agents"
)

// Claude Code 2.1.330's auto-compaction, as the real agent does it (the
// threshold grid of the real-agent suite drives it against a model server
// until it compacts, for every setting below):
//
//	W = the auto-compact window: CLAUDE_CODE_AUTO_COMPACT_WINDOW, else the
//	    autoCompactWindow setting (per model under modelSettings, else top
//	    level), else the model's window as Claude Code knows it (1M for
//	    the models it runs with a 1M window natively); never above that
//	E = W − min(the model's max output, 20,000 — 32,000 up to 2.1.17)
//	T = E − 13,000, or with CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=P (0 < P ≤ 100)
//	    min(⌊E × P/100⌋, E − 13,000)
//
// It compacts before the next request once the context reaches T. The
// percentage applies whether or not a window is set: with the window left
// to the model (200k), P = 40 compacts at 40 % × 180k = 72,000.
//
// With no auto-compact window set, Claude Code takes the model's default
// window from what Anthropic's servers tell it about the model. Without
// them — a gateway in ANTHROPIC_BASE_URL, no network — 2.1.330 compacts
// claude-sonnet-4-5, claude-haiku-4-5, claude-opus-4-5 and older models
// only when a request is refused as too long (seen against the suite's
// model server); with them, at T (real sessions against the API). The
// mark stays at T, with a note behind a gateway.
//
// DISABLE_COMPACT or DISABLE_AUTO_COMPACT (each read as a boolean: 1,
// true, yes, on) or autoCompactEnabled: false turn auto-compaction off.
// Every settings file's "env" object is copied into the environment at
// start, over the launch environment.
const (
	outputReserve = 20_000
	// oldOutputReserve is what Claude Code 2.1.17 and older reserved:
	// real sessions of 2.0.76–2.1.17 compacted at 155k in a 200k window
	// (200k − 32k − 13k), those of 2.1.29 and later at 167k.
	oldOutputReserve = 32_000
	autoBuffer       = 13_000
	minCompactWin    = 100_000
	envPct           = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
	envWindow        = "CLAUDE_CODE_AUTO_COMPACT_WINDOW"
	envDisableAuto   = "DISABLE_AUTO_COMPACT"
	envDisableAll    = "DISABLE_COMPACT"
	settingEnabled   = "autoCompactEnabled"
	settingWindow    = "autoCompactWindow"
	settingPerModel  = "modelSettings"
)

// settingsFiles are Claude Code's settings in increasing precedence
// (userSettings, projectSettings, localSettings, policySettings); the
// --settings flag's file sits between local and policy but is not known
// outside the process.
func settingsFiles(q agents.Query) []agents.SettingsFile {
	user := filepath.Join(ConfigDir(q.Env), "settings.json")
	files := []agents.SettingsFile{q.ReadSettings("user settings", user)}
	if q.Cwd != "" {
		project := filepath.Join(q.Cwd, ".claude", "settings.json")
		// Claude Code skips the project file when it is the user's
		// (started in the home folder).
		if filepath.Clean(project) != filepath.Clean(user) {
			files = append(files, q.ReadSettings("project settings", project))
		}
		files = append(files, q.ReadSettings("local settings", filepath.Join(q.Cwd, ".claude", "settings.local.json")))
	}
	files = append(files, q.ReadSettings("managed settings", ManagedSettings(q.Env)))
	return files
}

// ManagedSettings is the administrators' settings file, which beats every
// other.
func ManagedSettings(env agents.Env) string {
	return env.SystemPath(
		"/etc/claude-code/managed-settings.json",
		"/Library/Application Support/ClaudeCode/managed-settings.json",
		`C:\Program Files\ClaudeCode\managed-settings.json`)
}

// GlobalConfig is Claude Code's own state file (~/.claude.json, or inside
// CLAUDE_CONFIG_DIR when set): legacy settings such as autoCompactEnabled
// and an env object live there too.
func GlobalConfig(env agents.Env) string {
	if dir := env.Var(ConfigDirVar); dir != "" {
		return filepath.Join(dir, ".claude.json")
	}
	return filepath.Join(env.Home, ".claude.json")
}

// envValue is a variable as the agent sees it, with where it was set.
type envValue struct {
	value string
	from  gauge.Setting
}

// environment applies the settings' env objects over the launch
// environment, as Claude Code does at start: ~/.claude.json, then user,
// project, local and managed settings, each overriding the one before.
func environment(q agents.Query, global agents.SettingsFile, files []agents.SettingsFile) map[string]envValue {
	out := map[string]envValue{}
	for _, name := range []string{envPct, envWindow, envDisableAuto, envDisableAll} {
		if v := q.Var(name); v != "" {
			out[name] = envValue{v, gauge.Setting{Name: name, Value: v, Source: "env"}}
		}
	}
	for _, f := range append([]agents.SettingsFile{global}, files...) {
		env, _ := f.Values["env"].(map[string]any)
		for _, name := range []string{envPct, envWindow, envDisableAuto, envDisableAll} {
			v, ok := env[name]
			if !ok {
				continue
			}
			s := agents.ValueText(v)
			out[name] = envValue{s, gauge.Setting{Name: "env." + name, Value: s, Source: f.Source, File: f.Path}}
		}
	}
	return out
}

// truthy is how Claude Code reads a boolean variable.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// threshold is Claude Code's effective auto-compaction point.
func threshold(q agents.Query) gauge.AutoCompact {
	files := settingsFiles(q)
	global := q.ReadSettings("global config", GlobalConfig(q.Env))
	env := environment(q, global, files)
	var notes []string
	for _, f := range append([]agents.SettingsFile{global}, files...) {
		if f.Err != nil {
			notes = append(notes, "Claude Code would refuse "+f.Path+": "+f.Err.Error())
		}
	}
	note := func() string { return strings.Join(notes, "; ") }

	// Switched off?
	if v, ok := env[envDisableAll]; ok && truthy(v.value) {
		return gauge.AutoCompact{Disabled: true, Source: v.from.Source, Settings: []gauge.Setting{v.from}, Note: note()}
	}
	if v, ok := env[envDisableAuto]; ok && truthy(v.value) {
		return gauge.AutoCompact{Disabled: true, Source: v.from.Source, Settings: []gauge.Setting{v.from}, Note: note()}
	}
	if s, ok := lastSetting(files, settingEnabled); ok {
		if b, isBool := s.value.(bool); isBool && !b {
			return gauge.AutoCompact{Disabled: true, Source: s.from.Source, Settings: []gauge.Setting{s.from}, Note: note()}
		}
	} else if v, ok := global.Values[settingEnabled].(bool); ok && !v {
		from := global.Setting(settingEnabled, v)
		return gauge.AutoCompact{Disabled: true, Source: from.Source, Settings: []gauge.Setting{from}, Note: note()}
	}

	facts := factsOf(q.Model)
	modelWindow := q.Window
	if facts.window > 0 && q.WindowSource != "flag" && q.WindowSource != "usage" {
		// Claude Code's own figure, unless Claude Code said which window
		// it runs (its status line payload) or the usage showed a larger
		// one (the 1M option).
		modelWindow = facts.window
	}
	if modelWindow <= 0 {
		modelWindow = 200_000
	}
	var used []gauge.Setting
	w, windowSet := modelWindow, false
	if v, ok := env[envWindow]; ok {
		if n, why := parseWindow(v.value); n > 0 {
			if why != "" {
				notes = append(notes, why)
			}
			w, windowSet = min(n, modelWindow), true
			used = append(used, v.from)
		} else {
			notes = append(notes, fmt.Sprintf("%s=%q is not a size Claude Code uses (%s)", envWindow, v.value, why))
		}
	}
	if !windowSet {
		if s, ok := windowSetting(files, q.Model); ok {
			if n, isNum := agents.Number(s.value); isNum && n >= minCompactWin && n == math.Trunc(n) {
				w, windowSet = min(int(n), modelWindow), true
				used = append(used, s.from)
			} else if str, _ := s.value.(string); str != "auto" {
				notes = append(notes, fmt.Sprintf("%s = %s in %s is not a window Claude Code accepts (at least 100000, or \"auto\")", s.from.Name, s.from.Value, s.from.File))
			}
		}
	}
	if !windowSet && facts.reactive {
		if base := q.Var("ANTHROPIC_BASE_URL"); base != "" && !firstParty(base) {
			notes = append(notes, fmt.Sprintf("behind %s, Claude Code may not learn %s's auto-compact window from Anthropic's servers, and then compacts only when the API refuses a prompt above the window (set CLAUDE_CODE_AUTO_COMPACT_WINDOW to have it compact at this mark)", base, q.Model))
		}
	}
	e := w - min(maxOutput(q.Model), reserveOf(q.AgentVersion))
	t := e - autoBuffer
	effective := fmt.Sprintf("%s = %s window − %s output reserve", gauge.Short(e), gauge.Short(w), gauge.Short(w-e))
	rule := fmt.Sprintf("%s − %s buffer (%s)", gauge.Short(e), gauge.Short(autoBuffer), effective)
	if v, ok := env[envPct]; ok {
		pct, err := strconv.ParseFloat(strings.TrimSpace(v.value), 64)
		switch {
		case err != nil || math.IsNaN(pct) || pct <= 0 || pct > 100:
			notes = append(notes, fmt.Sprintf("%s=%q is ignored: Claude Code takes a percentage above 0 and at most 100", envPct, v.value))
		default:
			byPct := int(math.Floor(float64(e) * pct / 100))
			rule = fmt.Sprintf("min(%s %% × %s, %s − %s buffer) (%s)", agents.ValueText(pct), gauge.Short(e), gauge.Short(e), gauge.Short(autoBuffer), effective)
			t = min(byPct, t)
			used = append(used, v.from)
		}
	}
	ac := gauge.AutoCompact{At: max(t, 0), Source: "default", Settings: used, Rule: rule, Note: note()}
	if w != q.Window {
		ac.Window = w
	}
	if len(used) > 0 {
		ac.Source = used[len(used)-1].Source
	}
	return ac
}

// parseWindow reads CLAUDE_CODE_AUTO_COMPACT_WINDOW as Claude Code does:
// an integer, or with a k (thousands) or m (millions) suffix; below
// 100,000 it is raised to 100,000. why says what was wrong or changed.
func parseWindow(s string) (int, string) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1e3, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mult, s = 1e6, strings.TrimSuffix(s, "m")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, "not a number"
	}
	n := f * mult
	if n < 1 || n != math.Trunc(n) {
		return 0, "not a whole number of tokens"
	}
	if n < minCompactWin {
		return minCompactWin, fmt.Sprintf("%s=%s is below 100,000; Claude Code raises it to 100,000", envWindow, agents.ValueText(n))
	}
	return int(n), ""
}

// setting is a settings value and where it was read.
type setting struct {
	value any
	from  gauge.Setting
}

// lastSetting is the top-level key from the file of highest precedence
// that sets it.
func lastSetting(files []agents.SettingsFile, key string) (setting, bool) {
	for i := len(files) - 1; i >= 0; i-- {
		if v, ok := files[i].Values[key]; ok {
			return setting{v, files[i].Setting(key, v)}, true
		}
	}
	return setting{}, false
}

// windowSetting is autoCompactWindow for model as Claude Code 2.1.330
// merges the files, from the lowest precedence up: a file that sets the
// top-level value replaces both the top-level value and every per-model
// value of the files below it; a file that sets only per-model values
// adds them over the ones below. The model's per-model value, if any
// survives, beats the top-level one. (A user's modelSettings entry is
// thus overridden by a project's top-level autoCompactWindow: seen in the
// real agent.)
func windowSetting(files []agents.SettingsFile, model string) (setting, bool) {
	var top, per *setting
	for _, f := range files {
		var own *setting
		for _, name := range modelKeys(model) {
			byModel, _ := f.Values[settingPerModel].(map[string]any)
			entry, _ := byModel[name].(map[string]any)
			if v, ok := entry[settingWindow]; ok {
				own = &setting{v, f.Setting(settingPerModel+"."+name+"."+settingWindow, v)}
				break
			}
		}
		if v, ok := f.Values[settingWindow]; ok {
			top, per = &setting{v, f.Setting(settingWindow, v)}, own
		} else if own != nil {
			per = own
		}
	}
	switch {
	case per != nil:
		return *per, true
	case top != nil:
		return *top, true
	}
	return setting{}, false
}

// modelKeys are the names modelSettings may list a model under: as the
// session names it, and without its date suffix and "[1m]".
func modelKeys(model string) []string {
	if model == "" {
		return nil
	}
	keys := []string{model}
	base := strings.TrimSuffix(model, "[1m]")
	if i := strings.LastIndexByte(base, '-'); i > 0 && len(base)-i-1 == 8 {
		if _, err := strconv.Atoi(base[i+1:]); err == nil {
			base = base[:i]
		}
	}
	if base != model {
		keys = append(keys, base)
	}
	return keys
}

// modelFacts are what Claude Code 2.1.330's model catalogue says of a model,
// as far as its auto-compaction goes.
type modelFacts struct {
	// window is the window Claude Code runs the model with (without the
	// [1m] option); 0 for a model it does not know: the gauge's figure.
	window int
	// reactive: with no auto-compact window set and no word from
	// Anthropic's servers about the model, Claude Code leaves the context
	// to the API and compacts only when a request is refused.
	reactive bool
}

// claudeModels are Claude Code 2.1.330's models by their catalogue names,
// matched as prefixes (the longest wins) after the provider's prefix and
// the date: the window it runs each with (1M natively for the newest),
// and whether, not told otherwise, it leaves the model's context to the
// API (a model whose catalogue window is all the API gives it) rather
// than compacting at T (one with more window without an opt-in, or 1M).
var claudeModels = []struct {
	name  string
	facts modelFacts
}{
	{"claude-3-", modelFacts{200_000, true}},
	{"claude-sonnet-4-2", modelFacts{200_000, true}}, // claude-sonnet-4-20250514
	{"claude-sonnet-4-0", modelFacts{200_000, true}},
	{"claude-sonnet-4-5", modelFacts{200_000, true}},
	{"claude-sonnet-4-6", modelFacts{200_000, false}},
	{"claude-sonnet-5", modelFacts{1_000_000, false}},
	{"claude-opus-4-2", modelFacts{200_000, true}}, // claude-opus-4-20250514
	{"claude-opus-4-0", modelFacts{200_000, true}},
	{"claude-opus-4-1", modelFacts{200_000, true}},
	{"claude-opus-4-5", modelFacts{200_000, true}},
	{"claude-opus-4-6", modelFacts{200_000, false}},
	{"claude-opus-4-7", modelFacts{1_000_000, false}},
	{"claude-opus-4-8", modelFacts{1_000_000, false}},
	{"claude-opus-5", modelFacts{1_000_000, false}},
	{"claude-haiku-4-5", modelFacts{200_000, true}},
	{"claude-haiku-5", modelFacts{1_000_000, false}},
	{"claude-fable-5", modelFacts{1_000_000, false}},
	{"claude-mythos-5", modelFacts{1_000_000, false}},
}

// firstParty reports whether a base URL is Anthropic's API, as Claude Code
// tells it (its host is api.anthropic.com).
func firstParty(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Host == "api.anthropic.com"
}

// factsOf looks a model up in claudeModels: a name such as
// "claude-opus-4-7", "anthropic/claude-sonnet-4-5-20250929" or
// "us.anthropic.claude-haiku-4-5-20251001-v1:0".
func factsOf(model string) modelFacts {
	m := strings.ToLower(model)
	if i := strings.Index(m, "claude-"); i > 0 {
		m = m[i:]
	}
	best, found := -1, modelFacts{}
	for _, c := range claudeModels {
		if strings.HasPrefix(m, c.name) && len(c.name) > best {
			best, found = len(c.name), c.facts
		}
	}
	return found
}

// reserveOf is the output Claude Code of version v reserves: 32,000 up to
// 2.1.17, 20,000 from 2.1.29 (the change falls in between; compactd takes
// it from 2.1.18); the current reserve when the session records none.
func reserveOf(v string) int {
	if olderThan(v, 2, 1, 18) {
		return oldOutputReserve
	}
	return outputReserve
}

// olderThan reports whether version v ("2.1.17") is older than
// major.minor.patch; false when v is not such a version.
func olderThan(v string, major, minor, patch int) bool {
	var got [3]int
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) != 3 {
		return false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimFunc(p, func(r rune) bool { return r < '0' || r > '9' }))
		if err != nil {
			return false
		}
		got[i] = n
	}
	want := [3]int{major, minor, patch}
	for i := range got {
		if got[i] != want[i] {
			return got[i] < want[i]
		}
	}
	return false
}

// maxOutput is the model's largest answer by default, as far as the
// reserve goes: every current Claude model's is at least 32,000 (the most
// Claude Code ever reserved); the Claude 3 generation's were smaller.
func maxOutput(model string) int {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "claude-3-5-"), strings.Contains(m, "claude-3.5-"):
		return 8_192
	case strings.Contains(m, "claude-3-") && !strings.Contains(m, "claude-3-7"):
		return 4_096
	}
	return oldOutputReserve
}
