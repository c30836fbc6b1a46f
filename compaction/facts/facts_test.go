package facts_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/transcript"
)

func prose(role transcript.Role, origin transcript.Origin, text string) transcript.Message {
	return transcript.Message{Role: role, Origin: origin, Parts: []transcript.Part{{Kind: transcript.PartText, Text: text}}}
}

func call(tool, args string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Origin: transcript.OriginAgent,
		Parts: []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: "c", ToolName: tool, Args: args}}}
}

func result(text string, isError bool) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginToolResult,
		Parts: []transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: "c", Text: text, IsError: isError}}}
}

func fact(kind, text string) facts.Fact { return facts.Fact{Kind: kind, Text: text} }

// goSource is a successful read of Go code: "error" on every other line,
// a file:line location, and no failure at all.
const goSource = "func (s *Service) Get(ctx context.Context) error {\n\treturn fmt.Errorf(\"get: %w\", err)\n}\nhandler.go:12: // cannot find is fine here\npanic: not really, a comment\n"

func TestExtract(t *testing.T) {
	user, asst := transcript.RoleUser, transcript.RoleAssistant
	human, injected, agent := transcript.OriginHuman, transcript.OriginInjected, transcript.OriginAgent
	long := "Always " + strings.Repeat("keep going ", 40)
	cases := []struct {
		name string
		msgs []transcript.Message
		want []facts.Fact
	}{
		{"human prompt: rule line, path, backticked identifier",
			[]transcript.Message{prose(user, human, "Fix internal/api/handler.go so `ReserveStock` works.\nAlways run go vet first.")},
			[]facts.Fact{fact(facts.Instruction, "Always run go vet first."), fact(facts.Path, "internal/api/handler.go"), fact(facts.Identifier, "ReserveStock")}},
		{"a prompt without an origin is human",
			[]transcript.Message{prose(user, "", "Never touch go.sum.")},
			[]facts.Fact{fact(facts.Instruction, "Never touch go.sum.")}},
		{"assistant decision and tasks; a user's 'instead of' is no decision",
			[]transcript.Message{
				prose(user, human, "Use a heap instead of a scan?"),
				prose(asst, agent, "I'll use a min-heap instead of a scan.\nTODO: add a benchmark\n- [ ] update the README\nNext steps: ship it"),
			},
			[]facts.Fact{fact(facts.Decision, "I'll use a min-heap instead of a scan."), fact(facts.Task, "TODO: add a benchmark"), fact(facts.Task, "- [ ] update the README"), fact(facts.Task, "Next steps: ship it")}},
		{"an assistant's 'always' is no instruction; identifiers shorter than 3 are not facts",
			[]transcript.Message{prose(asst, agent, "I always check `ok` and `Err`.")},
			[]facts.Fact{fact(facts.Identifier, "Err")}},
		{"injected boilerplate yields nothing",
			[]transcript.Message{prose(user, injected, "<environment_context>cwd /src/app/main.go; always sandboxed; `Tool`</environment_context>")},
			nil},
		{"injected standing instructions yield their rules, paths and identifiers",
			[]transcript.Message{prose(user, injected, "Contents of /repo/CLAUDE.md:\n- Never edit vendor/x.go\n- Use `slog` for logs")},
			[]facts.Fact{fact(facts.Instruction, "- Never edit vendor/x.go"), fact(facts.Path, "/repo/CLAUDE.md"), fact(facts.Path, "vendor/x.go"), fact(facts.Identifier, "slog")}},
		{"a memory file named in prose is no memory file: Claude Code's list of skills",
			[]transcript.Message{prose(user, injected, "- code-review: Review the diff for correctness bugs (plus broken CLAUDE.md rules).\n- dataviz: A palette is documented in `references/palette.md`.\n- keybindings: edit ~/.claude/keybindings.json")},
			nil},
		{"system prompts count as injected",
			[]transcript.Message{prose(transcript.RoleSystem, "", "You must answer in French. See docs/guide.md")},
			nil},
		{"URLs are not paths",
			[]transcript.Message{prose(user, human, "see https://example.com/a/b.html")},
			nil},
		{"shell commands under every key, Codex argv and string-wrapped arguments",
			[]transcript.Message{
				call("Bash", `{"command":"go test ./...","description":"Run tests"}`),
				call("shell", `{"command":["bash","-lc","make lint"]}`),
				call("shell", `"{\"command\":[\"bash\",\"-c\",\"npm ci\"]}"`),
				call("run_shell_command", `{"commandLine":"cargo build"}`),
				call("execute_command", `{"script":"./build.sh --fast"}`),
				call("exec_command", `{"cmd":["git","status","--short"]}`),
			},
			[]facts.Fact{fact(facts.Command, "go test ./..."), fact(facts.Command, "make lint"), fact(facts.Command, "npm ci"), fact(facts.Command, "cargo build"), fact(facts.Command, "./build.sh --fast"), fact(facts.Command, "git status --short")}},
		{"a shell read names its file before its command",
			[]transcript.Message{call("exec_command", `{"cmd":["bash","-lc","sed -n '1,80p' internal/a.go"],"workdir":"/w"}`)},
			[]facts.Fact{fact(facts.Path, "internal/a.go"), fact(facts.Command, "sed -n '1,80p' internal/a.go")}},
		{"file tools: every path key, once",
			[]transcript.Message{
				call("Read", `{"file_path":"/r/x.go","offset":3}`),
				call("read_file", `{"absolute_path":"/r/y.go"}`),
				call("NotebookEdit", `{"notebook_path":"/r/n.ipynb","new_source":"x"}`),
				call("list_directory", `{"dir_path":"/r/internal"}`),
				call("Edit", `{"file_path":"/r/x.go","old_string":"a","new_string":"b"}`),
			},
			[]facts.Fact{fact(facts.Path, "/r/x.go"), fact(facts.Path, "/r/y.go"), fact(facts.Path, "/r/n.ipynb"), fact(facts.Path, "/r/internal")}},
		{"an editor tool's sub-command is no shell command",
			[]transcript.Message{call("str_replace_based_edit_tool", `{"command":"view","path":"/r/a.go"}`)},
			[]facts.Fact{fact(facts.Path, "/r/a.go")}},
		{"apply_patch, raw and wrapped in JSON",
			[]transcript.Message{
				call("apply_patch", "*** Begin Patch\n*** Update File: a/b.go\n@@\n-x\n+y\n*** Add File: a/c.go\n+z\n*** End Patch"),
				call("apply_patch", `{"input":"*** Begin Patch\n*** Delete File: a/d.go\n*** End Patch"}`),
			},
			[]facts.Fact{fact(facts.Path, "a/b.go"), fact(facts.Path, "a/c.go"), fact(facts.Path, "a/d.go")}},
		{"todo lists: open items only, Claude and Codex shapes",
			[]transcript.Message{
				call("TodoWrite", `{"todos":[{"content":"Add a benchmark","status":"pending"},{"content":"Write docs","status":"completed"},{"content":"Fix CI","status":"in_progress"}]}`),
				call("update_plan", `{"plan":[{"step":"Profile the hot loop","status":"pending"},{"step":"Done thing","status":"completed"}]}`),
			},
			[]facts.Fact{fact(facts.Task, "Add a benchmark"), fact(facts.Task, "Fix CI"), fact(facts.Task, "Profile the hot loop")}},
		{"a failed result yields its first error lines",
			[]transcript.Message{result("Exit code 1\n# pkg\nmain.go:3:1: undefined: Foo\nmain.go:4:1: undefined: Bar\nmain.go:5:1: undefined: Baz\nmain.go:6:1: undefined: Qux\nFAIL\tpkg [build failed]", true)},
			[]facts.Fact{fact(facts.Error, "main.go:3:1: undefined: Foo"), fact(facts.Error, "main.go:4:1: undefined: Bar"), fact(facts.Error, "main.go:5:1: undefined: Baz")}},
		{"a non-zero exit code fails a result the agent did not flag",
			[]transcript.Message{result("error: build failed\nProcess exited with code 2", false)},
			[]facts.Fact{fact(facts.Error, "error: build failed")}},
		{"successful results have no error facts, whatever they say",
			[]transcript.Message{result(goSource, false), result("Exit code: 0\nerror: none really", false), result(`{"output":"panic: x","metadata":{"exit_code":0}}`, false)},
			nil},
		{"the same text in a failed result does",
			[]transcript.Message{result(goSource, true)},
			[]facts.Fact{fact(facts.Error, "handler.go:12: // cannot find is fine here"), fact(facts.Error, "panic: not really, a comment")}},
		{"compaction placeholders are not the conversation's",
			[]transcript.Message{prose(user, human, "[compacted: Read /r/a.go lines 1-40, 1,200 tokens]"), prose(asst, agent, facts.PlaceholderPrefix+"TODO: decided `Thing`]")},
			nil},
		{"each fact once, in order of first mention",
			[]transcript.Message{prose(user, human, "Always test a/b.go"), call("Read", `{"file_path":"a/b.go"}`), prose(user, human, "Always test a/b.go")},
			[]facts.Fact{fact(facts.Instruction, "Always test a/b.go"), fact(facts.Path, "a/b.go")}},
		{"lines over 300 bytes are no facts; invalid UTF-8 is replaced",
			[]transcript.Message{prose(user, human, long+"\nAlways use caf\xe9 mode")},
			[]facts.Fact{fact(facts.Instruction, "Always use caf\uFFFD mode")}},
		{"reasoning, images and results without text yield nothing",
			[]transcript.Message{{Role: asst, Parts: []transcript.Part{{Kind: transcript.PartReasoning, Text: "I decided to use `X` in a/b.go"}, {Kind: transcript.PartImage, MIME: "image/png"}}}, result("", true)},
			nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := facts.Extract(tc.msgs)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Extract =\n%s\nwant\n%s", show(got), show(tc.want))
			}
		})
	}
}

