package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
)

// copyInsight copies a fixture shaped like a real case into a temp
// folder (compact writes its report and forks beside the source).
func copyInsight(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "insight", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gauge --json on the two real-shaped cases: the breakdown sums to the
// gauge exactly, names what lies outside the transcript, says why
// compaction cannot help, and prices the session by hand.
func TestGaugeJSONBreakdownOfRealCases(t *testing.T) {
	isolatedEnv(t)
	out, stderr, code := runGaugeCLI(t, "--json", copyInsight(t, "claude-2.1.92-outside.jsonl"), copyInsight(t, "claude-2.1.330-24k.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := decodeGaugeRows(t, out)
	outside, small := rows[0], rows[1]
	for _, r := range rows {
		if r.Breakdown.Sum() != r.Tokens || r.Breakdown.Tokens != r.Tokens {
			t.Errorf("%s: breakdown sums to %d, gauge %d", r.Path, r.Breakdown.Sum(), r.Tokens)
		}
		if r.Breakdown.Parts[0].Category != gauge.CategoryOutside || !strings.Contains(r.Breakdown.Outside.Label, "system prompt") {
			t.Errorf("%s: outside part %+v", r.Path, r.Breakdown.Outside)
		}
		if r.Cost == nil || r.Cost.Model != "claude-sonnet-4" {
			t.Errorf("%s: cost %+v", r.Path, r.Cost)
		}
	}
	if outside.Tokens != 194_791 || outside.Breakdown.Inside != 3_254 || outside.Breakdown.Outside.Tokens != 191_537 {
		t.Errorf("2.1.92 case: %d = %d outside + %d inside", outside.Tokens, outside.Breakdown.Outside.Tokens, outside.Breakdown.Inside)
	}
	if !strings.HasPrefix(outside.Reach, "98 % of what the model reads (191,537 of 194,791 tokens) is outside the transcript") {
		t.Errorf("reach %q", outside.Reach)
	}
	if outside.EstimateError != nil || !strings.Contains(outside.EstimateErrorNote, "not enough usage points") {
		t.Errorf("the one-span cache jump is shown as an estimate error: %v %q", outside.EstimateError, outside.EstimateErrorNote)
	}
	// Sonnet 4.5 at $3 input, $3.75 cache write, $0.30 cache read, $15 output:
	// (4·3 + 2,212·3.75 + 61·15) + (3·3 + 180·3.75 + 192,114·0.30 + 96·15)
	// + (3·3 + 1,250·3.75 + 192,938·0.30 + 600·15) = 140,558.1 µ$.
	if want := 140558.1 / 1e6; math.Abs(outside.Cost.Session-want) > 1e-12 || outside.Cost.Responses != 3 {
		t.Errorf("session cost %v over %d responses, want %v over 3", outside.Cost.Session, outside.Cost.Responses, want)
	}
	// Next turn: the 194,791 last reported read from the cache.
	if want := 194791 * 0.30 / 1e6; math.Abs(outside.Cost.NextTurn.Cached-want) > 1e-12 {
		t.Errorf("next turn %v, want %v", outside.Cost.NextTurn.Cached, want)
	}
	if small.Tokens/1000 != 24 || small.Breakdown.Inside != 3_320 {
		t.Errorf("2.1.330 case: %d tokens, %d inside", small.Tokens, small.Breakdown.Inside)
	}
}

// The dry runs of the two cases say what they save and why it is so
// little, and what it saves per turn.
func TestDryRunExplainsWhyCompactionCannotHelp(t *testing.T) {
	envs := isolatedEnv(t)
	for _, c := range []struct{ file, tokens, why, after string }{
		{"claude-2.1.92-outside.jsonl", "tokens: 3,254 → 3,254 (0.0% saved)",
			"why so little: 98 % of what the model reads (191,537 of 194,791 tokens) is outside the transcript (system prompt, tool and MCP definitions, memory files (CLAUDE.md)): compaction can reach at most 48 tokens",
			"window: 194,791 / 200,000 tokens (97.4 %): 191,537 outside the transcript, 3,254 in it; after ≈ 194,791"},
		{"claude-2.1.330-24k.jsonl", "tokens: 3,320 → 2,677 (19.4% saved)",
			"why so little: 86 % of what the model reads (20,879 of 24,199 tokens) is outside the transcript",
			"window: 24,199 / 200,000 tokens (12.1 %): 20,879 outside the transcript, 3,320 in it; after ≈ 23,556"},
	} {
		code, out, stderr := runCLI(t, envs, "compact", "--dry-run", copyInsight(t, c.file))
		if code != 0 {
			t.Fatalf("%s: exit %d %s", c.file, code, stderr)
		}
		for _, want := range []string{c.tokens, c.why, c.after, "cost at claude-sonnet-4 list prices of " + pricing.TableDate, "this compaction saves"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", c.file, want, out)
			}
		}
	}
	code, out, stderr := runCLI(t, envs, "compact", "--dry-run", "--json", copyInsight(t, "claude-2.1.330-24k.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	var res struct {
		TokensBefore, TokensAfter int
		Window                    compactWindow
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	w := res.Window
	// The placeholders name their recall handles (7 tokens of the 650 saved without them).
	if res.TokensBefore != 3_320 || res.TokensAfter != 2_677 || w.After != w.Tokens-643 || w.Breakdown.Sum() != w.Tokens || w.Why == "" {
		t.Fatalf("compact --json window %+v", w)
	}
	// 643 tokens fewer at Sonnet's $0.30 cached and $3 uncached.
	if s := w.SavingPerTurn; s == nil || math.Abs(s.Cached-643*0.30/1e6) > 1e-12 || math.Abs(s.Uncached-643*3.0/1e6) > 1e-12 {
		t.Fatalf("saving per turn %+v", s)
	}
}

// gauge --breakdown prints the parts under the line.
func TestGaugeBreakdownText(t *testing.T) {
	isolatedEnv(t)
	out, stderr, code := runGaugeCLI(t, "--breakdown", copyInsight(t, "claude-2.1.92-outside.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"  outside the transcript     191,537   95.8 %  system prompt, tool and MCP definitions, memory files (CLAUDE.md)",
		"MCP servers: github (4 tools), linear (2 tools), sentry (1 tool)",
		"  tool results                 1,437    0.7 %  mcp__github__get_issue 1,437",
		"compaction can reach at most 48 tokens",
		"session so far $0.141 (3 responses)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A price in the settings replaces the list price.
func TestGaugePricesFromSettings(t *testing.T) {
	envs := isolatedEnv(t)
	cfg := filepath.Join(envs["XDG_CONFIG_HOME"], "compactd", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, []byte("[prices.\"claude-sonnet-4-5\"]\ninput = 1\noutput = 2\n"), 0o644)
	code, out, stderr := runCLI(t, envs, "gauge", "--json", copyInsight(t, "claude-2.1.330-24k.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := decodeGaugeRows(t, out)[0]
	if r.Cost == nil || r.Cost.Source != "settings" || r.Cost.Rates.Input != 1 || r.Cost.Rates.CachedInput != 1 {
		t.Fatalf("cost %+v", r.Cost)
	}
}
