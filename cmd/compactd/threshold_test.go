package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/agents/agentstest"
)

// TestGaugeAndStatuslineThresholds: for every setting source of Claude
// Code, Codex, Gemini CLI and Qwen Code, `gauge --json` and `statusline`
// show where the agent compacts by itself, as the agent computes it from
// the settings files and environment the case writes.
func TestGaugeAndStatuslineThresholds(t *testing.T) {
	for _, c := range agentstest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			l := agentstest.NewLayout(t)
			if c.Args != nil {
				t.Skip("the agent's command line comes from its running process, which this test does not start")
			}
			for _, k := range []string{"HOME", "USERPROFILE", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COMPACTD_STORE"} {
				t.Setenv(k, "")
			}
			t.Setenv("HOME", l.Home)
			t.Setenv("USERPROFILE", l.Home)
			c.Write(t, l)
			path := c.WriteSession(t, l)
			vars := c.Vars(l)
			getenv := func(k string) string { return vars[k] }

			var out, errb bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv}
			if code := run(context.Background(), e, []string{"gauge", "--json", path}); code != 0 {
				t.Fatalf("gauge exit %d: %s", code, errb.String())
			}
			rows := decodeGaugeRows(t, out.String())
			if len(rows) != 1 {
				t.Fatalf("%d rows", len(rows))
			}
			m := rows[0].AutoCompact
			if m == nil || m.At != c.Want.At || m.Disabled != c.Want.Disabled || m.Source != c.Want.Source {
				t.Fatalf("gauge --json autoCompact %+v, want %+v", m, c.Want)
			}
			if !m.Disabled && (m.Buffer != m.At-rows[0].Tokens || m.Ratio != float64(m.At)/float64(rows[0].ContextWindow)) {
				t.Errorf("mark at %.4f with %d before it; the gauge holds %d of %d", m.Ratio, m.Buffer, rows[0].Tokens, rows[0].ContextWindow)
			}

			payload, _ := json.Marshal(map[string]any{"hook_event_name": "Status", "transcript_path": path, "cwd": l.Project})
			out.Reset()
			errb.Reset()
			e = &env{stdin: bytes.NewReader(payload), stdout: &out, stderr: &errb, getenv: getenv}
			if code := run(context.Background(), e, []string{"statusline"}); code != 0 || errb.Len() > 0 {
				t.Fatalf("statusline exit %d: %s", code, errb.String())
			}
			want := "auto-compacts at " + gauge.Short(c.Want.At) + " (" + c.Want.Source + ")"
			if c.Want.Disabled {
				want = "auto-compaction off (" + c.Want.Source + ")"
			}
			if !strings.Contains(out.String(), want) {
				t.Errorf("statusline %q lacks %q", out.String(), want)
			}
		})
	}
}
