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
// It must not import the daemon, its config or lsp (sourcefile, which reads
// transcripts safely, is all it uses of the daemon).
package agents

import (
	"bufio"
	"crypto/rand"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// An Agent is everything compactd knows of one agent.
//
// Its fields are everything compactd knows of one agent, each asked by one part (roots, sessions,
// forks, resume, threshold, hooks, MCP): the registry's one record per agent, hence more than a
// dozen.
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
	// says on which OS and under which home (the macOS and Windows
	// layouts where they differ). It may read the disk (VS Code's
	// workspaceStorage): the daemon calls it when folders or settings
	// change, not per event.
	Roots func(env Env, folders []string) []Root
	// Session reports whether path, found under one of its roots, is one
	// of its sessions of the folders (by its name, and for agents that
	// keep every project together, by the folder the session started in);
	// with folders nil, whether it is one of its sessions of any folder
	// (found under Everywhere). nil accepts every file under a root.
	Session func(path string, folders []string) bool
	// Everywhere lists where its sessions of every project live: what
	// `compactd search` reads, whichever folder the user works in. nil
	// when the agent keeps none of its own (its files are found in the
	// workspace).
	Everywhere func(env Env) []Root

	// Vars are the environment variables that move the agent's folders
	// ($CLAUDE_CONFIG_DIR): EnvFromOS reads them into Env.Vars.
	Vars []string

	// Command is the agent's executable.
	Command string
	// ForkName names a fork of the session at src (its plain name) so the
	// agent lists it among its sessions, given the fork's session id and
	// the time it is written; "" (or nil) names it beside src as
	// <name>.compactd-<version>.<ext>, which the agents that find a
	// session by its path resume.
	ForkName func(src, session string, now time.Time) string
	// Resume is the shell command, run in the session's folder, that
	// resumes fork (whose session id is session); nil when the agent finds
	// the fork in its own session list.
	Resume func(fork, session string) string
	// Imports says the agent keeps sessions in a database compactd never
	// writes: a fork is an export the agent imports (Command import FILE,
	// run in the session's folder with ImportEnv added to the
	// environment), and ResumeImported(session) resumes it once imported.
	Imports        bool
	ImportEnv      []string
	ResumeImported func(session string) string
	// Protect keeps the agent's own cleanup from deleting a session
	// compactd forked or wrote: Gemini CLI deletes a session with the
	// stubs its --resume leaves beside it when any other session starts.
	// path is a file of the agent's that changed (or a session forked);
	// known reports whether compactd forked or wrote a session file. It
	// removes what holds nothing of the conversation and returns notes for
	// the user, naming what it could not remove. nil for agents that need
	// nothing.
	Protect func(path string, known func(session string) bool) []string

	// Cwd finds the folder a session at path ran in when its transcript
	// does not record it (Gemini CLI names the project only by a hash);
	// nil when transcripts always do.
	Cwd func(env Env, path string) string
	// Threshold computes where the agent compacts by itself, reading its
	// settings and environment as the agent does (threshold.go); nil when
	// compactd does not know how this agent decides.
	Threshold Threshold
	// Hooks is where compactd hooks into the agent's own compaction; nil
	// when it cannot.
	Hooks *Hooks
	// MCP is where the agent reads MCP servers, so it can recall what a
	// compaction dropped; nil when it reads none.
	MCP *MCP

	// Label is the agent's name as users know it ("Claude Code").
	Label string
	// Handoff is how a conversation from another agent becomes a new
	// session of this one (compactd handoff); nil when compactd cannot
	// start one.
	Handoff *Handoff
}

