package gemini

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/agents"
)

// Gemini CLI 0.61 compresses the history at the start of a request once
// the last prompt reached
//
//	model.compressionThreshold × tokenLimit(model)
//
// with compressionThreshold a fraction (default 0.5; a 0 that wins the
// settings' merge counts as unset, and the default applies) and tokenLimit
// 1,048,576 for every model but Gemma 4 (256,000), whatever the model's
// real window (its ChatCompressionService.compress; the real-agent suite's
// threshold grid holds compactd to the agent). The workspace's settings
// count only in a trusted folder. There is no switch to turn it off.
const (
	keyThreshold     = "model.compressionThreshold"
	defaultThreshold = 0.5
	tokenLimit       = 1_048_576
	gemmaLimit       = 256_000
)

// Home is Gemini CLI's folder: $GEMINI_CLI_HOME/.gemini, else ~/.gemini.
func Home(q agents.Query) string {
	if h := q.Var("GEMINI_CLI_HOME"); h != "" {
		return filepath.Join(h, ".gemini")
	}
	return filepath.Join(q.Env.Home, ".gemini")
}

// settingsFiles are Gemini CLI's settings in increasing precedence:
// system defaults, user, workspace (trusted only), system overrides.
func settingsFiles(q agents.Query) []agents.SettingsFile {
	system := q.Var("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if system == "" {
		system = q.Env.SystemPath("/etc/gemini-cli/settings.json",
			"/Library/Application Support/GeminiCli/settings.json", `C:\ProgramData\gemini-cli\settings.json`)
	}
	defaults := q.Var("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(system), "system-defaults.json")
	}
	userPath := filepath.Join(Home(q), "settings.json")
	sysDefaults := readSystem(q, "system defaults", defaults)
	user := q.ReadSettings("user settings", userPath)
	sys := readSystem(q, "system settings", system)
	files := []agents.SettingsFile{sysDefaults, user}
	if q.Cwd != "" {
		ws := filepath.Join(q.Cwd, ".gemini", "settings.json")
		if filepath.Clean(ws) != filepath.Clean(userPath) && trusted(q, []agents.SettingsFile{sysDefaults, user, sys}) {
			files = append(files, q.ReadSettings("project settings", ws))
		}
	}
	return append(files, sys)
}

// readSystem reads a system settings or system defaults file, unless
// Gemini CLI would skip it as insecure (systemFileSecure): then it has no
// values, and its Err says why.
func readSystem(q agents.Query, source, path string) agents.SettingsFile {
	if ok, why := systemFileSecure(path); !ok {
		return agents.SettingsFile{Source: source, Path: path, Err: fmt.Errorf("skipped as insecure (%s)", why)}
	}
	return q.ReadSettings(source, path)
}

// trusted is Gemini CLI's folder trust, on by default: GEMINI_CLI_TRUST_WORKSPACE
// decides when set, else security.folderTrust.enabled false trusts every
// folder, else trustedFolders.json's rules (an unlisted folder is not
// trusted).
func trusted(q agents.Query, files []agents.SettingsFile) bool {
	switch {
	case q.Var("GEMINI_RESTRICTED_MODE") == "true" || q.Var("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return false
	case q.Var("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return true
	}
	enabled := true
	for _, f := range files {
		if v, ok := f.Lookup("security.folderTrust.enabled"); ok {
			if b, isBool := v.(bool); isBool {
				enabled = b
			}
		}
	}
	if !enabled {
		return true
	}
	path := q.Var("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = filepath.Join(Home(q), "trustedFolders.json")
	}
	ok, _ := agents.PathTrusted(q.ReadSettings("trusted folders", path).Values, q.Cwd)
	return ok
}

func threshold(q agents.Query) gauge.AutoCompact {
	files := settingsFiles(q)
	var notes []string
	for _, f := range files {
		if f.Err != nil {
			notes = append(notes, "Gemini CLI would not read "+f.Path+": "+f.Err.Error())
		}
	}
	limit := tokenLimit
	if strings.Contains(strings.ToLower(q.Model), "gemma-4") {
		limit = gemmaLimit
	}
	frac := defaultThreshold
	var used []gauge.Setting
	for i := len(files) - 1; i >= 0; i-- {
		v, ok := files[i].Lookup(keyThreshold)
		if !ok {
			continue
		}
		// The files merge, the highest first; a 0 that wins the merge counts
		// as unset, and the default applies, not a lower file's value (seen
		// in Gemini CLI 0.61: 0.035 in the user's settings and 0 in the
		// project's compressed no earlier than 100k).
		if n, isNum := agents.Number(v); isNum {
			if n != 0 {
				frac = n
			} else {
				notes = append(notes, fmt.Sprintf("%s = 0 in %s counts as unset: Gemini CLI applies its default %s", keyThreshold, files[i].Path, agents.ValueText(defaultThreshold)))
			}
			used = append(used, files[i].Setting(keyThreshold, v))
			break
		} else {
			notes = append(notes, fmt.Sprintf("%s = %s in %s is not a number", keyThreshold, agents.ValueText(v), files[i].Path))
		}
	}
	// Compressed once the prompt is no longer below the product.
	at := int(math.Ceil(frac * float64(limit)))
	ac := gauge.AutoCompact{At: at, Source: "default", Settings: used,
		Rule: fmt.Sprintf("%s × %s (Gemini CLI's fixed token limit)", agents.ValueText(frac), gauge.Short(limit)), Note: strings.Join(notes, "; ")}
	if limit != q.Window {
		ac.Window = limit
	}
	if len(used) > 0 {
		ac.Source = used[0].Source
	}
	if frac >= 1 {
		ac.Note = strings.TrimPrefix(ac.Note+"; a threshold of 1 or more is never reached before the API refuses the prompt: Gemini CLI in effect never compresses by itself", "; ")
	}
	return ac
}
