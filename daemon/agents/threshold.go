package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/compactd/compactd/compaction/gauge"
)

// A Query is what an agent's auto-compaction threshold depends on beyond
// its settings files: who asks, for which session.
type Query struct {
	// Env locates the agent's files (its home, CLAUDE_CONFIG_DIR, …).
	Env Env
	// Getenv is the environment the agent runs with: its process's where
	// compactd can read it, else the daemon's (the best guess for an
	// agent started from the same shell). nil reads no variable.
	Getenv func(string) string
	// Args is the agent's command line, when compactd can read it (its
	// process's, or its parent's for a server the agent started): a flag
	// may choose settings (Codex's --profile). nil when unknown.
	Args []string
	// ReadFile reads one of the agent's settings files; nil is
	// os.ReadFile. The daemon passes one that remembers which files were
	// read, so it asks again only when one of them changes.
	ReadFile func(string) ([]byte, error)
	// Cwd is the folder the session runs in (the transcript's cwd, else
	// its workspace folder); "" reads no project settings.
	Cwd string
	// Model is the session's model and Window its context window as the
	// gauge resolved them; WindowSource is where the window came from
	// (gauge.Resolved.WindowSource: "transcript" when the agent recorded
	// it).
	Model        string
	Window       int
	WindowSource string
	// AgentVersion is the agent's version the session records
	// (transcript.Meta.AgentVersion); "" when it records none.
	AgentVersion string
}

// Threshold computes an agent's effective auto-compaction point.
type Threshold func(q Query) gauge.AutoCompact

// AutoCompact is the agent's threshold for q; nil when compactd does not
// read this agent's settings (the gauge then uses its table's typical
// ratio).
func (a *Agent) AutoCompact(q Query) *gauge.AutoCompact {
	if a == nil || a.Threshold == nil {
		return nil
	}
	ac := a.Threshold(q)
	return &ac
}

// SessionCwd is the folder the session at path runs in: what its
// transcript records (recorded), else what the agent's files tell, else
// "".
func (a *Agent) SessionCwd(env Env, path, recorded string) string {
	if recorded != "" || a == nil || a.Cwd == nil {
		return recorded
	}
	return a.Cwd(env, path)
}

// Var returns the variable from the query's environment, "" when unset
// or when there is none.
func (q Query) Var(name string) string {
	if q.Getenv == nil {
		return ""
	}
	return q.Getenv(name)
}

func (q Query) read(path string) ([]byte, error) {
	if q.ReadFile != nil {
		return q.ReadFile(path)
	}
	return os.ReadFile(path)
}

// A SettingsFile is one of an agent's JSON settings files, read.
type SettingsFile struct {
	// Source names it as the agent's documentation does ("user
	// settings", "project settings").
	Source string
	Path   string
	// Values is the file's top-level object; nil when the file is absent
	// or unreadable (Err says why when it is not merely absent).
	Values map[string]any
	Err    error
}

// ReadSettings reads a JSON settings file as the agents read theirs:
// comments and trailing commas allowed (Gemini CLI and Qwen Code strip
// comments; Claude Code's files have none, which changes nothing). A file
// that does not exist has no values and no error.
func (q Query) ReadSettings(source, path string) SettingsFile {
	f := SettingsFile{Source: source, Path: path}
	if path == "" {
		return f
	}
	data, err := q.read(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			f.Err = err
		}
		return f
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		f.Err = fmt.Errorf("%s is not valid JSON: %w", path, err)
		return f
	}
	var v map[string]any
	if err := json.Unmarshal(std, &v); err != nil {
		f.Err = fmt.Errorf("%s is not a JSON object: %w", path, err)
		return f
	}
	f.Values = v
	return f
}

// Lookup returns the value at a dotted path ("model.compressionThreshold").
func (f SettingsFile) Lookup(path string) (any, bool) {
	var cur any = f.Values
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Setting is the value at path as a gauge.Setting of this file.
func (f SettingsFile) Setting(path string, v any) gauge.Setting {
	return gauge.Setting{Name: path, Value: ValueText(v), Source: f.Source, File: f.Path}
}

// ValueText renders a settings value as the user wrote it.
func ValueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%f", x), "0"), ".")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Number returns v as a number when it is one.
func Number(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// TrustRule is a Gemini CLI / Qwen Code trustedFolders.json rule value.
const (
	TrustFolder = "TRUST_FOLDER"
	TrustParent = "TRUST_PARENT"
	DoNotTrust  = "DO_NOT_TRUST"
)

// PathTrusted applies a trustedFolders.json (Gemini CLI's and Qwen Code's
// shape: {"<path>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}) to
// dir: the longest rule whose folder holds dir decides (TRUST_PARENT
// trusts the rule's parent folder); ok is false when no rule matches.
func PathTrusted(rules map[string]any, dir string) (trusted, ok bool) {
	best := -1
	for rule, level := range rules {
		lv, _ := level.(string)
		folder := rule
		if lv == TrustParent {
			folder = filepath.Dir(rule)
		}
		if !Within(filepath.Clean(dir), filepath.Clean(folder)) || len(rule) <= best {
			continue
		}
		switch lv {
		case TrustFolder, TrustParent:
			best, trusted, ok = len(rule), true, true
		case DoNotTrust:
			best, trusted, ok = len(rule), false, true
		}
	}
	return trusted, ok
}

// SystemPath picks an agent's system-wide file by OS: Linux (and other
// Unixes), macOS, Windows.
func (e Env) SystemPath(linux, darwin, windows string) string {
	goos := e.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	switch goos {
	case "darwin":
		return darwin
	case "windows":
		return windows
	}
	return linux
}
