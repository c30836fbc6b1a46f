package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/daemon/agentconf"
	"github.com/compactd/compactd/daemon/agents"
)

// PreCompactMark is in the command of compactd's PreCompact hook: how an
// install finds its own entry among the user's hooks.
const PreCompactMark = " hooks precompact"

// PluginDir is where compactd keeps its Claude Code plugin folder: beside
// the store.
func PluginDir(store string) string { return filepath.Join(filepath.Dir(store), "claude-plugin") }

// HookOptions say what `compactd hooks install` writes.
type HookOptions struct {
	// Compaction, for Claude Code, makes compactd the agent's compaction:
	// a plugin folder whose session.compact hook answers with compactd's
	// summary (opt-in; the PreCompact hook alone only records).
	Compaction bool
	// PluginDir is where the plugin folder goes (compactd's state folder).
	PluginDir string
}

func hooksFile(t Target) (string, error) {
	h := t.Agent.Hooks
	if h == nil {
		return "", fmt.Errorf("compactd has no hooks for %s (it has them for %s)", t.Agent.Name, hookAgents())
	}
	switch t.Scope {
	case ScopeUser:
		return h.User(t.Env), nil
	case ScopeProject:
		abs, err := filepath.Abs(t.Folder)
		if err != nil {
			return "", err
		}
		return h.Project(abs), nil
	}
	return "", fmt.Errorf("unknown scope %q", t.Scope)
}

// preCompactCommand is the hook's shell command.
func (s Server) preCompactCommand(a *agents.Agent) string {
	cmd := agents.ShellQuote(s.Command) + PreCompactMark + " --agent " + a.Name
	if s.Store != "" {
		cmd += " --store " + agents.ShellQuote(s.Store)
	}
	return cmd
}

// isOurs reports whether a hooks group runs compactd's PreCompact hook.
func isOurs(raw json.RawMessage) bool {
	var g struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(raw, &g) != nil {
		return false
	}
	for _, h := range g.Hooks {
		if strings.Contains(h.Command, "compactd") && strings.Contains(h.Command, PreCompactMark) {
			return true
		}
	}
	return false
}

