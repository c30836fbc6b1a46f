package gemini

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
	Agent.Label = "Gemini CLI"
	Agent.Handoff = &agents.Handoff{
		Format: transcript.FormatGeminiCLI,
		Tools:  Tools,
		NewID:  func(time.Time) string { return agents.UUID4() },
		Path: func(env agents.Env, cwd, session string, now time.Time) string {
			return filepath.Join(chatsDir(env, cwd), "session-"+now.UTC().Format("2006-01-02T15-04")+"-"+session[:8]+".jsonl")
		},
		Model:  model,
		Images: true,
		Resume: func(session string) string { return "gemini --resume " + agents.ShellQuote(session) },
	}
}

// Tools are Gemini CLI's tools that have equivalents, as 0.61 declares
// them; replace requires an instruction, which a carried edit states.
var Tools = handoff.Tools{
	{Name: "read_file", Action: handoff.Read, Params: map[string]string{handoff.ArgPath: "file_path"}},
	{Name: "write_file", Action: handoff.Write, Params: map[string]string{handoff.ArgPath: "file_path", handoff.ArgContent: "content"}},
	{Name: "replace", Action: handoff.Edit, Params: map[string]string{handoff.ArgPath: "file_path", handoff.ArgOld: "old_string", handoff.ArgNew: "new_string"},
		Fixed: map[string]any{"instruction": "Replace the old text with the new text."}, Ignore: []string{"instruction"}, Default: map[string]any{"allow_multiple": false}},
	{Name: "run_shell_command", Action: handoff.Shell, Params: map[string]string{handoff.ArgCommand: "command"}, Workdir: "dir_path",
		Ignore: []string{"description", "delay_ms"}, Default: map[string]any{"is_background": false}},
	{Name: "grep_search", Action: handoff.Search, Params: map[string]string{handoff.ArgPattern: "pattern", handoff.ArgPath: "dir_path"}},
}

// chatsDir is where Gemini CLI keeps the sessions of folder cwd: under
// the short name ~/.gemini/projects.json gives it, else under the
// folder's hash, the layout before 0.40, which Gemini CLI moves to the
// short name the first time it starts there.
func chatsDir(env agents.Env, cwd string) string {
	tmp := filepath.Join(env.Home, ".gemini", "tmp")
	var p struct {
		Projects map[string]string `json:"projects"`
	}
	if b, err := os.ReadFile(filepath.Join(env.Home, ".gemini", "projects.json")); err == nil && json.Unmarshal(b, &p) == nil {
		if name := p.Projects[cwd]; name != "" {
			return filepath.Join(tmp, name, "chats")
		}
	}
	return filepath.Join(tmp, ProjectHash(cwd), "chats")
}

// defaultModel is the model a new session names when the settings name
// none.
const defaultModel = "gemini-2.5-pro"

// model is the one Gemini CLI's user settings choose, else defaultModel.
func model(env agents.Env) string {
	var s struct {
		Model struct {
			Name string `json:"name"`
		} `json:"model"`
	}
	if b, err := os.ReadFile(filepath.Join(env.Home, ".gemini", "settings.json")); err == nil && json.Unmarshal(b, &s) == nil && s.Model.Name != "" {
		return s.Model.Name
	}
	return defaultModel
}
