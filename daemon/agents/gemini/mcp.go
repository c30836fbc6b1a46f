package gemini

import (
	"path/filepath"

	"github.com/compactd/compactd/daemon/agents"
)

func init() {
	Agent.MCP = &agents.MCP{
		User: func(env agents.Env) string { return filepath.Join(env.Home, ".gemini", "settings.json") },
		// A project's settings are read only in a trusted folder.
		Project: func(folder string) string { return filepath.Join(folder, ".gemini", "settings.json") },
		Key:     []string{"mcpServers"},
		Entry:   Entry,
	}
}

// Entry is an MCP server entry of Gemini CLI's settings (Qwen Code reads
// the same shape): trusted, since compactd's tools only read.
func Entry(command string, args []string, env map[string]string) any {
	return struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
		Trust   bool              `json:"trust"`
	}{command, args, env, true}
}
