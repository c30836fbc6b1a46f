// Package copilotchat is what compactd knows of GitHub Copilot Chat in VS
// Code (codec: compaction/format/copilotchat).
package copilotchat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/sourcefile"
)

func init() { agents.Register(Agent) }

// Agent is Copilot Chat: VS Code keeps a workspace's chats in the
// chatSessions folder of that workspace's workspaceStorage entry.
var Agent = &agents.Agent{
	Name: "copilot-chat", Setting: "copilot_chat", Label: "Copilot Chat",
	Formats:    []transcript.Format{transcript.FormatCopilotChat},
	Roots:      roots,
	Everywhere: func(env agents.Env) []agents.Root { return roots(env, nil) },
	Session: func(path string, _ []string) bool {
		ext := strings.ToLower(filepath.Ext(sourcefile.PlainName(path)))
		return (ext == ".jsonl" || ext == ".json") && filepath.Base(filepath.Dir(path)) == "chatSessions"
	},
}

// WorkspaceStorage lists the workspaceStorage folders of VS Code and its
// builds (Insiders, VSCodium, Cursor, code-server), where each keeps them
// on the OS (%APPDATA%\Code\User\workspaceStorage on Windows,
// ~/Library/Application Support/Code/User/workspaceStorage on macOS,
// ~/.config/Code/User/workspaceStorage on Linux).
func WorkspaceStorage(env agents.Env) []string {
	var out []string
	for _, app := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor"} {
		out = append(out, filepath.Join(env.AppDataDir(), app, "User", "workspaceStorage"))
	}
	return append(out, filepath.Join(env.DataDir(), "code-server", "User", "workspaceStorage"))
}

// roots are the chatSessions folders of the workspaceStorage entries whose
// workspace.json names one of the folders, of every entry when folders is
// nil.
func roots(env agents.Env, folders []string) []agents.Root {
	var out []agents.Root
	for _, storage := range WorkspaceStorage(env) {
		entries, err := os.ReadDir(storage)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			entry := filepath.Join(storage, e.Name())
			if folders == nil {
				if _, err := os.Stat(filepath.Join(entry, "chatSessions")); err == nil {
					out = append(out, agents.Root{Dir: filepath.Join(entry, "chatSessions")})
				}
				continue
			}
			if folder, ok := workspaceFolder(entry); ok && slices.ContainsFunc(folders, func(f string) bool { return agents.SamePath(f, folder) }) {
				out = append(out, agents.Root{Dir: filepath.Join(entry, "chatSessions")})
			}
		}
	}
	return out
}

// workspaceFolder returns the folder a workspaceStorage entry belongs to:
// workspace.json's folder URI.
func workspaceFolder(storage string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(storage, "workspace.json"))
	if err != nil {
		return "", false
	}
	var w struct {
		Folder string `json:"folder"`
	}
	if json.Unmarshal(b, &w) != nil {
		return "", false
	}
	return agents.FileURIPath(w.Folder)
}
