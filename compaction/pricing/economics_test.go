package pricing

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestEconomicsByHand: the one-time cost, the saving per turn and the
// break-even of compacting now, against a hand calculation from the price
// table's list prices (dollars per million tokens).
func TestEconomicsByHand(t *testing.T) {
	table := Builtin()
	tests := []struct {
		name, model      string
		context, removed int
		idle             time.Duration
		oneTime, perTurn float64
		breakEven        int
		cold             bool
		lineHas          string
	}{
		// Anthropic, cache write 3.75 and read 0.30: the 30,000 kept
		// tokens written once, 30,000 × 3.75 = $0.1125; 150,000 removed
		// no longer read, 150,000 × 0.30 = $0.045 a turn; 0.1125 / 0.045
		// = 2.5, so 3 turns.
		{name: "anthropic", model: "claude-sonnet-4-5-20250929", context: 180_000, removed: 150_000, idle: time.Minute,
			oneTime: 0.1125, perTurn: 0.045, breakEven: 3, lineHas: "pays back after 3 turns"},
		// OpenAI, no write price: the kept context read uncached at input
		// 1.25, 30,000 × 1.25 = $0.0375; cached input 0.125, 150,000 ×
		// 0.125 = $0.01875 a turn; 2 turns exactly.
		{name: "openai", model: "gpt-5-codex", context: 180_000, removed: 150_000, idle: time.Minute,
			oneTime: 0.0375, perTurn: 0.01875, breakEven: 2, lineHas: "pays back after 2 turns"},
		// Gemini 2.5 Pro above 200k: the 250,000-token prompt pays cached
		// 0.25, the 50,000 kept 0.125 (below the band) and is written at
		// input 1.25: 50,000 × 1.25 = $0.0625 once; 250,000 × 0.25 −
		// 50,000 × 0.125 = 62,500 − 6,250 → $0.05625 a turn; 1.11 → 2.
		{name: "gemini", model: "gemini-2.5-pro", context: 250_000, removed: 200_000, idle: time.Minute,
			oneTime: 0.0625, perTurn: 0.05625, breakEven: 2, lineHas: "pays back after 2 turns"},
		// Anthropic idle 6 minutes: its 5-minute cache expired, the next
		// request writes the whole context anyway — compacting costs
		// nothing extra.
		{name: "anthropic cold", model: "claude-sonnet-4-5", context: 180_000, removed: 150_000, idle: 6 * time.Minute,
			oneTime: 0, perTurn: 0.045, breakEven: 0, cold: true, lineHas: "good time to compact"},
		// OpenAI idle 6 minutes is not cold for sure (up to an hour).
		{name: "openai idle 6 min", model: "gpt-5", context: 180_000, removed: 150_000, idle: 6 * time.Minute,
			oneTime: 0.0375, perTurn: 0.01875, breakEven: 2},
		{name: "openai cold", model: "gpt-5", context: 180_000, removed: 150_000, idle: 61 * time.Minute,
			oneTime: 0, perTurn: 0.01875, breakEven: 0, cold: true, lineHas: "good time to compact"},
		// Idle unknown: never called cold.
		{name: "idle unknown", model: "claude-sonnet-4-5", context: 180_000, removed: 150_000, idle: -1,
			oneTime: 0.1125, perTurn: 0.045, breakEven: 3},
		{name: "nothing removed", model: "claude-sonnet-4-5", context: 180_000, removed: 0, idle: time.Minute,
			oneTime: 0.675, perTurn: 0, breakEven: -1, lineHas: "saves nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := table.Lookup(tt.model)
			if !ok {
				t.Fatalf("no price for %s", tt.model)
			}
			e := p.Economics(tt.context, tt.removed, tt.idle)
			if !near(e.OneTime, tt.oneTime) || !near(e.PerTurn, tt.perTurn) || e.BreakEven != tt.breakEven || e.Cold != tt.cold {
				t.Fatalf("one-time $%v, per turn $%v, break-even %d, cold %v; want $%v, $%v, %d, %v",
					e.OneTime, e.PerTurn, e.BreakEven, e.Cold, tt.oneTime, tt.perTurn, tt.breakEven, tt.cold)
			}
			if e.Kept != tt.context-tt.removed {
				t.Errorf("kept %d", e.Kept)
			}
			if !strings.Contains(e.Line, tt.lineHas) {
				t.Errorf("line %q lacks %q", e.Line, tt.lineHas)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
