// Package install puts compactd into the agents' own configuration and
// takes it out again: its MCP server where each agent reads MCP servers
// (`compactd mcp install`), its hooks where Claude Code and opencode read
// them (`compactd hooks install`). Every change is planned first (a
// Change: the file's bytes before and after, nothing written), so a dry
// run prints exactly what an install writes; daemon/agentconf edits only
// compactd's entry, so every other entry stays byte for byte.
//
// It must not import lsp/ or cmd/.
package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/compactd/compactd/daemon/agentconf"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/platform"
)

// ServerName is compactd's name among the agent's MCP servers: the tools
// reach the model as mcp__compactd__recall (Claude Code, Qwen Code),
// mcp_compactd_recall (Gemini CLI), mcp__compactd's namespace (Codex).
const ServerName = "compactd"

// Scope says which of the agent's files an install writes.
type Scope string

const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// A Change is one file an install or uninstall writes.
type Change struct {
	Agent string `json:"agent"`
	Scope Scope  `json:"scope"`
	Path  string `json:"path"`
	// Before is the file's bytes (nil: it does not exist); After what
	// the change leaves (nil: the file is removed).
	Before []byte `json:"-"`
	After  []byte `json:"-"`
	// Mode is the file's permissions, kept (0600 for a new file: agents'
	// configuration may hold tokens).
	Mode os.FileMode `json:"-"`
	// Prune is the outermost folder a removal takes with it, from the
	// file's own up, each when nothing else is in it ("" none).
	Prune string `json:"-"`
}

// Changed reports whether applying the change writes anything.
func (c Change) Changed() bool { return agentconf.Edit{Before: c.Before, After: c.After}.Changed() }

// Apply writes the change: the new bytes replace the file in one rename
// (its mode kept), or the file is removed. The file must still hold
// Before: a change planned against other bytes is refused.
func (c Change) Apply() error {
	if !c.Changed() {
		return nil
	}
	now, err := os.ReadFile(c.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		now = nil
	case err != nil:
		return fmt.Errorf("read %s: %w", c.Path, err)
	}
	if (now == nil) != (c.Before == nil) || !bytes.Equal(now, c.Before) {
		return fmt.Errorf("%s changed while compactd was editing it; nothing was written, run the command again", c.Path)
	}
	if c.After == nil {
		if err := os.Remove(c.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", c.Path, err)
		}
		if c.Prune != "" {
			for dir := filepath.Dir(c.Path); agents.Within(dir, c.Prune); dir = filepath.Dir(dir) {
				if os.Remove(dir) != nil {
					break // not empty
				}
			}
		}
		return nil
	}
	mode := c.Mode
	if mode == 0 {
		mode = 0o600
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return fmt.Errorf("create the folder of %s: %w", c.Path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.Path), "."+filepath.Base(c.Path)+".compactd-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", c.Path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(c.After); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", c.Path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", c.Path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", c.Path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", c.Path, err)
	}
	if err := platform.Replace(tmp.Name(), c.Path); err != nil {
		return fmt.Errorf("replace %s: %w", c.Path, err)
	}
	return nil
}

// read returns a file's bytes and mode; nil when it does not exist.
func read(path string) ([]byte, os.FileMode, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := os.ReadFile(path)
	return b, fi.Mode().Perm(), err
}

// Agent returns the registered agent called name.
func Agent(name string) (*agents.Agent, error) {
	var names []string
	for _, a := range agents.All() {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown agent %q (known: %v)", name, names)
}