type hookGroup struct {
	Hooks []hookCommand `json:"hooks"`
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// PlanHooks is what installs (remove false) or uninstalls compactd's hooks
// for t: the settings file, and with opts.Compaction the plugin folder.
func PlanHooks(t Target, s Server, opts HookOptions, remove bool) ([]Change, error) {
	switch {
	case t.Agent.Hooks == nil:
		return nil, fmt.Errorf("compactd has no hooks for %s (it has them for %s)", t.Agent.Name, hookAgents())
	case t.Agent.Hooks.Kind == agents.HookModule:
		return planModuleHooks(t, s, opts, remove)
	}
	if opts.Compaction && (t.Scope == ScopeProject || t.Agent.Hooks.Plugins == "") {
		return nil, fmt.Errorf("%s loads plugin folders from user settings only: install the compaction hook without --project", t.Agent.Name)
	}
	path, err := hooksFile(t)
	if err != nil {
		return nil, err
	}
	before, mode, err := read(path)
	if err != nil {
		return nil, err
	}
	key := []string{"hooks", "PreCompact"}
	var after []byte
	if remove {
		after, err = agentconf.RemoveJSONElements(before, key, isOurs)
	} else {
		// No matcher: both the manual /compact and auto-compaction.
		group := hookGroup{Hooks: []hookCommand{{Type: "command", Command: s.preCompactCommand(t.Agent), Timeout: 120}}}
		after, err = agentconf.SetJSONElement(before, key, isOurs, group)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w; the file was left as it is", path, err)
	}
	var changes []Change
	if opts.Compaction || remove && t.Scope == ScopeUser {
		plugin, err := pluginChanges(opts.PluginDir, s, remove)
		if err != nil {
			return nil, err
		}
		if after, err = setPluginDir(after, t.Agent.Hooks.Plugins, opts.PluginDir, remove); err != nil {
			return nil, fmt.Errorf("%s: %w; the file was left as it is", path, err)
		}
		changes = append(changes, plugin...)
	}
	if before == nil && after != nil && len(after) == 0 {
		after = nil
	}
	changes = append([]Change{{Agent: t.Agent.Name, Scope: t.Scope, Path: path, Before: before, After: after, Mode: mode}}, changes...)
	return changes, nil
}

// hookAgents names the agents compactd has hooks for.
func hookAgents() string {
	var names []string
	for _, a := range agents.All() {
		if a.Hooks != nil {
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, " and ")
}

// planModuleHooks writes compactd's plugin module beside the store and
// names it in the config file's "plugin" list (user, or the project's):
// opencode runs plugins in Bun, and the module calls compactd through the
// shell it is handed. opencode run --pure loads no plugin.
func planModuleHooks(t Target, s Server, opts HookOptions, remove bool) ([]Change, error) {
	if opts.Compaction {
		return nil, fmt.Errorf("opencode's hooks can add to its summary prompt or rewrite the summary it wrote, not stand in for its compaction: install without --compaction")
	}
	path, err := hooksFile(t)
	if err != nil {
		return nil, err
	}
	before, mode, err := read(path)
	if err != nil {
		return nil, err
	}
	plugin := OpencodePlugin(s.Store)
	url := fileURL(plugin)
	ours := func(raw json.RawMessage) bool {
		var u string
		return json.Unmarshal(raw, &u) == nil && strings.HasSuffix(filepath.ToSlash(u), "/opencode-plugin/compactd.js")
	}
	var after []byte
	if remove {
		after, err = agentconf.RemoveJSONElements(before, []string{"plugin"}, ours)
	} else {
		after, err = agentconf.SetJSONElement(before, []string{"plugin"}, ours, url)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w; the file was left as it is", path, err)
	}
	changes := []Change{{Agent: t.Agent.Name, Scope: t.Scope, Path: path, Before: before, After: after, Mode: mode}}
	pb, pmode, err := read(plugin)
	if err != nil {
		return nil, err
	}
	pc := Change{Agent: t.Agent.Name, Scope: ScopeUser, Path: plugin, Before: pb, After: []byte(opencodePluginFile(s)), Mode: pmode, Prune: filepath.Dir(plugin)}
	if remove {
		// Another scope may still name it: the module stays while one does.
		pc.After = pb
		if pb != nil && !namedElsewhere(t, s, path) {
			pc.After = nil
		}
	}
	return append(changes, pc), nil
}

// namedElsewhere reports whether an opencode config other than path
// names compactd's plugin.
func namedElsewhere(t Target, s Server, path string) bool {
	for _, scope := range []Scope{ScopeUser, ScopeProject} {
		other := t
		other.Scope = scope
		p, err := hooksFile(other)
		if err != nil || p == path {
			continue
		}
		b, _, _ := read(p)
		if bytes.Contains(b, []byte("opencode-plugin/compactd.js")) {
			return true
		}
	}
	return false
}

// fileURL is path as a file:// URL.
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/…
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// setPluginDir adds dir to (or takes it from) the settings' env
// CLAUDE_CODE_PLUGIN_DIRS, beside the folders the user lists there.
func setPluginDir(src []byte, env, dir string, remove bool) ([]byte, error) {
	if dir == "" {
		return src, nil
	}
	var have string
	if raw, ok, err := agentconf.GetJSON(src, []string{"env"}, env); err != nil {
		return nil, err
	} else if ok {
		json.Unmarshal(raw, &have)
	}
	var keep []string
	found := false
	for _, d := range filepath.SplitList(have) {
		if d == "" {
			continue
		}
		if filepath.Clean(d) == filepath.Clean(dir) {
			found = true
			continue
		}
		keep = append(keep, d)
	}
	if remove {
		if !found {
			return src, nil
		}
		if len(keep) == 0 {
			return agentconf.RemoveJSON(src, []string{"env"}, env)
		}
		return agentconf.SetJSON(src, []string{"env"}, env, strings.Join(keep, string(os.PathListSeparator)))
	}
	if found {
		return src, nil
	}
	return agentconf.SetJSON(src, []string{"env"}, env, strings.Join(append(keep, dir), string(os.PathListSeparator)))
}

// pluginChanges write (or remove) the plugin folder.
func pluginChanges(dir string, s Server, remove bool) ([]Change, error) {
	if dir == "" {
		return nil, fmt.Errorf("no folder for compactd's Claude Code plugin")
	}
	files := pluginFiles(s)
	var out []Change
	for _, name := range []string{".claude-plugin/plugin.json", "hooks/hooks.json", "hooks/register.js"} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		before, mode, err := read(path)
		if err != nil {
			return nil, err
		}
		c := Change{Agent: "claude", Scope: ScopeUser, Path: path, Before: before, After: []byte(files[name]), Mode: mode, Prune: dir}
		if remove {
			c.After = nil
		}
		if remove && before == nil {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// HookInstalled is one place compactd's hooks are installed.
type HookInstalled struct {
	Agent string `json:"agent"`
	Scope Scope  `json:"scope"`
	Path  string `json:"path"`
	// Compaction is set when compactd is the agent's compaction (the
	// plugin folder is loaded from these settings).
	Compaction bool `json:"compaction,omitempty"`
}

// HooksStatus lists where compactd's hooks are installed for a.
func HooksStatus(a *agents.Agent, env agents.Env, folder, pluginDir string) ([]HookInstalled, error) {
	if a.Hooks == nil {
		return nil, nil
	}
	var out []HookInstalled
	scopes := []Scope{ScopeUser}
	if folder != "" {
		scopes = append(scopes, ScopeProject)
	}
	for _, scope := range scopes {
		path, err := hooksFile(Target{Agent: a, Scope: scope, Folder: folder, Env: env})
		if err != nil {
			return nil, err
		}
		b, _, err := read(path)
		if err != nil || b == nil {
			continue
		}
		if a.Hooks.Kind == agents.HookModule {
			if raw, ok, _ := agentconf.GetJSON(b, nil, "plugin"); ok && bytes.Contains(raw, []byte("opencode-plugin/compactd.js")) {
				out = append(out, HookInstalled{Agent: a.Name, Scope: scope, Path: path})
			}
			continue
		}
		raw, ok, err := agentconf.GetJSON(b, []string{"hooks"}, "PreCompact")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		in := HookInstalled{Agent: a.Name, Scope: scope, Path: path}
		var groups []json.RawMessage
		found := false
		if ok && json.Unmarshal(raw, &groups) == nil {
			for _, g := range groups {
				found = found || isOurs(g)
			}
		}
		if dirs, ok, _ := agentconf.GetJSON(b, []string{"env"}, a.Hooks.Plugins); ok && pluginDir != "" && a.Hooks.Plugins != "" {
			var list string
			json.Unmarshal(dirs, &list)
			for _, d := range filepath.SplitList(list) {
				if filepath.Clean(d) == filepath.Clean(pluginDir) {
					in.Compaction = true
				}
			}
		}
		if found || in.Compaction {
			out = append(out, in)
		}
	}
	return out, nil
}
