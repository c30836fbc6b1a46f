package agents

import (
	"os"
	"path/filepath"
	"runtime"
)

// Env is where the agents keep their files: the process environment's
// answers, passed explicitly so tests point every agent at a temporary
// home. Empty fields take the agents' defaults under Home.
type Env struct {
	// GOOS is the OS whose layout the agents use ("" is runtime.GOOS).
	GOOS string
	Home string
	// ClaudeConfigDir is $CLAUDE_CONFIG_DIR (default ~/.claude).
	ClaudeConfigDir string
	// CodexHome is $CODEX_HOME (default ~/.codex).
	CodexHome string
	// DataHome is $XDG_DATA_HOME (default ~/.local/share): opencode's and
	// Kilo Code's databases live in it.
	DataHome string
	// StateHome is $XDG_STATE_HOME (default ~/.local/state): compactd
	// renders database sessions under StateHome/compactd/sessions.
	StateHome string
	// ConfigHome is $XDG_CONFIG_HOME (default ~/.config): VS Code keeps
	// Copilot Chat sessions under it.
	ConfigHome string
	// CopilotHome is $COPILOT_HOME (default ~/.copilot).
	CopilotHome string
}

// EnvFromOS reads the agents' locations from the process environment.
func EnvFromOS(getenv func(string) string) Env {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return Env{GOOS: runtime.GOOS, Home: home, ClaudeConfigDir: getenv("CLAUDE_CONFIG_DIR"), CodexHome: getenv("CODEX_HOME"),
		DataHome: getenv("XDG_DATA_HOME"), StateHome: getenv("XDG_STATE_HOME"), ConfigHome: getenv("XDG_CONFIG_HOME"), CopilotHome: getenv("COPILOT_HOME")}
}

// Or returns dir when set, else home/rel...: an agent's folder that an
// environment variable may move.
func (e Env) Or(dir string, rel ...string) string {
	if dir != "" {
		return dir
	}
	return filepath.Join(append([]string{e.Home}, rel...)...)
}

// DataDir is $XDG_DATA_HOME, else ~/.local/share.
func (e Env) DataDir() string { return e.Or(e.DataHome, ".local", "share") }

// ConfigDir is $XDG_CONFIG_HOME, else ~/.config.
func (e Env) ConfigDir() string { return e.Or(e.ConfigHome, ".config") }

// SessionsDir is where compactd renders the database sessions it shows,
// one file per session: <agent>/<session id>.json. It is compactd's own
// folder; the agents' databases are only ever read.
func (e Env) SessionsDir() string {
	return filepath.Join(e.Or(e.StateHome, ".local", "state"), "compactd", "sessions")
}
