// Package copilotcli is what compactd knows of GitHub Copilot CLI (codec:
// compaction/format/copilotcli).
package copilotcli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/sourcefile"
)

func init() { agents.Register(Agent) }

// Agent is GitHub Copilot CLI: every project's sessions in one folder, a
// session belonging to the workspace when it started in a workspace
// folder. Its releases kept them three ways: since 1.0
// session-state/<id>/events.jsonl, from 0.0.343 to 0.0.38x
// session-state/<id>.jsonl, before that
// history-session-state/session_<id>_<ms>.json. The releases before 1.0
// kept that folder under $XDG_STATE_HOME/.copilot when the variable was
// set.
var Agent = &agents.Agent{
	Name: "copilot-cli", Setting: "copilot_cli", Command: "copilot", Vars: []string{HomeVar}, Label: "GitHub Copilot CLI",
	Formats: []transcript.Format{transcript.FormatCopilotCLI},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		var roots []agents.Root
		for _, home := range Homes(env) {
			roots = append(roots, agents.Shared(folders, filepath.Join(home, "session-state"))...)
			roots = append(roots, agents.Shared(folders, filepath.Join(home, "history-session-state"))...)
		}
		return roots
	},
	Session: func(path string, folders []string) bool {
		if !IsSession(path) {
			return false
		}
		if folders == nil {
			return true // a session of any folder (Everywhere)
		}
		dir, ok := Cwd(path)
		return ok && agents.InFolders(dir, folders)
	},
	Everywhere: func(env agents.Env) []agents.Root {
		var roots []agents.Root
		for _, home := range Homes(env) {
			roots = append(roots, agents.Root{Dir: filepath.Join(home, "session-state")}, agents.Root{Dir: filepath.Join(home, "history-session-state")})
		}
		return roots
	},
	ForkName: ForkName,
	// --resume takes a session's id (or its prefix, or its name).
	Resume: func(_, session string) string { return "copilot --resume " + agents.ShellQuote(session) },
}

// ForkName names a fork of the session at src as Copilot CLI lays its
// own sessions out, so it lists and resumes it: since 1.0 a session is a
// folder of session-state named by its id holding events.jsonl (its
// listing takes every such folder; its own /fork makes one with a new
// id), so a fork of session-state/<id>/events.jsonl is
// ../<session>/events.jsonl, a folder beside the source's; in the flat
// layout of 0.0.343 to 0.0.38x it is <session>.jsonl, and before that
// session_<session>_<ms>.json. A file of another name or place is
// forked beside itself ("").
func ForkName(src, session string, now time.Time) string {
	base, dir := filepath.Base(src), filepath.Dir(src)
	switch {
	case base == "events.jsonl" && filepath.Base(filepath.Dir(dir)) == "session-state":
		return filepath.Join("..", session, "events.jsonl")
	case filepath.Base(dir) == "session-state" && strings.HasSuffix(base, ".jsonl"):
		return session + ".jsonl"
	case filepath.Base(dir) == "history-session-state" && legacyName.MatchString(base):
		return fmt.Sprintf("session_%s_%d.json", session, now.UnixMilli())
	}
	return ""
}

// HomeVar moves Copilot CLI's folder.
const HomeVar = "COPILOT_HOME"

// Homes are the folders Copilot CLI keeps its sessions in: $COPILOT_HOME
// (else ~/.copilot), and $XDG_STATE_HOME/.copilot where the releases
// before 1.0 put it when that variable was set.
func Homes(env agents.Env) []string {
	homes := []string{env.Or(env.Var(HomeVar), ".copilot")}
	if env.StateHome != "" {
		if h := filepath.Join(env.StateHome, ".copilot"); h != homes[0] {
			homes = append(homes, h)
		}
	}
	return homes
}

// SessionsDir holds Copilot CLI's sessions: $COPILOT_HOME (else
// ~/.copilot)/session-state.
func SessionsDir(env agents.Env) string {
	return filepath.Join(Homes(env)[0], "session-state")
}

// legacyName is a session file of the releases before 0.0.342, as they
// list them.
var legacyName = regexp.MustCompile(`^session_(.+)_(\d+)\.json$`)

// IsSession reports whether path names a session in one of the layouts:
// an events.jsonl (1.0), a <id>.jsonl right in session-state (0.0.343 to
// 0.0.38x), or a session_<id>_<ms>.json right in history-session-state.
func IsSession(path string) bool {
	base := filepath.Base(sourcefile.PlainName(path))
	switch parent := filepath.Base(filepath.Dir(path)); {
	case base == "events.jsonl":
		return true
	case parent == "session-state":
		return strings.HasSuffix(base, ".jsonl")
	case parent == "history-session-state":
		return legacyName.MatchString(base)
	}
	return false
}

// Cwd returns the folder a session started in: its session.start event's
// context.cwd, else workspace.yaml's cwd. Sessions of the releases before
// 1.0 name neither: for them it is the first absolute path the session's
// tool calls worked on (a file the agent viewed or edited), which lies in
// the folder it ran in.
func Cwd(session string) (string, bool) {
	if dir, ok := startedIn(session); ok {
		return dir, true
	}
	if dir, ok := workspaceYAML(session); ok {
		return dir, true
	}
	return workedOn(session)
}

// startedIn is the context.cwd of a session.start among the first events.
func startedIn(events string) (string, bool) {
	f, err := sourcefile.OpenRegular(events) // never blocks on a pipe
	if err != nil {
		return "", false
	}
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
	return "", false
}

// workspaceYAML is the cwd of the workspace.yaml beside a 1.0 session.
func workspaceYAML(events string) (string, bool) {
	if filepath.Base(events) != "events.jsonl" {
		return "", false
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

// maxScan bounds how much of a session workedOn reads: a session's first
// tool calls come early, and one that named no path by then is not
// attributed.
const maxScan = 4 << 20

// workedOn is the first absolute "path" a tool call of the session names:
// in an event's arguments object, or in a chat message's arguments string.
// It streams the file's JSON values (one document, or one a line) token by
// token.
func workedOn(session string) (string, bool) {
	f, err := sourcefile.OpenRegular(session)
	if err != nil {
		return "", false
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(io.LimitReader(f, maxScan), 64<<10))
	// key is the member the next value belongs to, per open object ("" in
	// an array).
	var keys []string
	inObject := func() bool { return len(keys) > 0 && keys[len(keys)-1] != "\x00array" }
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false // the end, or no JSON past here
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				keys = append(keys, "")
				expectKey = true
				continue
			case '[':
				keys = append(keys, "\x00array")
			case '}', ']':
				if len(keys) > 0 {
					keys = keys[:len(keys)-1]
				}
			}
			expectKey = inObject()
			continue
		case string:
			if inObject() && expectKey {
				keys[len(keys)-1] = v
				expectKey = false
				continue
			}
			if inObject() {
				switch keys[len(keys)-1] {
				case "path":
					if filepath.IsAbs(v) {
						return v, true
					}
				case "arguments":
					var args struct {
						Path string `json:"path"`
					}
					if json.Unmarshal([]byte(v), &args) == nil && filepath.IsAbs(args.Path) {
						return args.Path, true
					}
				}
			}
		}
		expectKey = inObject()
	}
}
