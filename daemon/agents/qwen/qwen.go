// Package qwen is what compactd knows of Qwen Code (codec:
// compaction/format/qwen).
package qwen

import (
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() { agents.Register(Agent) }

// Agent is Qwen Code.
var Agent = &agents.Agent{
	Name: "qwen", Setting: "qwen", Command: "qwen",
	Formats: []transcript.Format{transcript.FormatQwenCode},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		return agents.PerFolder(folders, func(f string) string { return ProjectDir(env, f) })
	},
	// Under Everywhere's root, only the chats folders hold sessions.
	Session: func(path string, _ []string) bool {
		return agents.JSONL(path) && filepath.Base(filepath.Dir(path)) == "chats"
	},
	Everywhere: func(env agents.Env) []agents.Root {
		return []agents.Root{{Dir: filepath.Join(env.Home, ".qwen", "projects")}}
	},
	// qwen --resume finds a session by its id: <id>.jsonl of the chats
	// folder.
	ForkName:  func(_, session string, _ time.Time) string { return session + ".jsonl" },
	Resume:    func(_, session string) string { return "qwen --resume " + agents.ShellQuote(session) },
	Threshold: threshold,
}

// ProjectDir is where Qwen Code keeps the sessions of folder:
// ~/.qwen/projects/<slug of the folder>/chats.
func ProjectDir(env agents.Env, folder string) string {
	return filepath.Join(env.Home, ".qwen", "projects", agents.Slug(folder), "chats")
}
