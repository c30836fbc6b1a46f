package all_test

import (
	"os"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/agentstest"
)

// TestThresholds holds every agent's threshold reader to the hand-worked
// cases: one per setting source, on the agent's own session.
func TestThresholds(t *testing.T) {
	for _, c := range agentstest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			l := agentstest.NewLayout(t)
			c.Write(t, l)
			path := c.WriteSession(t, l)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			codec, err := format.Detect(path, data)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := codec.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			a := agents.ByFormat(tr.Format)
			if a == nil || a.Name != c.Agent {
				t.Fatalf("the session parses as %s, not %s's", tr.Format, c.Agent)
			}
			r := gauge.Resolve(tr, gauge.Options{})
			got := a.AutoCompact(agents.Query{Env: c.AgentEnv(l), Getenv: c.Getenv(l), Args: c.Args, Cwd: a.SessionCwd(c.AgentEnv(l), path, tr.Meta.Cwd),
				Model: r.Model, Window: r.ContextWindow, WindowSource: r.WindowSource, AgentVersion: tr.Meta.AgentVersion})
			if got == nil || got.At != c.Want.At || got.Disabled != c.Want.Disabled || got.Source != c.Want.Source {
				t.Fatalf("threshold %+v\nwant %+v", got, c.Want)
			}
			if !got.Disabled && got.Rule == "" {
				t.Errorf("no rule says how %d was reached", got.At)
			}
			if got.Source != "default" && len(got.Settings) == 0 {
				t.Errorf("source %q names no setting", got.Source)
			}
		})
	}
}
