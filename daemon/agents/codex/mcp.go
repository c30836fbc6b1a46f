package codex

import (
	"path/filepath"

	"github.com/compactd/compactd/daemon/agentconf"
	"github.com/compactd/compactd/daemon/agents"
)

func init() {
	Agent.MCP = &agents.MCP{
		User: func(env agents.Env) string { return filepath.Join(Home(env), "config.toml") },
		// A project's file is read only when the project is trusted.
		Project: func(folder string) string { return filepath.Join(folder, ".codex", "config.toml") },
		Key:     []string{"mcp_servers"},
		TOML:    true,
		Entry: func(command string, args []string, env map[string]string) any {
			t := agentconf.TOMLTable{{Key: "command", Value: command}, {Key: "args", Value: args}}
			if len(env) > 0 {
				t = append(t, agentconf.TOMLKey{Key: "env", Value: env})
			}
			return t
		},
		Env: []string{"CODEX_HOME"},
	}
}
