package daemon

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/daemon/sourcefile"
)

// ClaudeSlug is Claude Code's folder name for a project: the absolute path
// with every character that is not an ASCII letter or digit replaced by '-'.
func ClaudeSlug(abs string) string {
	b := []byte(abs)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// Env is where the agents keep their files. Empty fields take the agents'
// defaults under Home.
type Env struct {
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
	return Env{Home: home, ClaudeConfigDir: getenv("CLAUDE_CONFIG_DIR"), CodexHome: getenv("CODEX_HOME"),
		DataHome: getenv("XDG_DATA_HOME"), StateHome: getenv("XDG_STATE_HOME"), ConfigHome: getenv("XDG_CONFIG_HOME"), CopilotHome: getenv("COPILOT_HOME")}
}

func (e Env) claudeRoot() string {
	if e.ClaudeConfigDir != "" {
		return e.ClaudeConfigDir
	}
	return filepath.Join(e.Home, ".claude")
}

func (e Env) codexRoot() string {
	if e.CodexHome != "" {
		return e.CodexHome
	}
	return filepath.Join(e.Home, ".codex")
}

// ClaudeProjectDir is where Claude Code keeps the sessions of folder.
func (e Env) ClaudeProjectDir(folder string) string {
	return filepath.Join(e.claudeRoot(), "projects", ClaudeSlug(folder))
}

// CodexSessionsDir holds every Codex rollout, of every project.
func (e Env) CodexSessionsDir() string { return filepath.Join(e.codexRoot(), "sessions") }

// codexCwd returns the cwd a Codex rollout's session_meta names, reading
// only the first line (bounded: session_meta carries the system prompt, a
// few tens of KB).
func codexCwd(path string) (string, bool) {
	f, err := sourcefile.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	line, err := r.ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return "", false
	}
	if err == bufio.ErrBufferFull {
		// A huge first line: read on, up to 4 MiB, to get the whole object.
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull && len(buf) < 4<<20 {
			line, err = r.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
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

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (e Env) dataHome() string {
	if e.DataHome != "" {
		return e.DataHome
	}
	return filepath.Join(e.Home, ".local", "share")
}

func (e Env) configHome() string {
	if e.ConfigHome != "" {
		return e.ConfigHome
	}
	return filepath.Join(e.Home, ".config")
}

// QwenProjectDir is where Qwen Code keeps the sessions of folder: its
// chats folder under ~/.qwen/projects/<folder with every character but
// ASCII letters and digits as '-'>.
func (e Env) QwenProjectDir(folder string) string {
	return filepath.Join(e.Home, ".qwen", "projects", ClaudeSlug(folder), "chats")
}

// AgentDB is where an opencode-family agent ("opencode", "kilo") keeps its
// database: $XDG_DATA_HOME/<agent>/<agent>.db.
func (e Env) AgentDB(agent string) string {
	return filepath.Join(e.dataHome(), agent, agent+".db")
}

// SessionsDir is where compactd renders the database sessions it shows,
// one file per session: <agent>/<session id>.json. It is compactd's own
// folder; the agents' databases are only ever read.
func (e Env) SessionsDir() string {
	state := e.StateHome
	if state == "" {
		state = filepath.Join(e.Home, ".local", "state")
	}
	return filepath.Join(state, "compactd", "sessions")
}

// CopilotSessionsDir holds GitHub Copilot CLI's sessions,
// <id>/events.jsonl.
func (e Env) CopilotSessionsDir() string {
	home := e.CopilotHome
	if home == "" {
		home = filepath.Join(e.Home, ".copilot")
	}
	return filepath.Join(home, "session-state")
}

// CursorProjectsDir holds Cursor's per-project folders, whose
// agent-transcripts/<id>/<id>.jsonl are the agent's sessions.
func (e Env) CursorProjectsDir() string { return filepath.Join(e.Home, ".cursor", "projects") }

// CursorSlug is Cursor's folder name for a project: the path without its
// leading separator, with every character but letters and digits as '-'.
func CursorSlug(abs string) string {
	return strings.TrimLeft(ClaudeSlug(abs), "-")
}

// VSCodeWorkspaceStorage lists the workspaceStorage folders of VS Code and
// its builds (Insiders, VSCodium, code-server) whose chatSessions hold
// Copilot Chat's sessions.
func (e Env) VSCodeWorkspaceStorage() []string {
	var out []string
	for _, app := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor"} {
		out = append(out, filepath.Join(e.configHome(), app, "User", "workspaceStorage"))
	}
	out = append(out, filepath.Join(e.dataHome(), "code-server", "User", "workspaceStorage"))
	return out
}
