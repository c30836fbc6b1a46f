package facts_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestCommandOf(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"command":"go test ./..."}`, "go test ./..."},
		{`{"cmd":"ls -la"}`, "ls -la"},
		{`{"commandLine":"npm run build"}`, "npm run build"},
		{`{"script":"make"}`, "make"},
		{`{"command":["bash","-lc","cd x && make"]}`, "cd x && make"},
		{`{"command":["sh","-c","echo hi"]}`, "echo hi"},
		{`{"command":["git","diff","--stat"]}`, "git diff --stat"},
		{`{"command":["bash","-lc"]}`, "bash -lc"},
		{`{"command":["python",1,"-m"]}`, "python -m"},
		{`"{\"cmd\":[\"bash\",\"-lc\",\"go vet\"]}"`, "go vet"},
		{`{"command":"first","cmd":"second"}`, "first"},
		{`{"description":"no command"}`, ""},
		{`{"command":42}`, ""},
		{`not json`, ""},
		{`["bash","-lc","x"]`, ""},
		{`"just a string"`, ""},
	} {
		if got := facts.CommandOf(tc.args); got != tc.want {
			t.Errorf("CommandOf(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestTargetPathAndStringArg(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"file_path":"/a/b.go","path":"/ignored"}`, "/a/b.go"},
		{`{"path":"  src/x.rs  "}`, "src/x.rs"},
		{`{"filePath":"c.ts"}`, "c.ts"},
		{`{"absolute_path":"/abs/d.py"}`, "/abs/d.py"},
		{`{"target_file":"e.go"}`, "e.go"},
		{`{"dir_path":"internal"}`, "internal"},
		{`{"file_path":"   ","path":"fallback.go"}`, "fallback.go"},
		{`{"file_path":7}`, ""},
		{`{}`, ""},
	} {
		if got := facts.TargetPath(facts.Args(tc.args)); got != tc.want {
			t.Errorf("TargetPath(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := facts.TargetPath(nil); got != "" {
		t.Errorf("TargetPath(nil) = %q", got)
	}
}

func TestIsShellTool(t *testing.T) {
	for _, name := range []string{"Bash", "bash", "shell", "exec_command", "run_shell_command", "execute_command", "local_shell", "run_terminal_cmd"} {
		if !facts.IsShellTool(name) {
			t.Errorf("%s is a shell tool", name)
		}
	}
	for _, name := range []string{"Read", "apply_patch", "str_replace_based_edit_tool", ""} {
		if facts.IsShellTool(name) {
			t.Errorf("%s is no shell tool", name)
		}
	}
}

func TestPatchFiles(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: new.go\n+x\n*** Update File: dir/old.go\n@@\n*** Delete File: gone.go\n  *** Update File:   spaced.go  \n*** Update File: \n*** End Patch"
	want := []facts.PatchFile{{"wrote", "new.go"}, {"edited", "dir/old.go"}, {"deleted", "gone.go"}, {"edited", "spaced.go"}}
	if got := facts.PatchFiles(patch); !slices.Equal(got, want) {
		t.Errorf("PatchFiles = %v, want %v", got, want)
	}
	if got := facts.PatchFiles("no patch here"); got != nil {
		t.Errorf("PatchFiles(prose) = %v", got)
	}
	if got := facts.PatchText(`{"patch":"*** Update File: p.go"}`); got != "*** Update File: p.go" {
		t.Errorf("PatchText = %q", got)
	}
	if raw := "*** Begin Patch"; facts.PatchText(raw) != raw {
		t.Errorf("PatchText changed a raw patch")
	}
}

func TestTodos(t *testing.T) {
	got := facts.Todos(facts.Args(`{"todos":[{"content":"a","status":"completed"},{"content":" ","status":"pending"},{"description":"b"},"junk"],"plan":[{"step":"c","status":"in_progress"},{"title":"d"}]}`))
	want := []facts.Todo{{"a", "completed"}, {"b", ""}, {"c", "in_progress"}, {"d", ""}}
	if !slices.Equal(got, want) {
		t.Errorf("Todos = %v, want %v", got, want)
	}
	if open := facts.OpenTodos(facts.Args(`{"todos":[{"content":"a","status":"completed"},{"content":"b"}]}`)); !slices.Equal(open, []string{"b"}) {
		t.Errorf("OpenTodos = %v", open)
	}
}

func TestFailedAndExitCode(t *testing.T) {
	big := strings.Repeat("ok line\n", 200)
	for _, tc := range []struct {
		text   string
		isErr  bool
		code   string
		failed bool
	}{
		{"Exit code 1\nboom", false, "1", true},
		{"Exit code: 0\nall good", false, "0", false},
		{`{"output":"x","metadata":{"exit_code":2}}`, false, "2", true},
		{"output\nProcess exited with code 137", false, "137", true},
		{"build\nexit status 1", false, "1", true},
		{"nothing said", true, "", true},
		{"nothing said", false, "", false},
		{"Exit code 1\n" + big, false, "1", true},
		{big + "Exit code 3", false, "3", true},
		// An exit code in the middle of a long output is some other tool's.
		{big + "Exit code 4\n" + big, false, "", false},
	} {
		code, ok := facts.ExitCode(tc.text)
		if code != tc.code || ok != (tc.code != "") {
			t.Errorf("ExitCode(%.30q) = %q, %v; want %q", tc.text, code, ok, tc.code)
		}
		if got := facts.Failed(&transcript.Part{Kind: transcript.PartToolResult, Text: tc.text, IsError: tc.isErr}); got != tc.failed {
			t.Errorf("Failed(%.30q, isError %v) = %v, want %v", tc.text, tc.isErr, got, tc.failed)
		}
	}
}

func TestErrorLines(t *testing.T) {
	out := "  ok pkg\n--- FAIL: TestX (0.01s)\n--- FAIL: TestX (0.01s)\nx_test.go:12: got 1\nerror[E0308]: mismatched types\nsrc/app.ts(3,1): error TS2304: x\nTraceback (most recent call last):\n"
	want := []string{"--- FAIL: TestX (0.01s)", "x_test.go:12: got 1", "error[E0308]: mismatched types", "src/app.ts(3,1): error TS2304: x", "Traceback (most recent call last):"}
	if got := facts.ErrorLines(out, 10); !slices.Equal(got, want) {
		t.Errorf("ErrorLines =\n%q\nwant\n%q", got, want)
	}
	if got := facts.ErrorLines(out, 2); !slices.Equal(got, want[:2]) {
		t.Errorf("ErrorLines limit 2 = %q", got)
	}
	for _, line := range []string{"func f() error {", "return err", "errors.Is(err, io.EOF)", "ok  \tpkg\t0.1s"} {
		if facts.IsErrorLine(line) {
			t.Errorf("IsErrorLine(%q) = true", line)
		}
	}
	long := "error: " + strings.Repeat("é", 200)
	got := facts.ErrorLines(long, 1)
	if len(got) != 1 || len(got[0]) > 160+len("…") || !utf8.ValidString(got[0]) || !strings.HasSuffix(got[0], "…") {
		t.Errorf("long error line = %q", got)
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"two\nlines", 20, "two lines"},
		{"abcdef", 3, "abc…"},
		{"aé", 2, "a…"},
		{"", 0, ""},
	} {
		if got := facts.Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestWrittenReadsEveryAgentsEdits(t *testing.T) {
	tests := []struct {
		tool, args string
		want       []facts.Write
	}{
		{"Write", `{"file_path":"/r/a.go","content":"package a\n"}`, []facts.Write{{"/r/a.go", "package a\n", true}}},
		{"Edit", `{"file_path":"/r/a.go","old_string":"x","new_string":"y := 2"}`, []facts.Write{{"/r/a.go", "y := 2", false}}},
		{"MultiEdit", `{"file_path":"a.go","edits":[{"old_string":"a","new_string":"one"},{"old_string":"b","new_string":"two"}]}`, []facts.Write{{"a.go", "one\ntwo", false}}},
		{"replace", `{"file_path":"lib/x.py","old_string":"a","new_string":"b = 1"}`, []facts.Write{{"lib/x.py", "b = 1", false}}},
		{"str_replace_editor", `{"command":"create","path":"x.md","file_text":"# X"}`, []facts.Write{{"x.md", "# X", true}}},
		{"str_replace_editor", `{"command":"view","path":"x.md"}`, nil},
		{"Read", `{"file_path":"/r/a.go"}`, nil},
		{"apply_patch", "*** Begin Patch\n*** Update File: src/b.rs\n@@\n-old\n+new line\n ctx\n*** Add File: c.txt\n+hello\n*** End Patch", []facts.Write{{"src/b.rs", "new line", false}, {"c.txt", "hello", true}}},
		{"shell", `{"command":["bash","-lc","apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: d.go\n+func D() {}\n*** End Patch\nEOF"]}`, []facts.Write{{"d.go", "func D() {}", false}}},
		{"Bash", `{"command":"go test ./..."}`, nil},
	}
	for _, tt := range tests {
		if got := facts.Written(tt.tool, tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("Written(%s, %s) = %+v, want %+v", tt.tool, tt.args, got, tt.want)
		}
	}
}
