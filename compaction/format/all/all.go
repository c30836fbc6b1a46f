// Package all registers every transcript codec: import it for its side
// effects wherever format.Detect must know all formats.
package all

import (
	_ "github.com/compactd/compactd/compaction/format/aider"           // Aider .aider.chat.history.md
	_ "github.com/compactd/compactd/compaction/format/anthropic"       // Anthropic Messages requests / arrays
	_ "github.com/compactd/compactd/compaction/format/claude"          // Claude Code session JSONL
	_ "github.com/compactd/compactd/compaction/format/cline"           // Cline / Roo Code api_conversation_history.json
	_ "github.com/compactd/compactd/compaction/format/codex"           // Codex CLI rollout JSONL
	_ "github.com/compactd/compactd/compaction/format/copilotchat"     // VS Code Copilot Chat chatSessions
	_ "github.com/compactd/compactd/compaction/format/copilotcli"      // GitHub Copilot CLI events.jsonl
	_ "github.com/compactd/compactd/compaction/format/cursor"          // Cursor agent transcripts
	_ "github.com/compactd/compactd/compaction/format/gemini"          // Gemini CLI recordings and checkpoints
	_ "github.com/compactd/compactd/compaction/format/jp"              // jp events.json
	_ "github.com/compactd/compactd/compaction/format/openaichat"      // OpenAI Chat Completions message arrays
	_ "github.com/compactd/compactd/compaction/format/openairesponses" // OpenAI Responses input items
	_ "github.com/compactd/compactd/compaction/format/opencode"        // opencode and Kilo Code session exports (and database sessions rendered as such)
	_ "github.com/compactd/compactd/compaction/format/qwen"            // Qwen Code session JSONL
)
