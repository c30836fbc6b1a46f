package strategy

import (
	"strings"
	"testing"
)

func TestTrigger(t *testing.T) {
	cases := []struct {
		name                  string
		trig                  Trigger
		tokens, window, turns int
		want                  bool
	}{
		{"ratio reached", Trigger{Ratio: 0.85}, 170000, 200000, 10, true},
		{"ratio not reached", Trigger{Ratio: 0.85}, 160000, 200000, 10, false},
		{"ratio without window", Trigger{Ratio: 0.85}, 160000, 0, 10, false},
		{"absolute tokens", Trigger{Tokens: 100000}, 100000, 0, 3, true},
		{"turn count", Trigger{Turns: 30}, 10, 200000, 30, true},
		{"any of", Trigger{Ratio: 0.9, Turns: 30}, 190000, 200000, 5, true},
		{"min turns holds back", Trigger{Ratio: 0.5, MinTurns: 4}, 190000, 200000, 3, false},
		{"floor holds back", Trigger{Turns: 2, Floor: 5000}, 4000, 200000, 10, false},
		{"no condition never fires", Trigger{}, 1 << 30, 1000, 1000, false},
	}
	for _, tc := range cases {
		if got := tc.trig.Fires(tc.tokens, tc.window, tc.turns); got != tc.want {
			t.Errorf("%s: Fires = %v, want %v", tc.name, got, tc.want)
		}
	}
	if err := (Trigger{Ratio: 1.2}).Validate(); err == nil {
		t.Errorf("ratio 1.2 validated")
	}
	if err := (Trigger{}).Validate(); err == nil {
		t.Errorf("empty trigger validated")
	}
}

func TestPlaceholders(t *testing.T) {
	c := counter(t)
	args, ok := stripArgs(`{"file_path":"a.go","content":"`+longLine(50)+`"}`, c.Text, noRecall)
	if !ok || args[:len(`{"file_path":"a.go","content":"[compacted: `)] != `{"file_path":"a.go","content":"[compacted: ` {
		t.Errorf("stripArgs = %s, %v", args, ok)
	}
	if _, ok := stripArgs(`{"file_path":"a.go","old_string":"x","new_string":"y"}`, c.Text, noRecall); ok {
		t.Errorf("short args were stripped")
	}
	patch, ok := stripArgs("*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n"+longLine(40), c.Text, noRecall)
	if !ok || !strings.Contains(patch, "*** Update File: a.go") {
		t.Errorf("apply_patch strip lost the file header: %q", patch)
	}
}

func longLine(n int) string {
	return strings.Repeat("line text ", n)
}

// noRecall leaves placeholders without a recall handle.
func noRecall(placeholder, _ string) string { return placeholder }
