// Package agents is what compactd knows of each coding agent, one folder
// per agent (daemon/agents/claude, daemon/agents/codex, …) beside its codec
// in compaction/format/<name>: where the agent keeps its sessions on each
// OS, which of the files there are sessions of the workspace, the command
// that resumes a fork, and the places the next features fill in (the
// agent's own compaction threshold, its hooks and its MCP configuration).
//
// Each agent registers itself in init; daemon/agents/all imports every one,
// so adding an agent is its folder plus one line there (ARCHITECTURE.md).
// The daemon, the configuration's [watch] switches and the jobs iterate
// the registry; none of them names an agent.
//
// It must not import the daemon, its config or lsp.
package agents

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/compactd/compactd/compaction/transcript"
)

// An Agent is everything compactd knows of one agent.
type Agent struct {
	// Name is the agent's name in the registry, health reports and logs
	// ("claude", "copilot-cli").
	Name string
	// Setting is its switch in .compactd.toml's [watch] ("copilot_cli");
	// editors send the camelCase form ("copilotCli"). Off stops watching
	// the agent's own folders; its files in the workspace are still read.
	Setting string
	// Formats are the transcript formats of its sessions (its codecs).
	Formats []transcript.Format

	// Roots lists where its sessions of the workspace folders live. Env
	// says on which OS and under which home (issue 26 adds the macOS and
	// Windows layouts where they differ). It may read the disk (VS Code's
	// workspaceStorage): the daemon calls it when folders or settings
	// change, not per event.
	Roots func(env Env, folders []string) []Root
	// Session reports whether path, found under one of its roots, is one
	// of its sessions of the folders (by its name, and for agents that
	// keep every project together, by the folder the session started in).
	// nil accepts every file under a root.
	Session func(path string, folders []string) bool

	// Command is the agent's executable.
	Command string
	// Resume is the shell command, run in the session's folder, that
	// resumes fork (whose session id is session); nil when the agent finds
	// the fork in its own session list.
	Resume func(fork, session string) string
	// Imports says the agent keeps sessions in a database compactd never
	// writes: a fork is an export the agent imports (Command import FILE).
	Imports bool

	// Threshold is where the agent's own auto-compaction threshold is
	// configured (issue 24); nil until known.
	Threshold *Threshold
	// Hooks is how compactd installs itself as the agent's compaction
	// (issue 25); nil until supported.
	Hooks *Hooks
	// MCP is where the agent reads MCP servers, so it can recall what a
	// compaction dropped (issue 25); nil until supported.
	MCP *MCP
}

// A Root is one folder an agent's sessions live in.
type Root struct {
	Dir string
	// Database names the SQLite database in Dir that holds the sessions:
	// the folder is never walked (opencode keeps git clones beside its
	// database) and the sessions are rendered by the daemon.
	Database string
	// Scope is the folder commands may write forks in for this root when
	// it is wider than Dir ("" is Dir).
	Scope string
}

// Threshold is the agent's own auto-compaction trigger and where the
// agent reads it (issue 24 fills it in per agent).
type Threshold struct {
	// Setting names the agent's configuration key ("autoCompactThreshold").
	Setting string
	// Files are the agent's configuration files that may set it.
	Files func(env Env) []string
	// Default is the agent's built-in trigger, as a fraction of the window
	// (0 when it is a token count or unknown).
	Default float64
}

// Hooks are the agent's hook configuration (issue 25).
type Hooks struct {
	// Files are the agent's settings files that hold its hooks.
	Files func(env Env) []string
}

// MCP is the agent's MCP server configuration (issue 25).
type MCP struct {
	// Files are the agent's files that list MCP servers.
	Files func(env Env) []string
}

