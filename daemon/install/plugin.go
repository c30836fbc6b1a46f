package install

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"
)

//go:embed plugin/register.js
var registerJS string

//go:embed opencode/compactd.js
var opencodeJS string

// OpencodePlugin is where compactd keeps its opencode plugin: beside the
// store.
func OpencodePlugin(store string) string {
	return filepath.Join(filepath.Dir(store), "opencode-plugin", "compactd.js")
}

// opencodePluginFile is the plugin module: before each compaction it runs
// `compactd hooks precompact --agent opencode --session ID` through the
// Bun shell opencode hands its plugins.
func opencodePluginFile(s Server) string {
	command, _ := json.Marshal(s.Command)
	args := []string{"hooks", "precompact", "--agent", "opencode"}
	if s.Store != "" {
		args = append(args, "--store", s.Store)
	}
	argv, _ := json.Marshal(args)
	return strings.NewReplacer("__COMPACTD__", string(command), "__ARGS__", string(argv)).Replace(opencodeJS)
}

// pluginFiles are the files of compactd's Claude Code plugin folder, by
// path inside it: the plugin's manifest, its hooks file naming the module,
// and the module, which runs `compactd hooks compact` for each
// compaction (Claude Code's function hooks run in a sandboxed worker:
// the module reaches compactd through $.process.run).
func pluginFiles(s Server) map[string]string {
	command, _ := json.Marshal(s.Command)
	args := []string{"hooks", "compact", "--agent", "claude"}
	if s.Store != "" {
		args = append(args, "--store", s.Store)
	}
	argv, _ := json.Marshal(args)
	js := strings.NewReplacer("__COMPACTD__", string(command), "__ARGS__", string(argv)).Replace(registerJS)
	return map[string]string{
		".claude-plugin/plugin.json": `{
  "name": "compactd",
  "version": "1.0.0",
  "description": "compactd summarizes the conversation in place of Claude Code's own compaction; every version stays in compactd's store"
}
`,
		"hooks/hooks.json":  "{ \"modules\": [\"./register.js\"] }\n",
		"hooks/register.js": js,
	}
}