func show(list []facts.Fact) string {
	var b strings.Builder
	for _, f := range list {
		fmt.Fprintf(&b, "  %s %q\n", f.Kind, f.Text)
	}
	return b.String()
}

// TestSetIsPerPart: a part yields the same facts wherever it stands, which
// the retention report relies on to credit parts a compaction kept.
func TestSetIsPerPart(t *testing.T) {
	msgs := []transcript.Message{
		prose(transcript.RoleUser, transcript.OriginHuman, "Always run `go vet` on cmd/main.go"),
		call("Bash", `{"command":"go vet ./..."}`),
		result("vet: cmd/main.go:3:2: undefined: x\nexit status 1", false),
		prose(transcript.RoleAssistant, transcript.OriginAgent, "Going with a table test.\nTODO: more cases"),
	}
	all := facts.Extract(msgs)
	if len(all) != 6 {
		t.Fatalf("Extract found %d facts, want 6:\n%s", len(all), show(all))
	}
	var backwards facts.Set
	for i := len(msgs) - 1; i >= 0; i-- {
		for j := range msgs[i].Parts {
			backwards.AddPart(&msgs[i], &msgs[i].Parts[j])
		}
	}
	if backwards.Len() != len(all) {
		t.Fatalf("part by part, backwards: %d facts, want %d", backwards.Len(), len(all))
	}
	for _, f := range all {
		if !backwards.Has(f) {
			t.Errorf("part by part, backwards, lacks %s %q", f.Kind, f.Text)
		}
	}
	if backwards.Has(fact(facts.Command, "go test")) {
		t.Error("Has reports a fact never added")
	}
}

