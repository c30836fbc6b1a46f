package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() {
	Agent.Label = "Claude Code"
	Agent.Handoff = &agents.Handoff{
		Format: transcript.FormatClaudeCode,
		Tools:  Tools,
		NewID:  func(time.Time) string { return agents.UUID4() },
		// claude --resume finds a session by its id in the project's folder.
		Path: func(env agents.Env, cwd, session string, _ time.Time) string {
			return filepath.Join(ProjectDir(env, cwd), session+".jsonl")
		},
		Model:  model,
		Images: true,
		Resume: func(session string) string { return "claude --resume " + agents.ShellQuote(session) },
	}
}

// Tools are Claude Code's tools that have equivalents, as 2.1.330 declares
// them (it has no search tool of its own in -p: it greps through Bash).
var Tools = handoff.Tools{
	{Name: "Read", Action: handoff.Read, Params: map[string]string{handoff.ArgPath: "file_path"}},
	{Name: "Write", Action: handoff.Write, Params: map[string]string{handoff.ArgPath: "file_path", handoff.ArgContent: "content"}},
	{Name: "Edit", Action: handoff.Edit, Params: map[string]string{handoff.ArgPath: "file_path", handoff.ArgOld: "old_string", handoff.ArgNew: "new_string"},
		Default: map[string]any{"replace_all": false}},
	{Name: "Bash", Action: handoff.Shell, Params: map[string]string{handoff.ArgCommand: "command"},
		Ignore: []string{"description", "timeout"}, Default: map[string]any{"run_in_background": false, "dangerouslyDisableSandbox": false}},
	{Name: "Grep", Action: handoff.Search, Params: map[string]string{handoff.ArgPattern: "pattern", handoff.ArgPath: "path"}},
}

// defaultModel is the model a new session names when the settings name
// none.
const defaultModel = "claude-sonnet-4-6"

// model is the one Claude Code's user settings choose, else defaultModel.
func model(env agents.Env) string {
	var s struct {
		Model string `json:"model"`
	}
	if b, err := os.ReadFile(filepath.Join(ConfigDir(env), "settings.json")); err == nil && json.Unmarshal(b, &s) == nil && s.Model != "" {
		return s.Model
	}
	return defaultModel
}
