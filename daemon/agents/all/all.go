// Package all registers every agent: import it for its side effects
// wherever the registry (agents.All) must know them all. Adding an agent
// is its folder under daemon/agents plus one line here.
package all

import (
	_ "github.com/compactd/compactd/daemon/agents/claude"      // Claude Code
	_ "github.com/compactd/compactd/daemon/agents/codex"       // Codex CLI
	_ "github.com/compactd/compactd/daemon/agents/copilotchat" // GitHub Copilot Chat (VS Code)
	_ "github.com/compactd/compactd/daemon/agents/copilotcli"  // GitHub Copilot CLI
	_ "github.com/compactd/compactd/daemon/agents/cursor"      // Cursor's agent
	_ "github.com/compactd/compactd/daemon/agents/gemini"      // Gemini CLI
	_ "github.com/compactd/compactd/daemon/agents/kilo"        // Kilo Code
	_ "github.com/compactd/compactd/daemon/agents/opencode"    // opencode
	_ "github.com/compactd/compactd/daemon/agents/qwen"        // Qwen Code
)
