package opencode

import (
	"path/filepath"

	"github.com/compactd/compactd/daemon/agents"
)

func init() {
	Agent.MCP = &agents.MCP{
		User:    func(env agents.Env) string { return filepath.Join(env.ConfigDir(), "opencode", "opencode.json") },
		Project: func(folder string) string { return filepath.Join(folder, "opencode.json") },
		Key:     []string{"mcp"},
		Entry: func(command string, args []string, env map[string]string) any {
			return struct {
				Type        string            `json:"type"`
				Command     []string          `json:"command"`
				Environment map[string]string `json:"environment,omitempty"`
				Enabled     bool              `json:"enabled"`
			}{"local", append([]string{command}, args...), env, true}
		},
		Env: []string{"XDG_DATA_HOME", "XDG_STATE_HOME"},
	}
}

func init() {
	// The plugin list compactd's hooks go in is in the same file.
	Agent.Hooks = &agents.Hooks{User: Agent.MCP.User, Project: Agent.MCP.Project, Kind: agents.HookModule}
}