// ClientSetting is the agent's switch as editors send it: Setting in
// camelCase ("copilot_cli" → "copilotCli").
func (a *Agent) ClientSetting() string {
	parts := strings.Split(a.Setting, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// HasFormat reports whether f is one of the agent's formats.
func (a *Agent) HasFormat(f transcript.Format) bool { return slices.Contains(a.Formats, f) }

var (
	mu       sync.RWMutex
	registry []*Agent
)

// Register adds an agent; its folder calls it from init. Names and
// settings are unique.
func Register(a *Agent) {
	mu.Lock()
	defer mu.Unlock()
	if a.Name == "" || a.Setting == "" || a.Roots == nil {
		panic(fmt.Sprintf("agents: %q needs a name, a setting and its roots", a.Name))
	}
	for _, b := range registry {
		if b.Name == a.Name || b.Setting == a.Setting {
			panic(fmt.Sprintf("agents: %q registered twice", a.Name))
		}
	}
	registry = append(registry, a)
	slices.SortFunc(registry, func(x, y *Agent) int { return strings.Compare(x.Name, y.Name) })
}

// All returns the registered agents, by name.
func All() []*Agent {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(registry)
}

// ByFormat returns the agent whose sessions are in format f, nil if none.
func ByFormat(f transcript.Format) *Agent {
	for _, a := range All() {
		if a.HasFormat(f) {
			return a
		}
	}
	return nil
}

// Within reports whether path is dir or inside it.
func Within(path, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// InFolders reports whether dir is one of folders or inside one.
func InFolders(dir string, folders []string) bool {
	dir = filepath.Clean(dir)
	for _, f := range folders {
		if Within(dir, f) {
			return true
		}
	}
	return false
}

// PerFolder returns one root a folder, dir(folder).
func PerFolder(folders []string, dir func(folder string) string) []Root {
	out := make([]Root, 0, len(folders))
	for _, f := range folders {
		out = append(out, Root{Dir: dir(f)})
	}
	return out
}

// Shared is the one root of an agent that keeps every project's sessions
// together: none while there is no workspace folder to filter them by.
func Shared(folders []string, dir string) []Root {
	if len(folders) == 0 {
		return nil
	}
	return []Root{{Dir: dir}}
}

// Slug is the folder name Claude Code and Qwen Code give a project: the
// absolute path with every character but ASCII letters and digits as '-'.
func Slug(abs string) string {
	// Claude Code computes it in JavaScript (2.1.330: path.replace(
	// /[^a-zA-Z0-9]/g, "-")), one '-' per UTF-16 code unit: "é" is one,
	// an emoji two. Past 200 units it keeps the first 200 and appends the
	// base-36 absolute value of the path's Java-style string hash, which
	// long Windows paths reach.
	units := utf16.Encode([]rune(abs))
	b := make([]byte, len(units))
	var hash int32
	for i, c := range units {
		hash = hash<<5 - hash + int32(c)
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b[i] = byte(c)
		} else {
			b[i] = '-'
		}
	}
	const maxSlug = 200
	if len(b) <= maxSlug {
		return string(b)
	}
	h := int64(hash)
	if h < 0 {
		h = -h
	}
	return string(b[:maxSlug]) + "-" + strconv.FormatInt(h, 36)
}

// JSONL reports whether path is a plain (not compressed) .jsonl file.
func JSONL(path string) bool { return strings.EqualFold(filepath.Ext(path), ".jsonl") }

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FileURIPath returns the path a file:// URI names, as the OS that wrote
// it spells it: VS Code on Windows writes file:///c%3A/Users/ada/calc for
// C:\Users\ada\calc, which comes back with its drive letter and
// backslashes whatever OS reads it.
func FileURIPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	p := u.Path
	if isDrivePath(strings.TrimPrefix(p, "/")) {
		return strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", `\`), true
	}
	if u.Host != "" && u.Host != "localhost" { // a UNC path: file://server/share/x
		return `\\` + u.Host + strings.ReplaceAll(p, "/", `\`), true
	}
	return filepath.Clean(filepath.FromSlash(p)), p != ""
}

// isDrivePath reports whether p starts with a Windows drive ("C:", "c:/").
func isDrivePath(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z') &&
		(len(p) == 2 || p[2] == '/' || p[2] == '\\')
}

// SamePath reports whether a and b name the same folder or file: on
// Windows regardless of case and of / or \ (filepath.Rel knows both).
func SamePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	rel, err := filepath.Rel(a, b)
	return err == nil && rel == "."
}
