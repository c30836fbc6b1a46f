// Package claude is what compactd knows of Claude Code (codec:
// compaction/format/claude).
package claude

import (
	"path/filepath"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() { agents.Register(Agent) }

// Agent is Claude Code.
var Agent = &agents.Agent{
	Name: "claude", Setting: "claude", Command: "claude",
	Formats: []transcript.Format{transcript.FormatClaudeCode},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		return agents.PerFolder(folders, func(f string) string { return ProjectDir(env, f) })
	},
	Session:   func(path string, _ []string) bool { return agents.JSONL(path) },
	Resume:    func(_, session string) string { return "claude --resume " + agents.ShellQuote(session) },
	Threshold: threshold,
}

// ProjectDir is where Claude Code keeps the sessions of folder:
// $CLAUDE_CONFIG_DIR (else ~/.claude)/projects/<slug of the folder>.
func ProjectDir(env agents.Env, folder string) string {
	return filepath.Join(env.Or(env.ClaudeConfigDir, ".claude"), "projects", agents.Slug(folder))
}
