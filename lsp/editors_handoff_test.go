package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditorsRegisterHandoff: the VS Code extension contributes
// compactd.handoff to the palette and wraps it (its title table), and
// offers it from the status bar's actions; the Neovim plugin defines
// :CompactdHandoff. The editors' end-to-end runs drive them.
func TestEditorsRegisterHandoff(t *testing.T) {
	root := filepath.Join("..", "editors")
	b, err := os.ReadFile(filepath.Join(root, "vscode", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Commands []struct {
				Command string `json:"command"`
				Title   string `json:"title"`
			} `json:"commands"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range pkg.Contributes.Commands {
		found = found || c.Command == cmdHandoff && c.Title == "Continue in another agent…"
	}
	if !found {
		t.Errorf("package.json does not contribute %s", cmdHandoff)
	}
	ext, err := os.ReadFile(filepath.Join(root, "vscode", "src", "extension.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"'" + cmdHandoff + "': 'Continue in another agent…'", "id: '" + cmdHandoff + "'", "case '" + cmdHandoff + "':"} {
		if !strings.Contains(string(ext), want) {
			t.Errorf("extension.ts lacks %s", want)
		}
	}
	lua, err := os.ReadFile(filepath.Join(root, "nvim", "lua", "compactd", "init.lua"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cmd('CompactdHandoff'", "M.execute('" + cmdHandoff + "'"} {
		if !strings.Contains(string(lua), want) {
			t.Errorf("the Neovim plugin lacks %s", want)
		}
	}
}
