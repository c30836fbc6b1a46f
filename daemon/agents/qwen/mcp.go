package qwen

import (
	"path/filepath"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/gemini"
)

func init() {
	Agent.MCP = &agents.MCP{
		User:    func(env agents.Env) string { return filepath.Join(env.Home, ".qwen", "settings.json") },
		Project: func(folder string) string { return filepath.Join(folder, ".qwen", "settings.json") },
		Key:     []string{"mcpServers"},
		// Qwen Code is a fork of Gemini CLI and reads the same entry.
		Entry: gemini.Entry,
	}
}
