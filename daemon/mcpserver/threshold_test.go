package mcpserver

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/daemon/agents/agentstest"
)

// TestContextStatusThresholds: for every setting source of Claude Code,
// Codex, Gemini CLI and Qwen Code, context_status marks where the agent
// compacts by itself as the agent does, read from the settings files and
// the environment compactd mcp runs with (the agent's: it is the agent's
// child).
func TestContextStatusThresholds(t *testing.T) {
	for _, c := range agentstest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			l := agentstest.NewLayout(t)
			c.Write(t, l)
			path := c.WriteSession(t, l)
			s := &Server{StorePath: filepath.Join(t.TempDir(), "compactd.db"), Env: c.AgentEnv(l), Cwd: l.Project, Getenv: c.Getenv(l), Args: c.Args}
			t.Cleanup(func() { s.Close() })
			st, err := s.ContextStatus(context.Background(), StatusRequest{Session: path})
			if err != nil {
				t.Fatal(err)
			}
			m := st.AutoCompact
			if m == nil || m.At != c.Want.At || m.Disabled != c.Want.Disabled || m.Source != c.Want.Source {
				t.Fatalf("context_status autoCompact %+v, want %+v", m, c.Want)
			}
			if st.AutoCompactAt != c.Want.At {
				t.Errorf("autoCompactAt %d, want %d", st.AutoCompactAt, c.Want.At)
			}
		})
	}
}
