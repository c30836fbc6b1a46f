// Package codex is what compactd knows of Codex CLI (codec:
// compaction/format/codex).
package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() { agents.Register(Agent) }

// Agent is Codex CLI. It keeps every project's rollouts in one dated tree,
// some compressed (rollout-….jsonl.zst); a rollout belongs to the
// workspace when its session_meta's cwd is in a workspace folder.
var Agent = &agents.Agent{
	Name: "codex", Setting: "codex", Command: "codex", Vars: []string{HomeVar},
	Formats: []transcript.Format{transcript.FormatCodex},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		return agents.Shared(folders, SessionsDir(env))
	},
	Everywhere: func(env agents.Env) []agents.Root { return []agents.Root{{Dir: SessionsDir(env)}} },
	Session:    agents.StartedIn(func(base string) bool { return strings.HasPrefix(base, "rollout-") && agents.JSONL(base) }, Cwd),
	// Codex lists rollout-*.jsonl files of its dated tree.
	ForkName: func(_, session string, now time.Time) string {
		return "rollout-" + now.Format("2006-01-02T15-04-05") + "-" + session + ".jsonl"
	},
	Threshold: threshold,
}

// HomeVar moves Codex's folder.
const HomeVar = "CODEX_HOME"

// Home is Codex's folder: $CODEX_HOME, else ~/.codex.
func Home(env agents.Env) string { return env.Or(env.Var(HomeVar), ".codex") }

// SessionsDir holds every Codex rollout, of every project:
// Home/sessions.
func SessionsDir(env agents.Env) string {
	return filepath.Join(Home(env), "sessions")
}

// Cwd returns the cwd a rollout's session_meta (its first line) names.
func Cwd(path string) (string, bool) {
	line, ok := agents.FirstLine(path)
	if !ok {
		return "", false
	}
	var rec struct {
		Type    string `json:"type"`
		Cwd     string `json:"cwd"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return "", false
	}
	if rec.Payload.Cwd != "" {
		return rec.Payload.Cwd, true
	}
	return rec.Cwd, rec.Cwd != ""
}
