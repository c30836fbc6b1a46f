package facts

import "testing"

func TestParseRead(t *testing.T) {
	cases := []struct {
		tool, args string
		ok         bool
		path       string
		from, to   int
	}{
		{"Read", `{"file_path":"/r/x.go","offset":20,"limit":21}`, true, "/r/x.go", 20, 40},
		{"Read", `{"file_path":"x.go"}`, true, "/cwd/x.go", 1, WholeFile},
		{"fs_read_file", `{"path":"src/main.rs","start_line":2,"end_line":5}`, true, "/cwd/src/main.rs", 2, 5},
		{"shell", `{"command":["bash","-lc","sed -n '1,200p' x.go"]}`, true, "/cwd/x.go", 1, 200},
		{"shell", `{"command":["bash","-lc","nl -ba internal/a.go | sed -n '20,40p'"],"workdir":"/w"}`, true, "/w/internal/a.go", 20, 40},
		{"shell", `{"command":"cat x.go"}`, true, "/cwd/x.go", 1, WholeFile},
		{"exec_command", `{"cmd":"head -n 50 x.go"}`, true, "/cwd/x.go", 1, 50},
		{"Bash", `{"command":"sed -n 10,20p ./x.go"}`, true, "/cwd/x.go", 10, 20},
		{"shell", `"{\"command\":[\"bash\",\"-lc\",\"cat a.go\"]}"`, true, "/cwd/a.go", 1, WholeFile},
		{"Bash", `{"command":"cat x.go > y.go"}`, false, "", 0, 0},
		{"Bash", `{"command":"go test ./..."}`, false, "", 0, 0},
		{"Write", `{"file_path":"x.go","content":"x"}`, false, "", 0, 0},
		{"Read", `not json`, false, "", 0, 0},
	}
	for _, tc := range cases {
		got, ok := ParseRead(tc.tool, tc.args, "/cwd")
		if ok != tc.ok || ok && (got.Path != tc.path || got.Lines != (LineRange{tc.from, tc.to})) {
			t.Errorf("ParseRead(%s, %s) = %+v, %v; want %s %d-%d, %v", tc.tool, tc.args, got, ok, tc.path, tc.from, tc.to, tc.ok)
		}
	}
}

func TestSubsumption(t *testing.T) {
	cases := []struct {
		earlier, later LineRange
		want           bool
	}{
		{LineRange{20, 40}, LineRange{1, 200}, true},
		{LineRange{20, 40}, LineRange{1, WholeFile}, true},
		{LineRange{1, WholeFile}, LineRange{1, 200}, false},
		{LineRange{1, 100}, LineRange{50, 150}, false},
		{LineRange{5, 5}, LineRange{5, 5}, true},
	}
	for _, tc := range cases {
		if got := tc.later.Covers(tc.earlier); got != tc.want {
			t.Errorf("%v covers %v = %v, want %v", tc.later, tc.earlier, got, tc.want)
		}
	}
}
