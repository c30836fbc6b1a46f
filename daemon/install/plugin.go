package install

import (
	_ "embed"
	"encoding/json"
	"strings"
)

//go:embed plugin/register.js
var registerJS string

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
