package claude

import (
	"path/filepath"

	"github.com/compactd/compactd/daemon/agents"
)

func init() {
	Agent.MCP = &agents.MCP{
		// Claude Code's global config, not its settings: `claude mcp add
		// -s user` writes top-level mcpServers there.
		User:    GlobalConfig,
		Project: func(folder string) string { return filepath.Join(folder, ".mcp.json") },
		Key:     []string{"mcpServers"},
		Entry: func(command string, args []string, env map[string]string) any {
			return stdioEntry{Type: "stdio", Command: command, Args: args, Env: env}
		},
		Env: []string{ConfigDirVar},
	}
	Agent.Hooks = &agents.Hooks{
		User:    func(env agents.Env) string { return filepath.Join(ConfigDir(env), "settings.json") },
		Project: func(folder string) string { return filepath.Join(folder, ".claude", "settings.json") },
		Kind:    agents.HookCommands,
		// Read from user settings only.
		Plugins: "CLAUDE_CODE_PLUGIN_DIRS",
	}
}

// stdioEntry is an MCP server entry as `claude mcp add` writes it.
type stdioEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}
