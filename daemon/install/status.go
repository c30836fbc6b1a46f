package install

import (
	"os"

	"github.com/compactd/compactd/daemon/agents"
)

// Integrations say where compactd sits in the agents' own loops: its MCP
// server in their MCP configuration, its hooks in their settings.
type Integrations struct {
	MCP   []Installed     `json:"mcp"`
	Hooks []HookInstalled `json:"hooks"`
	// InstallHooks is the command that installs compactd's hooks for the
	// transcript's agent, "" when compactd has none for it.
	InstallHooks string `json:"installHooks,omitempty"`
}

// Status lists compactd's MCP server and hooks as installed for the user
// and for folder (a workspace folder), for every registered agent; store
// is the version store's path ("" when none is open: the hooks need one).
func Status(env agents.Env, folder, store string) Integrations {
	out := Integrations{MCP: []Installed{}, Hooks: []HookInstalled{}}
	exe, _ := os.Executable()
	server := Server{Command: exe, Store: store, Getenv: os.Getenv}
	for _, a := range agents.All() {
		if in, err := MCPStatus(a, env, folder, server); err == nil {
			out.MCP = append(out.MCP, in...)
		}
		if store == "" {
			continue
		}
		if in, err := HooksStatus(a, env, folder, PluginDir(store)); err == nil {
			out.Hooks = append(out.Hooks, in...)
		}
	}
	return out
}