func TestKinds(t *testing.T) {
	k := facts.Kinds()
	if len(k) != 7 || k[0] != facts.Path || k[6] != facts.Task {
		t.Fatalf("Kinds = %v", k)
	}
	k[0] = "changed"
	if facts.Kinds()[0] != facts.Path {
		t.Fatal("Kinds hands out shared state")
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("Always use a/b.go `Thing`\nTODO: x", "Bash", `{"command":["bash","-lc","go test"]}`, "Exit code 1\nerror: x", true)
	f.Add("\xed\xa0\x80 never \xff", "apply_patch", "*** Update File: \xff.go\n", "exit_code: 3\n\xffFAIL", false)
	f.Add("", "TodoWrite", `{"todos":[{"content":1},{"content":"a","status":null}],"plan":"x"}`, "", false)
	f.Add("instead of", "shell", `"{\"command\":[1,2,3]}"`, "panic: \n", true)
	f.Fuzz(func(t *testing.T, text, tool, args, out string, isErr bool) {
		msgs := []transcript.Message{
			prose(transcript.RoleUser, transcript.OriginHuman, text),
			prose(transcript.RoleAssistant, transcript.OriginAgent, text),
			prose(transcript.RoleUser, transcript.OriginInjected, "CLAUDE.md\n"+text),
			call(tool, args),
			result(out, isErr),
		}
		seen := map[facts.Fact]bool{}
		for _, fa := range facts.Extract(msgs) {
			if fa.Text == "" || len(fa.Text) > 300 || !utf8.ValidString(fa.Text) || strings.TrimSpace(fa.Text) != fa.Text {
				t.Fatalf("bad fact %s %q", fa.Kind, fa.Text)
			}
			if !slices.Contains(facts.Kinds(), fa.Kind) {
				t.Fatalf("unknown kind %q", fa.Kind)
			}
			if seen[fa] {
				t.Fatalf("fact twice: %s %q", fa.Kind, fa.Text)
			}
			seen[fa] = true
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	var msgs []transcript.Message
	for i := range 2000 {
		msgs = append(msgs,
			prose(transcript.RoleUser, transcript.OriginHuman, fmt.Sprintf("Always fix internal/pkg%d/file.go `Func%d`", i%50, i%30)),
			call("Bash", fmt.Sprintf(`{"command":"go test ./internal/pkg%d/"}`, i%50)),
			result(strings.Repeat(goSource, 20), i%5 == 0),
		)
	}
	b.ResetTimer()
	for b.Loop() {
		facts.Extract(msgs)
	}
}
