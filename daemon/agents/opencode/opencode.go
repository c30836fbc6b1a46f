// Package opencode is what compactd knows of opencode and of the agents
// built from it (Kilo Code: daemon/agents/kilo). Codec:
// compaction/format/opencode.
package opencode

import (
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() { agents.Register(Agent) }

// Agent is opencode.
var Agent = New("opencode", transcript.FormatOpenCode)

// New describes an agent of opencode's family named name: every project's
// sessions in one SQLite database, $XDG_DATA_HOME/<name>/<name>.db, which
// compactd only reads (the daemon renders the workspace's sessions as the
// agent's export); a fork is an export the agent imports.
func New(name string, f transcript.Format) *agents.Agent {
	a := &agents.Agent{
		Name: name, Setting: name, Command: name, Imports: true,
		// The agents' own offline switches: an import needs no network.
		ImportEnv: importEnv(name),
		Formats:   []transcript.Format{f},
		Roots: func(env agents.Env, folders []string) []agents.Root {
			if len(folders) == 0 {
				return nil
			}
			db := Database(env, name)
			return []agents.Root{{Dir: filepath.Dir(db), Database: db, Scope: filepath.Join(env.SessionsDir(), name)}}
		},
		Everywhere: func(env agents.Env) []agents.Root {
			db := Database(env, name)
			return []agents.Root{{Dir: filepath.Dir(db), Database: db, Scope: filepath.Join(env.SessionsDir(), name)}}
		},
		Resume: func(fork, session string) string {
			return name + " import " + agents.ShellQuote(fork) + " && " + name + " --session " + agents.ShellQuote(session)
		},
		ResumeImported: func(session string) string { return name + " --session " + agents.ShellQuote(session) },
		Label:          labels[name],
	}
	a.Handoff = handoffOf(a, name)
	return a
}

// labels name the agents of the family as users know them.
var labels = map[string]string{"opencode": "opencode", "kilo": "Kilo Code"}

// importEnv turns off the agent's update check (opencode's switch, which
// the agents built from it keep, and their own).
func importEnv(name string) []string {
	env := []string{"npm_config_offline=true", "OPENCODE_DISABLE_AUTOUPDATE=1"}
	if name != "opencode" {
		env = append(env, strings.ToUpper(name)+"_DISABLE_AUTOUPDATE=1")
	}
	return env
}

// Database is where an agent of the family keeps its sessions.
func Database(env agents.Env, name string) string {
	return filepath.Join(env.DataDir(), name, name+".db")
}
