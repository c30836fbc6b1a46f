package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/agents/agentstest"
)

// TestGaugeThresholds: for every setting source of Claude Code, Codex,
// Gemini CLI and Qwen Code, the compactd/gauge notification of the
// agent's session, found where the agent keeps it, carries where the
// agent compacts by itself as the agent computes it, and so does the
// diagnostic once the session nears it.
func TestGaugeThresholds(t *testing.T) {
	for _, c := range agentstest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			testEnv(t)
			if c.Args != nil {
				t.Skip("the agent's command line comes from its running process, which this test does not start")
			}
			l := agentstest.NewLayout(t)
			c.Write(t, l)
			path := c.WriteSession(t, l)
			vars := c.Vars(l)
			cl := startServer(t, Options{Daemon: daemon.Options{Env: c.AgentEnv(l), Getenv: func(k string) string { return vars[k] }}})
			cl.initialize(l.Project, nil)
			u := pathURI(path)
			raw, _ := cl.waitNote(0, methodGauge, gaugeFor(u), 30*time.Second)
			var g Gauge
			if err := json.Unmarshal(raw, &g); err != nil {
				t.Fatal(err)
			}
			m := g.AutoCompact
			if m == nil || m.At != c.Want.At || m.Disabled != c.Want.Disabled || m.Source != c.Want.Source {
				t.Fatalf("gauge autoCompact %+v, want %+v", m, c.Want)
			}
			want := "auto-compacts at " + gauge.Short(c.Want.At) + " (" + c.Want.Source + ")"
			if c.Want.Disabled {
				want = "auto-compaction off (" + c.Want.Source + ")"
			} else if g.AutoCompactAt != float64(c.Want.At)/float64(g.ContextWindow) || m.Buffer != c.Want.At-g.Tokens {
				t.Errorf("mark at %v with %d before it; the gauge holds %d of %d", g.AutoCompactAt, m.Buffer, g.Tokens, g.ContextWindow)
			}
			if m.Text != want {
				t.Errorf("mark text %q, want %q", m.Text, want)
			}
			// Past the agent's point the warning names it.
			if !c.Want.Disabled && g.Tokens >= c.Want.At {
				diag := cl.waitDiagnostic(u)
				if !strings.Contains(diag.Message, want) {
					t.Errorf("diagnostic %q lacks %q", diag.Message, want)
				}
			}
		})
	}
}

// waitDiagnostic waits for compactd's context-window diagnostic on u.
func (c *client) waitDiagnostic(u protocol.DocumentURI) protocol.Diagnostic {
	c.t.Helper()
	var found protocol.Diagnostic
	c.waitNote(0, protocol.MethodTextDocumentPublishDiagnostics, func(raw json.RawMessage) bool {
		var p protocol.PublishDiagnosticsParams
		if json.Unmarshal(raw, &p) != nil || p.URI != u {
			return false
		}
		for _, d := range p.Diagnostics {
			if fmt.Sprint(d.Code) == diagnosticCode {
				found = d
				return true
			}
		}
		return false
	}, 30*time.Second)
	return found
}
