// Package codex is what compactd knows of Codex CLI (codec:
// compaction/format/codex).
package codex

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/sourcefile"
)

func init() { agents.Register(Agent) }

// Agent is Codex CLI. It keeps every project's rollouts in one dated tree,
// some compressed (rollout-….jsonl.zst); a rollout belongs to the
// workspace when its session_meta's cwd is in a workspace folder.
var Agent = &agents.Agent{
	Name: "codex", Setting: "codex", Command: "codex",
	Formats: []transcript.Format{transcript.FormatCodex},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		return agents.Shared(folders, SessionsDir(env))
	},
	Session: func(path string, folders []string) bool {
		base := filepath.Base(sourcefile.PlainName(path))
		if !strings.HasPrefix(base, "rollout-") || !agents.JSONL(base) {
			return false
		}
		cwd, ok := Cwd(path)
		return ok && agents.InFolders(cwd, folders)
	},
	Threshold: threshold,
}

// SessionsDir holds every Codex rollout, of every project:
// $CODEX_HOME (else ~/.codex)/sessions.
func SessionsDir(env agents.Env) string {
	return filepath.Join(env.Or(env.CodexHome, ".codex"), "sessions")
}

// Cwd returns the cwd a rollout's session_meta names, reading only the
// first line (bounded: session_meta carries the system prompt, a few tens
// of KB).
func Cwd(path string) (string, bool) {
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
