package codex

import (
	"os"
	"path/filepath"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() {
	Agent.Label = "Codex CLI"
	Agent.Handoff = &agents.Handoff{
		Format: transcript.FormatCodex,
		Tools:  Tools,
		NewID:  agents.UUID7,
		// Codex finds a rollout by its id in its dated tree.
		Path: func(env agents.Env, _, session string, now time.Time) string {
			return filepath.Join(SessionsDir(env), now.Format("2006"), now.Format("01"), now.Format("02"), Agent.ForkName("", session, now))
		},
		Model:  model,
		Images: true,
		Resume: func(session string) string { return "codex resume " + agents.ShellQuote(session) },
	}
}

// Tools are Codex's tools that have equivalents, as 0.169 declares them
// (exec_command, apply_patch as a freeform tool) and as earlier versions
// logged them (shell, shell_command). It has no read or search tool: it
// reads and searches through the shell.
var Tools = handoff.Tools{
	{Name: "exec_command", Action: handoff.Shell, Params: map[string]string{handoff.ArgCommand: "cmd"}, Workdir: "workdir",
		Ignore:  []string{"justification", "max_output_tokens", "yield_time_ms", "shell", "login", "prefix_rule"},
		Default: map[string]any{"tty": false, "sandbox_permissions": "use_default"}},
	{Name: "apply_patch", Action: handoff.Edit, Patch: true, Freeform: true},
	{Name: "shell", Action: handoff.Shell, Argv: true, Params: map[string]string{handoff.ArgCommand: "command"}, Workdir: "workdir",
		Ignore: []string{"timeout_ms", "justification"}},
	{Name: "shell_command", Action: handoff.Shell, Params: map[string]string{handoff.ArgCommand: "command"}, Workdir: "workdir",
		Ignore: []string{"timeout_ms", "justification", "login"}},
}

// defaultModel is the model a new rollout names when config.toml names
// none.
const defaultModel = "gpt-5.5"

// model is the one Codex's config.toml chooses, else defaultModel.
func model(env agents.Env) string {
	var c struct {
		Model string `toml:"model"`
	}
	if b, err := os.ReadFile(filepath.Join(Home(env), "config.toml")); err == nil && toml.Unmarshal(b, &c) == nil && c.Model != "" {
		return c.Model
	}
	return defaultModel
}
