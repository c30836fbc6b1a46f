package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/agents"
)

// Codex CLI 0.169 compacts once the context reaches
//
//	min(model_auto_compact_token_limit, 90 % of the model's context window)
//
// (seen in the real-agent suite's threshold grid: with either set, it
// compacted within one request of that point). The window is
// model_context_window when configured, else the model catalogue's; the
// figure Codex records in every token_count event is 95 % of it
// (effective_context_window_percent), which is the window compactd's gauge
// shows for a rollout. There is no switch to turn it off: a limit above
// 90 % is clamped to 90 %.
//
// A profile is a file of its own, $CODEX_HOME/<name>.config.toml, layered
// over the user's config.toml when Codex runs with --profile <name> (-p):
// compactd reads the flag from the agent's command line when it can. The
// older `profile = "<name>"` key, and [profiles.<name>] tables with
// --profile, make 0.169 refuse to start.
const (
	keyLimit         = "model_auto_compact_token_limit"
	keyScope         = "model_auto_compact_token_limit_scope"
	keyWindow        = "model_context_window"
	defaultPercent   = 90
	effectivePercent = 95
)

// configLayer is one config.toml, read.
type configLayer struct {
	source, path string
	values       map[string]any
	err          error
}

func readTOML(q agents.Query, source, path string) configLayer {
	l := configLayer{source: source, path: path}
	read := q.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	data, err := read(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.err = err
		}
		return l
	}
	if err := toml.Unmarshal(data, &l.values); err != nil {
		l.err = fmt.Errorf("%s is not valid TOML: %w", path, err)
	}
	return l
}

// UserConfig is $CODEX_HOME/config.toml (default ~/.codex/config.toml).
func UserConfig(env agents.Env) string {
	return filepath.Join(Home(env), "config.toml")
}

// configLayers are Codex's config files in increasing precedence: the
// system's, the user's, the project's (.codex/config.toml from the
// repository's root down to the session's folder, read only when the user
// trusts the project), the administrators' managed config.
func configLayers(q agents.Query) []configLayer {
	system := q.Env.SystemPath("/etc/codex/config.toml", "/etc/codex/config.toml", "")
	managed := q.Env.SystemPath("/etc/codex/managed_config.toml", "/etc/codex/managed_config.toml", "")
	user := readTOML(q, "config.toml", UserConfig(q.Env))
	layers := []configLayer{}
	if system != "" {
		layers = append(layers, readTOML(q, "system config.toml", system))
	}
	layers = append(layers, user)
	if name := profileOf(q.Args); name != "" {
		layers = append(layers, readTOML(q, "profile "+name, filepath.Join(Home(q.Env), name+".config.toml")))
	}
	if q.Cwd != "" && trusted(user.values, q.Cwd) {
		dirs := projectDirs(q.Cwd)
		for i := len(dirs) - 1; i >= 0; i-- {
			layers = append(layers, readTOML(q, "project config.toml", filepath.Join(dirs[i], ".codex", "config.toml")))
		}
	}
	if managed != "" {
		layers = append(layers, readTOML(q, "managed config.toml", managed))
	}
	return layers
}

// projectDirs are cwd and its parents up to the repository's root (the
// first holding .git), cwd first; cwd alone outside a repository.
func projectDirs(cwd string) []string {
	var dirs []string
	for d := filepath.Clean(cwd); ; {
		dirs = append(dirs, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dirs[:1]
		}
		d = parent
	}
}

// trusted reports whether the user's config trusts the project at cwd
// ([projects."<folder>"] trust_level = "trusted" for it or a parent).
func trusted(user map[string]any, cwd string) bool {
	projects, _ := user["projects"].(map[string]any)
	best, ok := -1, false
	for folder, v := range projects {
		entry, _ := v.(map[string]any)
		level, has := entry["trust_level"].(string)
		if !has || !agents.Within(filepath.Clean(cwd), filepath.Clean(folder)) || len(folder) <= best {
			continue
		}
		best, ok = len(folder), level == "trusted"
	}
	return ok
}

