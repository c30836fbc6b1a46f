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
	// Vars are the agents' own variables that move their folders
	// ($CLAUDE_CONFIG_DIR, $CODEX_HOME, …: each agent names its own in
	// Agent.Vars), by name; a variable not set is absent.
	Vars map[string]string
	// DataHome is $XDG_DATA_HOME (default ~/.local/share): opencode's and
	// Kilo Code's databases live in it.
	DataHome string
	// StateHome is $XDG_STATE_HOME (default ~/.local/state): compactd
	// renders database sessions under StateHome/compactd/sessions.
	StateHome string
	// ConfigHome is $XDG_CONFIG_HOME (default ~/.config): VS Code keeps
	// Copilot Chat sessions under it.
	ConfigHome string
	// AppData is %APPDATA% on Windows (default ~\AppData\Roaming): VS Code
	// and Cursor keep their user data under it there.
	AppData string
}

// EnvFromOS reads the agents' locations from the process environment.
// The home is what the agents themselves take (Node's os.homedir(), Rust's
// home_dir): $HOME on Unix, %USERPROFILE% on Windows, where a HOME set by
// Git Bash or MSYS is not the agents' home.
func EnvFromOS(getenv func(string) string) Env {
	return envFromOS(getenv, runtime.GOOS)
}

func envFromOS(getenv func(string) string, goos string) Env {
	homeVar := "HOME"
	if goos == "windows" {
		homeVar = "USERPROFILE"
	}
	home := getenv(homeVar)
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	vars := map[string]string{}
	for _, a := range All() {
		for _, v := range a.Vars {
			if x := getenv(v); x != "" {
				vars[v] = x
			}
		}
	}
	return Env{GOOS: goos, Home: home, Vars: vars,
		DataHome: getenv("XDG_DATA_HOME"), StateHome: getenv("XDG_STATE_HOME"), ConfigHome: getenv("XDG_CONFIG_HOME"),
		AppData: getenv("APPDATA")}
}

// Var is the agent's variable name as the environment sets it, "" when
// unset.
func (e Env) Var(name string) string { return e.Vars[name] }

// OS is the OS whose layout applies.
func (e Env) OS() string {
	if e.GOOS != "" {
		return e.GOOS
	}
	return runtime.GOOS
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

// AppDataDir is where desktop applications built on Electron (VS Code,
// Cursor) keep their user data on this OS: %APPDATA% on Windows,
// ~/Library/Application Support on macOS, $XDG_CONFIG_HOME (else
// ~/.config) elsewhere.
func (e Env) AppDataDir() string {
	switch e.OS() {
	case "windows":
		return e.Or(e.AppData, "AppData", "Roaming")
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	}
	return e.ConfigDir()
}

// SessionsDir is where compactd renders the database sessions it shows,
// one file per session: <agent>/<session id>.json. It is compactd's own
// folder; the agents' databases are only ever read.
func (e Env) SessionsDir() string {
	return filepath.Join(e.Or(e.StateHome, ".local", "state"), "compactd", "sessions")
}
