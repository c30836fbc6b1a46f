package install

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/daemon/agentconf"
	"github.com/compactd/compactd/daemon/agents"
)

// A Target is where an install goes: one agent, one scope.
type Target struct {
	Agent *agents.Agent
	Scope Scope
	// Folder is the project folder (ScopeProject).
	Folder string
	Env    agents.Env
}

// Server is how an agent starts compactd's MCP server.
type Server struct {
	// Command is compactd's executable, absolute.
	Command string
	// Store is the store's path, passed as --store: agents start MCP
	// servers with a few variables only, so COMPACTD_STORE may not reach it.
	Store string
	// Getenv reads the variables the agent's entry passes on (MCP.Env).
	Getenv func(string) string
}

// mcpFile is the file of t's scope.
func mcpFile(t Target) (string, error) {
	m := t.Agent.MCP
	if m == nil {
		return "", fmt.Errorf("%s reads no MCP servers compactd knows of", t.Agent.Name)
	}
	switch t.Scope {
	case ScopeUser:
		return m.User(t.Env), nil
	case ScopeProject:
		if m.Project == nil {
			return "", fmt.Errorf("%s has no project-level MCP configuration", t.Agent.Name)
		}
		abs, err := filepath.Abs(t.Folder)
		if err != nil {
			return "", err
		}
		return m.Project(abs), nil
	}
	return "", fmt.Errorf("unknown scope %q", t.Scope)
}

// Entry is compactd's entry for t's agent.
func (s Server) Entry(a *agents.Agent) any {
	args := []string{"mcp", "--agent", a.Name}
	if s.Store != "" {
		args = append(args, "--store", s.Store)
	}
	env := map[string]string{}
	for _, k := range a.MCP.Env {
		if v := s.Getenv(k); v != "" {
			env[k] = v
		}
	}
	if len(env) == 0 {
		env = nil
	}
	return a.MCP.Entry(s.Command, args, env)
}

// PlanMCP is the change that installs (remove false) or uninstalls
// compactd's MCP server for t. Installing twice changes nothing the
// second time; so does uninstalling what is not there.
func PlanMCP(t Target, s Server, remove bool) (Change, error) {
	path, err := mcpFile(t)
	if err != nil {
		return Change{}, err
	}
	before, mode, err := read(path)
	if err != nil {
		return Change{}, err
	}
	c := Change{Agent: t.Agent.Name, Scope: t.Scope, Path: path, Before: before, After: before, Mode: mode}
	if dir := filepath.Dir(path); t.Scope == ScopeProject && strings.HasPrefix(filepath.Base(dir), ".") {
		// The agent's folder in the project (.codex/) goes with the file
		// when nothing else is in it; the project folder never.
		c.Prune = dir
	}
	m := t.Agent.MCP
	var after []byte
	switch {
	case m.TOML && remove:
		after, err = agentconf.RemoveTOML(before, append(m.Key, ServerName))
	case m.TOML:
		table, ok := s.Entry(t.Agent).(agentconf.TOMLTable)
		if !ok {
			return Change{}, fmt.Errorf("%s's MCP entry is not a TOML table", t.Agent.Name)
		}
		after, err = agentconf.SetTOML(before, append(m.Key, ServerName), table)
	case remove:
		after, err = agentconf.RemoveJSON(before, m.Key, ServerName)
	default:
		after, err = agentconf.SetJSON(before, m.Key, ServerName, s.Entry(t.Agent))
	}
	if err != nil {
		return Change{}, fmt.Errorf("%s: %w; the file was left as it is", path, err)
	}
	if before == nil && remove {
		after = nil
	}
	c.After = after
	return c, nil
}

// An Installed is where compactd's MCP server is configured.
type Installed struct {
	Agent string `json:"agent"`
	Scope Scope  `json:"scope"`
	Path  string `json:"path"`
	// Entry is compactd's entry as the file has it (JSON); Current says
	// whether it is what an install would write now.
	Entry   json.RawMessage `json:"entry"`
	Current bool            `json:"current"`
}

// MCPStatus lists where compactd's MCP server is configured for agent a:
// its user file, and folder's project file when folder is set.
func MCPStatus(a *agents.Agent, env agents.Env, folder string, s Server) ([]Installed, error) {
	if a.MCP == nil {
		return nil, nil
	}
	var out []Installed
	scopes := []Scope{ScopeUser}
	if folder != "" && a.MCP.Project != nil {
		scopes = append(scopes, ScopeProject)
	}
	for _, scope := range scopes {
		t := Target{Agent: a, Scope: scope, Folder: folder, Env: env}
		path, err := mcpFile(t)
		if err != nil {
			return nil, err
		}
		b, _, err := read(path)
		if err != nil || b == nil {
			continue
		}
		var entry json.RawMessage
		var found bool
		if a.MCP.TOML {
			table, ok, err := agentconf.GetTOML(b, append(a.MCP.Key, ServerName))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if ok {
				entry, _ = json.Marshal(table)
				found = true
			}
		} else {
			entry, found, err = agentconf.GetJSON(b, a.MCP.Key, ServerName)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		if !found {
			continue
		}
		plan, err := PlanMCP(t, s, false)
		out = append(out, Installed{Agent: a.Name, Scope: scope, Path: path, Entry: entry, Current: err == nil && !plan.Changed()})
	}
	return out, nil
}
