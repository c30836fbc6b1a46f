// Package cursor is what compactd knows of Cursor's agent (codec:
// compaction/format/cursor).
package cursor

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() { agents.Register(Agent) }

// Agent is Cursor's agent (the CLI and the editor's agent share the
// transcripts).
var Agent = &agents.Agent{
	Name: "cursor", Setting: "cursor", Command: "cursor-agent", Label: "Cursor",
	Formats: []transcript.Format{transcript.FormatCursorAgent},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		out := make([]agents.Root, 0, len(folders))
		for _, f := range folders {
			project := ProjectDir(env, f)
			out = append(out, agents.Root{Dir: filepath.Join(project, "agent-transcripts"), Scope: project})
		}
		return out
	},
	// Under Everywhere's root, only the agent-transcripts folders hold
	// sessions.
	Session: func(path string, _ []string) bool {
		return agents.JSONL(path) && slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "agent-transcripts")
	},
	Everywhere: func(env agents.Env) []agents.Root {
		return []agents.Root{{Dir: filepath.Join(env.Home, ".cursor", "projects")}}
	},
}

// ProjectDir is Cursor's folder for a project: ~/.cursor/projects/<the
// path without its leading separator, every character but letters and
// digits as '-'>; its agent-transcripts/<id>/<id>.jsonl are the sessions.
func ProjectDir(env agents.Env, folder string) string {
	return filepath.Join(env.Home, ".cursor", "projects", strings.TrimLeft(agents.Slug(folder), "-"))
}
