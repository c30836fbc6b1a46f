package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
)

// TestHandoffAsksForTheAgentAndOffersRecall: "Continue in another agent…"
// without an agent asks which, then (the agent has no compactd MCP server)
// whether to install it; the new session is Qwen Code's, in its folder,
// and the install is in Qwen Code's user settings. An answer that was
// never offered writes nothing.
func TestHandoffAsksForTheAgentAndOffersRecall(t *testing.T) {
	home := testEnv(t)
	c, _, path := openAgentCompacted(t)
	u := pathURI(path)
	var asked []string
	c.answer = func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		for _, a := range p.Actions {
			if a.Title == "Qwen Code" || strings.HasPrefix(a.Title, "Install") {
				return &a
			}
		}
		return nil
	}
	raw, err := c.execute(cmdHandoff, map[string]any{"uri": u})
	if err != nil {
		t.Fatal(err)
	}
	var r daemon.Handoff
	if err := json.Unmarshal(raw.Result, &r); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "which agent") || !strings.Contains(asked[1], "MCP server in Qwen Code") {
		t.Fatalf("the server asked %q", asked)
	}
	if r.To != "qwen" || r.Format != "qwen-code" || filepath.Dir(filepath.Dir(r.Path)) != filepath.Join(home, ".qwen", "projects", filepath.Base(filepath.Dir(filepath.Dir(r.Path)))) || r.Recall != "installed now" {
		t.Fatalf("result = %+v", r)
	}
	if _, err := os.Stat(r.Path); err != nil {
		t.Fatal(err)
	}
	settings, err := os.ReadFile(filepath.Join(home, ".qwen", "settings.json"))
	if err != nil || !strings.Contains(string(settings), "compactd") {
		t.Fatalf("Qwen Code's settings after the install: %v %s", err, settings)
	}
	if !strings.Contains(raw.Message, "qwen --resume "+r.Session) {
		t.Errorf("message %q does not say how to resume", raw.Message)
	}

	c.answer = func(protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		return &protocol.MessageActionItem{Title: "Copilot for Emacs"}
	}
	before, _ := os.ReadDir(filepath.Join(home, "codex"))
	if _, err := c.execute(cmdHandoff, map[string]any{"uri": u}); err == nil || !strings.Contains(err.Error(), "none of") {
		t.Errorf("an agent never offered: err = %v", err)
	}
	if after, _ := os.ReadDir(filepath.Join(home, "codex")); len(after) != len(before) {
		t.Error("a refused handoff wrote a session")
	}
}