// Handoff is what compactd needs to start a session of an agent with a
// conversation from another: the format and place of a new session, its
// id rule, the model it names, and its tools that have equivalents.
type Handoff struct {
	// Format is the format a new session is written in.
	Format transcript.Format
	// Tools are the agent's tools that have equivalents in other agents,
	// as the tool definitions it sends its model name them.
	Tools handoff.Tools
	// NewID makes a new session's id.
	NewID func(now time.Time) string
	// Path is where a new session of folder cwd with id session goes, so
	// that the agent finds it (for an agent that Imports, where the export
	// it imports is written).
	Path func(env Env, cwd, session string, now time.Time) string
	// Model is the model a new session names: the one the agent's own
	// settings choose when compactd can read them, else its default.
	Model func(env Env) string
	// Images: the agent sends images in user messages to its model.
	Images bool
	// Resume is the command, run in the session's folder, that resumes
	// the new session (for an agent that Imports, once imported).
	Resume func(session string) string
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

// Hooks is how compactd hooks into the agent's own compaction: the
// settings file that holds its hooks, per scope, and how they are written
// there.
type Hooks struct {
	// User is the user-wide settings file; Project a project folder's
	// ("" when the agent has none).
	User    func(env Env) string
	Project func(folder string) string
	// Kind is how the agent takes hooks.
	Kind HookKind
	// Plugins is the variable of the settings' "env" object the agent
	// reads plugin folders from (HookCommands; "" when it reads none):
	// compactd's plugin folder there makes compactd the agent's
	// compaction.
	Plugins string
}

// A HookKind is how an agent takes compactd's hooks.
type HookKind int

const (
	// HookCommands: a group of shell commands under "hooks"/"PreCompact"
	// in a JSON settings file, run before the agent compacts.
	HookCommands HookKind = iota
	// HookModule: a JavaScript module compactd writes beside its store,
	// named by URL in the config file's "plugin" list.
	HookModule
)

// MCP is where and how the agent reads its MCP servers, so
// `compactd mcp install` can add compactd's (and take it out again).
type MCP struct {
	// User is the user-wide file; Project a project folder's.
	User    func(env Env) string
	Project func(folder string) string
	// Key is the path to the object (table) of servers in the file:
	// ["mcpServers"], Codex's ["mcp_servers"], opencode's ["mcp"].
	Key []string
	// TOML marks a TOML file (Codex); the others are JSON, comments
	// allowed.
	TOML bool
	// Entry is compactd's entry under Key: command and args start its MCP
	// server, env are variables it needs. A JSON file's entry is any value
	// encoding/json writes; a TOML file's an agentconf.TOMLTable.
	Entry func(command string, args []string, env map[string]string) any
	// Env names the variables that locate the agent's sessions, which the
	// entry passes on when they are set: agents start MCP servers with a
	// few variables only.
	Env []string
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

// ByName returns the agent named name ("claude"), nil if none.
func ByName(name string) *Agent {
	for _, a := range All() {
		if a.Name == name {
			return a
		}
	}
	return nil
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

// StartedIn is the Session check of an agent that keeps every project's
// sessions together: a file named like one of its sessions (named gets the
// name without a compression suffix) that started in a workspace folder
// (cwd reads which folder from the session), in any folder when folders
// is nil.
func StartedIn(named func(base string) bool, cwd func(path string) (string, bool)) func(path string, folders []string) bool {
	return func(path string, folders []string) bool {
		if !named(filepath.Base(sourcefile.PlainName(path))) {
			return false
		}
		if folders == nil {
			return true
		}
		dir, ok := cwd(path)
		return ok && InFolders(dir, folders)
	}
}

// FirstLine is the first line of a session (decompressed), up to 4 MiB: a
// session's metadata line carries the system prompt, a few tens of KB.
func FirstLine(path string) ([]byte, bool) {
	f, err := sourcefile.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	line, err := r.ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return nil, false
	}
	if err == bufio.ErrBufferFull {
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull && len(buf) < 4<<20 {
			line, err = r.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
	}
	return line, true
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

// UUID4 is a random RFC 4122 version 4 uuid: the session ids of Claude
// Code, Gemini CLI and Qwen Code.
func UUID4() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// UUID7 is an RFC 9562 version 7 uuid of time now: Codex's session ids,
// which sort by creation.
func UUID7(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[6:])
	ms := uint64(now.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
