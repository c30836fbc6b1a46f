package opencode

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/daemon/agents"
)

// handoffOf says how a conversation from another agent becomes a session
// of the agent named name: an export written under compactd's sessions
// folder, which the agent imports.
func handoffOf(a *agents.Agent, name string) *agents.Handoff {
	return &agents.Handoff{
		Format: a.Formats[0],
		Tools:  Tools,
		NewID:  sessionID,
		Path: func(env agents.Env, _, session string, _ time.Time) string {
			return filepath.Join(env.SessionsDir(), name, session+".json")
		},
		Model:  func(env agents.Env) string { return model(env, name) },
		Images: true,
		Resume: a.ResumeImported,
	}
}

// Tools are opencode's tools that have equivalents, as 1.18 declares them
// (Kilo Code's are opencode's).
var Tools = handoff.Tools{
	{Name: "read", Action: handoff.Read, Params: map[string]string{handoff.ArgPath: "filePath"}},
	{Name: "write", Action: handoff.Write, Params: map[string]string{handoff.ArgPath: "filePath", handoff.ArgContent: "content"}},
	{Name: "edit", Action: handoff.Edit, Params: map[string]string{handoff.ArgPath: "filePath", handoff.ArgOld: "oldString", handoff.ArgNew: "newString"},
		Default: map[string]any{"replaceAll": false}},
	{Name: "bash", Action: handoff.Shell, Params: map[string]string{handoff.ArgCommand: "command"}, Workdir: "workdir", Ignore: []string{"description", "timeout"}},
	{Name: "grep", Action: handoff.Search, Params: map[string]string{handoff.ArgPattern: "pattern", handoff.ArgPath: "path"}},
}

// sessionID makes an opencode session id: "ses_", 12 hex digits of the
// inverted (milliseconds·4096 + counter), so newer sessions sort first,
// and 14 random base62 characters.
func sessionID(now time.Time) string {
	const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	v := ^(uint64(now.UnixMilli())*0x1000 + 1) & (1<<48 - 1)
	var r [14]byte
	_, _ = rand.Read(r[:])
	for i := range r {
		r[i] = base62[int(r[i])%62]
	}
	return fmt.Sprintf("ses_%012x%s", v, r[:])
}

// model is the "provider/model" the agent's config file chooses
// ($XDG_CONFIG_HOME/<name>/<name>.json or opencode.json), else its own
// default's name.
func model(env agents.Env, name string) string {
	for _, f := range []string{name + ".json", "opencode.json", "config.json"} {
		var c struct {
			Model string `json:"model"`
		}
		if b, err := os.ReadFile(filepath.Join(env.ConfigDir(), name, f)); err == nil && json.Unmarshal(b, &c) == nil && c.Model != "" {
			return c.Model
		}
	}
	return "opencode/default"
}
