package pricing_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/transcript"
)

func parse(t *testing.T, name string) *transcript.Transcript {
	t.Helper()
	path := filepath.Join("testdata", name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := format.Detect(path, b)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// The session's cost from the transcript's own reported usage equals a
// hand calculation at the provider's list prices, cached reads (and, for
// Anthropic, cache writes) at their own rates.
func TestSessionCostEqualsHandCalculation(t *testing.T) {
	table := pricing.Builtin()
	cases := []struct {
		file, model string
		want        float64
		responses   int
		why         string
	}{
		{
			file: "claude-sonnet.jsonl", model: "claude-sonnet-4-5-20250929", responses: 2,
			// Sonnet 4.5: input $3, 5-minute cache write $3.75, cache hit $0.30, output $15 per MTok.
			// 1st: 3 input + 12,000 written + 450 out; 2nd: 5 input + 800 written + 12,000 read + 300 out.
			want: (3*3 + 12000*3.75 + 450*15 + 5*3 + 800*3.75 + 12000*0.30 + 300*15) / 1e6,
			why:  "$0.051759 + $0.011115",
		},
		{
			file: "codex-gpt5.jsonl", model: "gpt-5-codex", responses: 1,
			// GPT-5: input $1.25, cached input $0.125, output $10. input_tokens 20,000 of
			// which 16,000 cached; output 1,200 (its 800 reasoning tokens included).
			want: (4000*1.25 + 16000*0.125 + 1200*10) / 1e6,
			why:  "$0.005 + $0.002 + $0.012",
		},
		{
			file: "deepseek.traj.json", model: "deepseek-chat", responses: 1,
			// DeepSeek V3.2: cache miss $0.28, cache hit $0.028, output $0.42.
			// prompt_tokens 10,000 of which 6,000 cached; 500 completion.
			want: (4000*0.28 + 6000*0.028 + 500*0.42) / 1e6,
			why:  "$0.00112 + $0.000168 + $0.00021",
		},
		{
			file: "gemini-long.jsonl", model: "gemini-2.5-pro", responses: 1,
			// Gemini 2.5 Pro above 200k: input $2.50, cached $0.25, output $15, and
			// the 500 thoughts billed as output beside the 1,000 answer tokens.
			want: (50000*2.50 + 200000*0.25 + 1500*15) / 1e6,
			why:  "$0.125 + $0.05 + $0.0225",
		},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			tr := parse(t, c.file)
			p, ok := table.Lookup(c.model)
			if !ok {
				t.Fatalf("no price for %s", c.model)
			}
			s := p.SessionCost(tr)
			if s.Responses != c.responses {
				t.Errorf("priced %d responses, want %d", s.Responses, c.responses)
			}
			if !near(s.Total(), c.want) {
				t.Errorf("session cost = %.9f, want %.9f (%s)", s.Total(), c.want, c.why)
			}
		})
	}
}

func TestNextTurnAndSavingByHand(t *testing.T) {
	table := pricing.Builtin()
	sonnet, _ := table.Lookup("claude-sonnet-4-5-20250929")
	// 150,000 tokens, 140,000 of them cached by the previous request: the
	// prefix read at $0.30, the 10,000 new written at $3.75; all at $3 cold.
	nt := sonnet.NextTurnCost(150_000, 140_000)
	if want := (140000*0.30 + 10000*3.75) / 1e6; !near(nt.Cached, want) {
		t.Errorf("cached next turn = %v, want %v", nt.Cached, want)
	}
	if want := 150000 * 3.0 / 1e6; !near(nt.Uncached, want) {
		t.Errorf("uncached next turn = %v, want %v", nt.Uncached, want)
	}
	// Removing 100,000 saves them at the cache-read rate each turn ($0.03),
	// $0.30 when read cold.
	sv := sonnet.PerTurnSaving(150_000, 100_000)
	if want := 100000 * 0.30 / 1e6; !near(sv.Cached, want) {
		t.Errorf("cached saving = %v, want %v", sv.Cached, want)
	}
	if want := 100000 * 3.0 / 1e6; !near(sv.Uncached, want) {
		t.Errorf("uncached saving = %v, want %v", sv.Uncached, want)
	}
	// Above 200k Sonnet's long-context band applies to every token: going
	// from 250k to 150k saves 250k at $6 minus 150k at $3.
	sv = sonnet.PerTurnSaving(250_000, 100_000)
	if want := (250000*6.0 - 150000*3.0) / 1e6; !near(sv.Uncached, want) {
		t.Errorf("saving across the 200k band = %v, want %v", sv.Uncached, want)
	}
	// OpenAI charges no cache-write premium: new tokens cost input.
	gpt, _ := table.Lookup("openai/gpt-5.1-codex")
	nt = gpt.NextTurnCost(100_000, 90_000)
	if want := (90000*0.125 + 10000*1.25) / 1e6; !near(nt.Cached, want) {
		t.Errorf("gpt-5.1 next turn = %v, want %v", nt.Cached, want)
	}
}

func TestLookupAndOverrides(t *testing.T) {
	table := pricing.Builtin()
	for name, want := range map[string]float64{
		"claude-opus-4-1-20250805":        15,
		"claude-opus-4-5-20251101":        5,
		"us.anthropic.claude-haiku-4-5":   1,
		"claude-sonnet-4-5-20250929[1m]":  3,
		"gpt-5-codex":                     1.25,
		"gpt-5-mini-2025-08-07":           0.25,
		"models/gemini-2.5-flash":         0.30,
		"qwen3-coder-plus-2025-09-23":     1,
		"anthropic/claude-3-5-haiku-2024": 0.80,
	} {
		p, ok := table.Lookup(name)
		if !ok || p.Input != want {
			t.Errorf("Lookup(%q) = %v %v, want input $%v", name, p.Input, ok, want)
		}
	}
	if _, ok := table.Lookup("my-local-llama"); ok {
		t.Error("an unknown model has a price: no cost must be shown rather than a guess")
	}
	if err := table.Set("my-local", pricing.Rates{Input: 0.1, Output: 0.2}, nil); err != nil {
		t.Fatal(err)
	}
	p, ok := table.Lookup("my-local-llama")
	if !ok || p.Source != "settings" || p.RatesFor(10).CachedInput != 0.1 {
		t.Errorf("user price = %+v %v: want it found, from settings, cached reads at the input price", p, ok)
	}
	// A user price beats the built-in, however short its name.
	if err := table.Set("claude", pricing.Rates{Input: 1, Output: 2}, nil); err != nil {
		t.Fatal(err)
	}
	if p, _ := table.Lookup("claude-opus-4-5"); p.Input != 1 {
		t.Errorf("override not used: %+v", p)
	}
	if err := table.Set("x", pricing.Rates{Input: -1, Output: 1}, nil); err == nil {
		t.Error("negative rates accepted")
	}
}

func TestQwenBands(t *testing.T) {
	p, _ := pricing.Builtin().Lookup("qwen3-coder-plus")
	for _, c := range []struct {
		prompt int
		input  float64
	}{{32_000, 1}, {32_001, 1.80}, {128_001, 3}, {300_000, 6}} {
		if got := p.RatesFor(c.prompt).Input; got != c.input {
			t.Errorf("prompt %d: input $%v, want $%v", c.prompt, got, c.input)
		}
	}
}

func TestDollars(t *testing.T) {
	for v, want := range map[float64]string{0: "$0", 0.00004: "<$0.0001", 0.0031: "$0.0031", 0.42: "$0.420", 12.4: "$12.40", 1234.6: "$1235"} {
		if got := pricing.Dollars(v); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", v, got, want)
		}
	}
}
