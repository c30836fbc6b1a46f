// Package gemini is what compactd knows of Gemini CLI (codec:
// compaction/format/gemini).
package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

func init() { agents.Register(Agent) }

// Agent is Gemini CLI. It records each session under
// ~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl, where <project>
// is a short name from ~/.gemini/projects.json (since 0.40; before, the
// SHA-256 of the project's folder); every record names the project by
// that hash, which is how a session is matched to a workspace folder
// whatever its folder's name.
var Agent = &agents.Agent{
	Name: "gemini", Setting: "gemini", Command: "gemini",
	Formats: []transcript.Format{transcript.FormatGeminiCLI},
	Roots: func(env agents.Env, folders []string) []agents.Root {
		return agents.Shared(folders, filepath.Join(env.Home, ".gemini", "tmp"))
	},
	Session: func(path string, folders []string) bool {
		base := filepath.Base(path)
		ext := filepath.Ext(base)
		if !strings.HasPrefix(base, "session-") || (ext != ".jsonl" && ext != ".json") || filepath.Base(filepath.Dir(path)) != "chats" {
			return false
		}
		if folders == nil {
			return true // any project's: the name says it is a session
		}
		hash, ok := projectHash(path)
		if !ok {
			return false
		}
		for _, f := range folders {
			if ProjectHash(f) == hash {
				return true
			}
		}
		return false
	},
	Everywhere: func(env agents.Env) []agents.Root {
		return []agents.Root{{Dir: filepath.Join(env.Home, ".gemini", "tmp")}}
	},
	ForkName:  forkName,
	Cwd:       projectOf,
	Threshold: threshold,
	Protect:   protect,
}

// forkName: Gemini CLI lists and resumes session-<YYYY-MM-DDTHH-MM>-<first
// 8 characters of the session id>.json[l] files of its chats folder, in
// the container the fork keeps.
func forkName(src, session string, now time.Time) string {
	base := filepath.Base(src)
	ext := filepath.Ext(base)
	if !strings.HasPrefix(base, "session-") || (ext != ".json" && ext != ".jsonl") || len(session) < 8 {
		return ""
	}
	return "session-" + now.UTC().Format("2006-01-02T15-04") + "-" + session[:8] + ext
}

// projectOf is the project folder of a session at
// ~/.gemini/tmp/<name>/chats/…: the folder ~/.gemini/projects.json maps to
// <name> ({"projects": {"/abs/folder": "name"}}), "" when none does.
func projectOf(env agents.Env, path string) string {
	name := filepath.Base(filepath.Dir(filepath.Dir(path)))
	if filepath.Base(filepath.Dir(path)) != "chats" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(env.Home, ".gemini", "projects.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ""
	}
	for folder, n := range p.Projects {
		if n == name {
			return folder
		}
	}
	return ""
}

// ProjectHash is how Gemini CLI names a project in its records: the
// SHA-256 of its folder, in hex.
func ProjectHash(folder string) string {
	sum := sha256.Sum256([]byte(folder))
	return hex.EncodeToString(sum[:])
}

// projectHash reads the projectHash a session's first record names (a
// .json session is one document that starts with it).
func projectHash(path string) (string, bool) {
	line, ok := agents.FirstLine(path)
	if !ok {
		return "", false
	}
	var rec struct {
		ProjectHash string `json:"projectHash"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.ProjectHash == "" {
		return "", false
	}
	return rec.ProjectHash, true
}
