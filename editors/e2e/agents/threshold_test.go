package agents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// TestRealAgentThreshold (issue 24): Claude Code runs with
// CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=40 and the window it needs for the
// percentage to apply (CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000): it compacts
// on its own once the context reaches min(40 % × (100k − 20k), 100k − 20k −
// 13k) = 32,000. compactd reads the same environment — `gauge --json` from
// the shell, `compactd serve` through a real LSP client — and its mark must
// be where Claude Code actually compacted (its compact_boundary's
// preTokens), within 2 % of the window.
func TestRealAgentThreshold(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	command, version := installedAgent(t, "claude", "claude")
	sb := newSandbox(t)
	// Parts of ~1,300 tokens each: the second turn reads them one by one,
	// a request each, past the threshold.
	const parts = 30
	var steps [][]modelserver.Action
	for i := range parts {
		path := filepath.Join(sb.project, fmt.Sprintf("part%02d.txt", i))
		var b strings.Builder
		for l := 0; b.Len() < 5200; l++ {
			fmt.Fprintf(&b, "part %d line %d: inventory item %d moves from bin %d to shelf %d after audit %d.\n", i, l, i*97+l, l*13%41, l*7%29, i*l%53)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, []modelserver.Action{{Kind: modelserver.Read, Path: path}})
	}
	turns := map[string]modelserver.Turn{
		"h1": {Answer: "Hello: the inventory project is here. (answer h1)"},
		"h2": {Thinking: thinking, Steps: steps, Answer: "Read every part. (answer h2)"},
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	claude.configure(t, sb, srv)
	sb.setenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=40", "CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000")
	t.Logf("Claude Code %s in %s", version, sb.root)

	// The server runs with the agent's environment, from before the agent
	// ever ran: Claude Code creates its config folder's projects/<slug>/,
	// the memory/ folder and the session at once, and the watcher sees them.
	lsp := startLSP(t, sb, bin, nil)
	id := uuid()
	sb.run(t, claude.timeout, command, claude.first(sb, id, prompt("h1", "Hello."))...)
	file := claude.session(t, sb, id)
	g := sb.gauge(t, bin, file)
	if g.AutoCompact == nil || g.AutoCompact.At != 32_000 || g.AutoCompact.Source != "env" {
		t.Fatalf("compactd gauge --json marks Claude Code's compaction at %+v, want 32,000 from the environment", g.AutoCompact)
	}
	if n, ok := lsp.waitGauge(file, 0, time.Minute, func(n gaugeNote) bool { return n.AutoCompactAt > 0 }); !ok || n.AutoCompactAt != 32_000 {
		t.Fatalf("compactd serve's gauge marks Claude Code's compaction at %d, want 32,000", n.AutoCompactAt)
	}

	sb.run(t, 5*time.Minute, command, claude.resume(sb, id, prompt("h2", "Read the parts one by one."))...)
	pre, trigger := firstBoundary(t, file)
	if trigger != "auto" {
		t.Fatalf("Claude Code did not compact on its own while reading %d parts (boundary trigger %q)", parts, trigger)
	}
	off := abs(pre - g.AutoCompact.At)
	line := fmt.Sprintf("Claude Code %s with CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=40, CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000: compacted at %d tokens; compactd's mark %d (%s), %d off = %.2f %% of the %d window",
		version, pre, g.AutoCompact.At, g.AutoCompact.Text, off, 100*float64(off)/float64(g.ContextWindow), g.ContextWindow)
	report("%s", line)
	t.Log(line)
	if float64(off) > 0.02*float64(g.ContextWindow) {
		t.Errorf("Claude Code compacted at %d tokens; compactd's mark is %d, %d off (bar: 2 %% of the %d window)", pre, g.AutoCompact.At, off, g.ContextWindow)
	}
}

// firstBoundary reads the first compact_boundary of a Claude Code session:
// the context size before it and what triggered it.
func firstBoundary(t *testing.T, path string) (pre int, trigger string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r struct {
			Subtype string `json:"subtype"`
			Meta    struct {
				Trigger   string `json:"trigger"`
				PreTokens int    `json:"preTokens"`
			} `json:"compactMetadata"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Subtype == "compact_boundary" {
			return r.Meta.PreTokens, r.Meta.Trigger
		}
	}
	t.Fatalf("no compact_boundary in %s", path)
	return 0, ""
}
