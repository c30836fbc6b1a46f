package qwen

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
	Agent.Label = "Qwen Code"
	Agent.Handoff = &agents.Handoff{
		Format: transcript.FormatQwenCode,
		Tools:  Tools,
		NewID:  func(time.Time) string { return agents.UUID4() },
		Path: func(env agents.Env, cwd, session string, _ time.Time) string {
			return filepath.Join(ProjectDir(env, cwd), session+".jsonl")
		},
		Model:  model,
		Images: true,
		Resume: func(session string) string { return "qwen --resume " + agents.ShellQuote(session) },
	}
}

// Tools are Qwen Code's tools that have equivalents, as 0.24.4 declares
// them.
var Tools = handoff.Tools{
	{Name: "read_file", Action: handoff.Read, Params: map[string]string{handoff.ArgPath: "file_path"}},
	{Name: "write_file", Action: handoff.Write, Params: map[string]string{handoff.ArgPath: "file_path", handoff.ArgContent: "content"},
		Default: map[string]any{"record_as_artifact": false}},
	{Name: "edit", Action: handoff.Edit, Params: map[string]string{handoff.ArgPath: "file_path", handoff.ArgOld: "old_string", handoff.ArgNew: "new_string"},
		Default: map[string]any{"replace_all": false}},
	{Name: "run_shell_command", Action: handoff.Shell, Params: map[string]string{handoff.ArgCommand: "command"}, Workdir: "directory",
		Ignore: []string{"description", "timeout"}, Default: map[string]any{"is_background": false}},
	{Name: "grep_search", Action: handoff.Search, Params: map[string]string{handoff.ArgPattern: "pattern", handoff.ArgPath: "path"}, Ignore: []string{"limit"}},
}

// defaultModel is the model a new session names when neither the
// settings nor OPENAI_MODEL name one.
const defaultModel = "qwen3-coder-plus"

// model is the one Qwen Code's user settings choose, else defaultModel.
func model(env agents.Env) string {
	var s struct {
		Model struct {
			Name string `json:"name"`
		} `json:"model"`
	}
	if b, err := os.ReadFile(filepath.Join(env.Home, ".qwen", "settings.json")); err == nil && json.Unmarshal(b, &s) == nil && s.Model.Name != "" {
		return s.Model.Name
	}
	return defaultModel
}
