package strategy

import (
	"strings"
	"testing"
)

func TestParseRead(t *testing.T) {
	cases := []struct {
		tool, args string
		ok         bool
		path       string
		from, to   int
	}{
		{"Read", `{"file_path":"/r/x.go","offset":20,"limit":21}`, true, "/r/x.go", 20, 40},
		{"Read", `{"file_path":"x.go"}`, true, "/cwd/x.go", 1, wholeFile},
		{"fs_read_file", `{"path":"src/main.rs","start_line":2,"end_line":5}`, true, "/cwd/src/main.rs", 2, 5},
		{"shell", `{"command":["bash","-lc","sed -n '1,200p' x.go"]}`, true, "/cwd/x.go", 1, 200},
		{"shell", `{"command":["bash","-lc","nl -ba internal/a.go | sed -n '20,40p'"],"workdir":"/w"}`, true, "/w/internal/a.go", 20, 40},
		{"shell", `{"command":"cat x.go"}`, true, "/cwd/x.go", 1, wholeFile},
		{"exec_command", `{"cmd":"head -n 50 x.go"}`, true, "/cwd/x.go", 1, 50},
		{"Bash", `{"command":"sed -n 10,20p ./x.go"}`, true, "/cwd/x.go", 10, 20},
		{"shell", `"{\"command\":[\"bash\",\"-lc\",\"cat a.go\"]}"`, true, "/cwd/a.go", 1, wholeFile},
		{"Bash", `{"command":"cat x.go > y.go"}`, false, "", 0, 0},
		{"Bash", `{"command":"go test ./..."}`, false, "", 0, 0},
		{"Write", `{"file_path":"x.go","content":"x"}`, false, "", 0, 0},
		{"Read", `not json`, false, "", 0, 0},
	}
	for _, tc := range cases {
		got, ok := parseRead(tc.tool, tc.args, "/cwd")
		if ok != tc.ok || ok && (got.path != tc.path || got.lines != (lineRange{tc.from, tc.to})) {
			t.Errorf("parseRead(%s, %s) = %+v, %v; want %s %d-%d, %v", tc.tool, tc.args, got, ok, tc.path, tc.from, tc.to, tc.ok)
		}
	}
}

func TestSubsumption(t *testing.T) {
	cases := []struct {
		earlier, later lineRange
		want           bool
	}{
		{lineRange{20, 40}, lineRange{1, 200}, true},
		{lineRange{20, 40}, lineRange{1, wholeFile}, true},
		{lineRange{1, wholeFile}, lineRange{1, 200}, false},
		{lineRange{1, 100}, lineRange{50, 150}, false},
		{lineRange{5, 5}, lineRange{5, 5}, true},
	}
	for _, tc := range cases {
		if got := tc.later.covers(tc.earlier); got != tc.want {
			t.Errorf("%v covers %v = %v, want %v", tc.later, tc.earlier, got, tc.want)
		}
	}
}

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
	args, ok := stripArgs(`{"file_path":"a.go","content":"`+longLine(50)+`"}`, c.Text)
	if !ok || args[:len(`{"file_path":"a.go","content":"[compacted: `)] != `{"file_path":"a.go","content":"[compacted: ` {
		t.Errorf("stripArgs = %s, %v", args, ok)
	}
	if _, ok := stripArgs(`{"file_path":"a.go","old_string":"x","new_string":"y"}`, c.Text); ok {
		t.Errorf("short args were stripped")
	}
	patch, ok := stripArgs("*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n"+longLine(40), c.Text)
	if !ok || !strings.Contains(patch, "*** Update File: a.go") {
		t.Errorf("apply_patch strip lost the file header: %q", patch)
	}
}

func longLine(n int) string {
	return strings.Repeat("line text ", n)
}
