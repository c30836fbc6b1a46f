// Package claude is what compactd knows of Claude Code (codec:
// compaction/format/claude).
package claude

import (
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() { agents.Register(Agent) }

// Agent is Claude Code.
var Agent = &agents.Agent{
	Name: "claude", Setting: "claude", Command: "claude", Vars: []string{ConfigDirVar},
	Formats: []transcript.Format{transcript.FormatClaudeCode},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		return agents.PerFolder(folders, func(f string) string { return ProjectDir(env, f) })
	},
	Session: func(path string, _ []string) bool { return agents.JSONL(path) },
	Everywhere: func(env agents.Env) []agents.Root {
		return []agents.Root{{Dir: filepath.Join(ConfigDir(env), "projects")}}
	},
	// claude --resume finds a session by its id: <id>.jsonl of the
	// project folder.
	ForkName:  func(_, session string, _ time.Time) string { return session + ".jsonl" },
	Resume:    func(_, session string) string { return "claude --resume " + agents.ShellQuote(session) },
	Threshold: threshold,
}

// ConfigDirVar moves Claude Code's folder.
const ConfigDirVar = "CLAUDE_CONFIG_DIR"

// ConfigDir is Claude Code's folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func ConfigDir(env agents.Env) string { return env.Or(env.Var(ConfigDirVar), ".claude") }

// ProjectDir is where Claude Code keeps the sessions of folder:
// ConfigDir/projects/<slug of the folder>.
func ProjectDir(env agents.Env, folder string) string {
	return filepath.Join(ConfigDir(env), "projects", agents.Slug(folder))
}
