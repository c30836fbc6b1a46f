// Package copilotcli is what compactd knows of GitHub Copilot CLI (codec:
// compaction/format/copilotcli).
package copilotcli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/sourcefile"
)

func init() { agents.Register(Agent) }

// Agent is GitHub Copilot CLI: every project's sessions in
// session-state/<id>/events.jsonl, a session belonging to the workspace
// when it started in a workspace folder.
var Agent = &agents.Agent{
	Name: "copilot-cli", Setting: "copilot_cli", Command: "copilot", Vars: []string{HomeVar}, Label: "GitHub Copilot CLI",
	Formats: []transcript.Format{transcript.FormatCopilotCLI},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		return agents.Shared(folders, SessionsDir(env))
	},
	Session: agents.StartedIn(func(base string) bool { return base == "events.jsonl" }, Cwd),
}

// HomeVar moves Copilot CLI's folder.
const HomeVar = "COPILOT_HOME"

// SessionsDir holds Copilot CLI's sessions: $COPILOT_HOME (else
// ~/.copilot)/session-state.
func SessionsDir(env agents.Env) string {
	return filepath.Join(env.Or(env.Var(HomeVar), ".copilot"), "session-state")
}

// Cwd returns the folder a session started in: its session.start event's
// context.cwd, else workspace.yaml's cwd.
func Cwd(events string) (string, bool) {
	if f, err := sourcefile.OpenRegular(events); err == nil { // never blocks on a pipe
		defer f.Close()
		r := bufio.NewReaderSize(f, 64<<10)
		for range 5 {
			line, err := r.ReadSlice('\n')
			if len(line) == 0 && err != nil {
				break
			}
			var ev struct {
				Type string `json:"type"`
				Data struct {
					Context struct {
						Cwd string `json:"cwd"`
					} `json:"context"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &ev) == nil && ev.Type == "session.start" && ev.Data.Context.Cwd != "" {
				return ev.Data.Context.Cwd, true
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(events), "workspace.yaml"))
	if err != nil {
		return "", false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "cwd:"); ok {
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			return v, v != ""
		}
	}
	return "", false
}