// value is a key's value from the layers: the last layer that sets it.
func value(layers []configLayer, key string) (any, gauge.Setting, bool) {
	var found any
	var from gauge.Setting
	ok := false
	for _, l := range layers {
		if v, has := l.values[key]; has {
			found, from, ok = v, gauge.Setting{Name: key, Value: agents.ValueText(toJSONish(v)), Source: l.source, File: l.path}, true
		}
	}
	return found, from, ok
}

// profileOf is the profile a Codex command line selects: --profile NAME,
// --profile=NAME or -p NAME; "" for none.
func profileOf(args []string) string {
	for i, a := range args {
		switch {
		case (a == "--profile" || a == "-p") && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--profile="):
			return strings.TrimPrefix(a, "--profile=")
		}
	}
	return ""
}

// legacyProfiles says what of Codex's older profiles a layer holds, which
// 0.169 refuses to start with; "" when none.
func legacyProfiles(l configLayer) string {
	if p, ok := l.values["profile"].(string); ok {
		return fmt.Sprintf("profile = %q in %s: Codex 0.169 refuses to start with it (use --profile %s and %s.config.toml)", p, l.path, p, p)
	}
	if _, ok := l.values["profiles"]; ok {
		return fmt.Sprintf("[profiles] in %s: Codex 0.169 refuses to start with it under --profile (a profile is now <name>.config.toml)", l.path)
	}
	return ""
}

// toJSONish converts TOML's integers to the float64 JSON values are.
func toJSONish(v any) any {
	if n, ok := v.(int64); ok {
		return float64(n)
	}
	return v
}

func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) {
			return int64(n), true
		}
	}
	return 0, false
}

// threshold is Codex's effective auto-compaction point.
func threshold(q agents.Query) gauge.AutoCompact {
	layers := configLayers(q)
	var notes []string
	for _, l := range layers {
		if l.err != nil {
			notes = append(notes, "Codex would refuse "+l.path+": "+l.err.Error())
		}
		if why := legacyProfiles(l); why != "" {
			notes = append(notes, why)
		}
	}
	window, windowFrom := q.Window, ""
	if q.WindowSource == "transcript" && window > 0 {
		// The rollout records the effective window, 95 % of the model's.
		window = int(math.Round(float64(window) * 100 / effectivePercent))
		windowFrom = "the session's window"
	}
	var used []gauge.Setting
	if v, from, ok := value(layers, keyWindow); ok {
		if n, isInt := integer(v); isInt && n > 0 {
			window, windowFrom = int(n), from.Name
			used = append(used, from)
		}
	}
	ceiling := window * defaultPercent / 100
	at := ceiling
	rule := fmt.Sprintf("90 %% of the %s window", gauge.Short(window))
	if windowFrom == "the session's window" {
		rule = fmt.Sprintf("90 %% of the %s window (the session records 95 %% of it, %s)", gauge.Short(window), gauge.Short(q.Window))
	}
	if v, from, ok := value(layers, keyLimit); ok {
		n, isInt := integer(v)
		switch {
		case !isInt:
			notes = append(notes, fmt.Sprintf("%s = %s in %s is not a whole number of tokens; Codex refuses the file", from.Name, from.Value, from.File))
		case n >= int64(ceiling) && ceiling > 0:
			notes = append(notes, fmt.Sprintf("%s = %d is above 90 %% of the window; Codex compacts at %s", from.Name, n, gauge.Short(ceiling)))
			used = append(used, from)
		default:
			at = int(max(n, 0))
			rule = fmt.Sprintf("min(%s, 90 %% of the %s window)", gauge.Short(at), gauge.Short(window))
			used = append(used, from)
		}
	}
	if v, from, ok := value(layers, keyScope); ok && v != "total" {
		notes = append(notes, fmt.Sprintf("%s = %q: Codex counts only the tokens after the cached prefix, so it compacts later than this mark by the prefix's size", from.Name, from.Value))
		used = append(used, from)
	}
	ac := gauge.AutoCompact{At: at, Source: "default", Settings: used, Rule: rule}
	if window != q.Window {
		ac.Window = window
	}
	for i := len(used) - 1; i >= 0; i-- {
		if used[i].Name != keyScope {
			ac.Source = used[i].Source
			break
		}
	}
	if len(notes) > 0 {
		ac.Note = strings.Join(notes, "; ")
	}
	return ac
}
