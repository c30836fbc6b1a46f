package qwen

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/agents"
)

// Qwen Code 0.24.4 compacts when the last prompt reaches
//
//	auto = min(P × W, (W − 20,000) − 13,000)   (P × W alone when the
//	                                             second term is ≤ 0)
//
// with P the context.autoCompactThreshold setting (a fraction in (0, 1],
// default 0.85) and W the window: model.generationConfig.contextWindowSize,
// else the model's known limit, else 200,000 (held by the real-agent
// suite's threshold grid: a window, a threshold, both, a project's
// threshold over the user's). The percentage is of the whole window, the
// cap Claude-like. There is no switch to turn it off.
const (
	keyPct         = "context.autoCompactThreshold"
	keyWindow      = "model.generationConfig.contextWindowSize"
	defaultPct     = 0.85
	summaryReserve = 20_000
	autoBuffer     = 13_000
	defaultWindow  = 200_000
)

// Home is Qwen Code's folder: $QWEN_HOME, else ~/.qwen.
func Home(q agents.Query) string {
	if h := q.Var("QWEN_HOME"); h != "" {
		return h
	}
	return filepath.Join(q.Env.Home, ".qwen")
}

// settingsFiles are Qwen Code's settings in increasing precedence: system
// defaults, user, workspace (when trusted), system overrides.
func settingsFiles(q agents.Query) []agents.SettingsFile {
	system := q.Var("QWEN_CODE_SYSTEM_SETTINGS_PATH")
	if system == "" {
		system = q.Env.SystemPath("/etc/qwen-code/settings.json",
			"/Library/Application Support/QwenCode/settings.json", `C:\ProgramData\qwen-code\settings.json`)
	}
	defaults := q.Var("QWEN_CODE_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(system), "system-defaults.json")
	}
	userPath := filepath.Join(Home(q), "settings.json")
	sysDefaults := q.ReadSettings("system defaults", defaults)
	user := q.ReadSettings("user settings", userPath)
	sys := q.ReadSettings("system settings", system)
	files := []agents.SettingsFile{sysDefaults, user}
	if q.Cwd != "" {
		ws := filepath.Join(q.Cwd, ".qwen", "settings.json")
		if filepath.Clean(ws) != filepath.Clean(userPath) && trusted(q, []agents.SettingsFile{sysDefaults, user, sys}, q.Cwd) {
			files = append(files, q.ReadSettings("project settings", ws))
		}
	}
	return append(files, sys)
}

// trusted is Qwen Code's folder trust: off unless security.folderTrust.enabled
// is true, then the rules of trustedFolders.json beside the user settings.
func trusted(q agents.Query, files []agents.SettingsFile, dir string) bool {
	enabled := false
	for _, f := range files {
		if v, ok := f.Lookup("security.folderTrust.enabled"); ok {
			enabled, _ = v.(bool)
		}
	}
	if !enabled {
		return true
	}
	rules := q.ReadSettings("trusted folders", filepath.Join(Home(q), "trustedFolders.json"))
	ok, _ := agents.PathTrusted(rules.Values, dir)
	return ok
}

// lookup is the dotted key from the file of highest precedence setting it.
func lookup(files []agents.SettingsFile, key string) (any, gauge.Setting, bool) {
	for i := len(files) - 1; i >= 0; i-- {
		if v, ok := files[i].Lookup(key); ok {
			return v, files[i].Setting(key, v), true
		}
	}
	return nil, gauge.Setting{}, false
}

func threshold(q agents.Query) gauge.AutoCompact {
	files := settingsFiles(q)
	var notes []string
	for _, f := range files {
		if f.Err != nil {
			notes = append(notes, "Qwen Code would refuse "+f.Path+": "+f.Err.Error())
		}
	}
	var used []gauge.Setting
	w := q.Window
	if w <= 0 {
		w = defaultWindow
	}
	if v, from, ok := lookup(files, keyWindow); ok {
		if n, isNum := agents.Number(v); isNum && n > 0 {
			w = int(n)
			used = append(used, from)
		}
	}
	pct := defaultPct
	if v, from, ok := lookup(files, keyPct); ok {
		if n, isNum := agents.Number(v); isNum && n > 0 && n <= 1 {
			pct = n
			used = append(used, from)
		} else {
			notes = append(notes, fmt.Sprintf("%s = %s in %s is ignored: Qwen Code takes a fraction above 0 and at most 1", keyPct, from.Value, from.File))
		}
	}
	proportional := pct * float64(w)
	ceiling := max(w-summaryReserve, 0) - autoBuffer
	at := int(math.Ceil(proportional))
	rule := fmt.Sprintf("%s × %s window", agents.ValueText(pct), gauge.Short(w))
	if ceiling > 0 && float64(ceiling) < proportional {
		at = ceiling
	}
	if ceiling > 0 {
		rule = fmt.Sprintf("min(%s × %s, %s − %s reserve − %s buffer)", agents.ValueText(pct), gauge.Short(w), gauge.Short(w), gauge.Short(summaryReserve), gauge.Short(autoBuffer))
	}
	ac := gauge.AutoCompact{At: at, Source: "default", Settings: used, Rule: rule, Note: strings.Join(notes, "; ")}
	if w != q.Window {
		ac.Window = w
	}
	if len(used) > 0 {
		ac.Source = used[len(used)-1].Source
	}
	return ac
}
