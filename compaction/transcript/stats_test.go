package transcript

import (
	"math/rand/v2"
	"testing"
)

// naiveStats is the definition Stats must agree with.
func naiveStats(msgs []Message) Stats {
	s := Stats{Messages: len(msgs), LastUsage: -1, ModelAt: -1}
	for i, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == PartToolCall {
				s.ToolCalls++
			}
		}
		if m.Usage != nil {
			s.LastUsage = i
		}
		if m.Model != "" && m.Model != "<synthetic>" {
			s.Model, s.ModelAt = m.Model, i
		}
	}
	return s
}

func randomMessage(r *rand.Rand) Message {
	m := Message{Role: RoleAssistant}
	for range r.IntN(4) {
		kind := PartText
		if r.IntN(2) == 0 {
			kind = PartToolCall
		}
		m.Parts = append(m.Parts, Part{Kind: kind})
	}
	if r.IntN(4) == 0 {
		m.Usage = &Usage{Input: r.IntN(1000)}
	}
	switch r.IntN(5) {
	case 0:
		m.Model = "claude-opus-4-1"
	case 1:
		m.Model = "<synthetic>"
	case 2:
		m.Model = "gpt-5"
	}
	return m
}

func TestStatsOf(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want Stats
	}{
		{"empty", nil, Stats{LastUsage: -1, ModelAt: -1}},
		{"synthetic model is not a model", []Message{{Model: "claude-opus-4-1"}, {Model: "<synthetic>"}}, Stats{Messages: 2, LastUsage: -1, Model: "claude-opus-4-1", ModelAt: 0}},
		{"usage and tool calls", []Message{
			{Parts: []Part{{Kind: PartToolCall}, {Kind: PartText}, {Kind: PartToolCall}}, Usage: &Usage{Input: 1}},
			{Parts: []Part{{Kind: PartToolResult}}},
		}, Stats{Messages: 2, ToolCalls: 2, LastUsage: 0, ModelAt: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StatsOf(tt.msgs); got != tt.want {
				t.Fatalf("StatsOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestStatsAdvanceEqualsRecompute grows, rewrites and shrinks random
// message lists and checks the carried-forward figures against a full
// recomputation every step, including when the last usage or model sat
// in the changed part and disappeared.
func TestStatsAdvanceEqualsRecompute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		var prev []Message
		st := StatsOf(prev)
		for step := range 30 {
			kept := 0
			if len(prev) > 0 {
				kept = r.IntN(len(prev) + 1)
			}
			next := append([]Message(nil), prev[:kept]...)
			for range r.IntN(6) {
				next = append(next, randomMessage(r))
			}
			st = st.Advance(prev, next, kept)
			if want := naiveStats(next); st != want {
				t.Fatalf("trial %d step %d (kept %d of %d → %d): Advance = %+v, want %+v", trial, step, kept, len(prev), len(next), st, want)
			}
			prev = next
		}
	}
}

func TestStatsAdvanceRecomputesForeignFigures(t *testing.T) {
	msgs := []Message{{Model: "a", Usage: &Usage{Input: 1}}, {Parts: []Part{{Kind: PartToolCall}}}}
	// Figures of some other list (wrong message count) and a kept count
	// beyond the lists must not be trusted.
	for _, tc := range []struct {
		s    Stats
		kept int
	}{{Stats{Messages: 7, ToolCalls: 40}, 1}, {StatsOf(msgs[:1]), 5}, {StatsOf(msgs[:1]), -1}} {
		if got, want := tc.s.Advance(msgs[:1], msgs, tc.kept), naiveStats(msgs); got != want {
			t.Fatalf("Advance(%+v, kept %d) = %+v, want %+v", tc.s, tc.kept, got, want)
		}
	}
}
