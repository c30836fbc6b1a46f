package handoff

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

var (
	claudeLike = Tools{
		{Name: "Read", Action: Read, Params: map[string]string{ArgPath: "file_path"}},
		{Name: "Edit", Action: Edit, Params: map[string]string{ArgPath: "file_path", ArgOld: "old_string", ArgNew: "new_string"}, Default: map[string]any{"replace_all": false}},
		{Name: "Write", Action: Write, Params: map[string]string{ArgPath: "file_path", ArgContent: "content"}},
		{Name: "Bash", Action: Shell, Params: map[string]string{ArgCommand: "command"}, Ignore: []string{"description"}},
	}
	codexLike = Tools{
		{Name: "exec_command", Action: Shell, Params: map[string]string{ArgCommand: "cmd"}, Workdir: "workdir"},
		{Name: "apply_patch", Action: Edit, Patch: true, Freeform: true},
	}
)

func msg(role transcript.Role, origin transcript.Origin, parts ...transcript.Part) transcript.Message {
	return transcript.Message{Role: role, Origin: origin, Parts: parts}
}

func callOf(id, name, args string) transcript.Part {
	return transcript.Part{Kind: transcript.PartToolCall, ToolCallID: id, ToolName: name, Args: args}
}

func result(id, text string) transcript.Part {
	return transcript.Part{Kind: transcript.PartToolResult, ToolCallID: id, Text: text}
}

func text(s string) transcript.Part { return transcript.Part{Kind: transcript.PartText, Text: s} }

// A Codex turn: calls issued as separate items, their outputs after both,
// a patch, reasoning, then the answer; handed to a Claude-like agent.
func TestConvertCodexTurnToClaude(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: /p/main.go\n@@\n-\tfor i := 0; i < n; i++ {\n+\tfor i := range n {\n*** End Patch\n"
	add := "*** Begin Patch\n*** Add File: /p/new.go\n+package main\n+\n+func x() {}\n*** End Patch\n"
	v := &transcript.View{Messages: []transcript.Message{
		msg(transcript.RoleDeveloper, transcript.OriginInjected, text("sandbox rules")),
		msg(transcript.RoleUser, transcript.OriginHuman, text("fix the loop")),
		msg(transcript.RoleAssistant, transcript.OriginAgent, transcript.Part{Kind: transcript.PartReasoning, Text: "think"}),
		msg(transcript.RoleAssistant, transcript.OriginAgent, callOf("c1", "exec_command", `{"cmd":"cat main.go","workdir":"/p/sub"}`)),
		msg(transcript.RoleAssistant, transcript.OriginAgent, callOf("c2", "exec_command", `{"cmd":"ls","workdir":"/p"}`)),
		msg(transcript.RoleTool, transcript.OriginToolResult, result("c1", "package main")),
		msg(transcript.RoleTool, transcript.OriginToolResult, result("c2", "main.go")),
		msg(transcript.RoleAssistant, transcript.OriginAgent, callOf("c3", "apply_patch", patch)),
		msg(transcript.RoleTool, transcript.OriginToolResult, result("c3", "Success.")),
		msg(transcript.RoleAssistant, transcript.OriginAgent, callOf("c4", "apply_patch", add)),
		msg(transcript.RoleTool, transcript.OriginToolResult, result("c4", "Success.")),
		msg(transcript.RoleAssistant, transcript.OriginAgent, callOf("c5", "web_search", `{"q":"go range"}`)),
		msg(transcript.RoleTool, transcript.OriginToolResult, result("c5", "results…")),
		msg(transcript.RoleAssistant, transcript.OriginAgent, callOf("c6", "exec_command", `{"cmd":"go test"}`)),
		msg(transcript.RoleAssistant, transcript.OriginAgent, text("Done.")),
	}}
	s, st := Convert(v, Options{From: codexLike, To: claudeLike, FromLabel: "Codex", ToLabel: "Claude Code", Cwd: "/p", Note: "handed off"})
	if err := s.Check(); err != nil {
		t.Fatalf("%v\n%s", err, dump(s))
	}
	if st.Mapped != 4 || st.AsText != 2 || st.Reasoning != 1 || st.Instructions != 1 {
		t.Errorf("stats = %+v, want 4 mapped (two shells, an edit, a write), 2 as text (no equivalent, no result), 1 reasoning, 1 instruction", st)
	}
	want := []string{
		`user: text "handed off" | text "fix the loop"`,
		`assistant: call Bash {"command":"cd /p/sub \u0026\u0026 cat main.go"} | call Bash {"command":"ls"}`,
		`user: result "package main" | result "main.go"`,
		`assistant: call Edit {"file_path":"/p/main.go","new_string":"\tfor i := range n {","old_string":"\tfor i := 0; i \u003c n; i++ {"}`,
		`user: result "Success."`,
		`assistant: call Write {"content":"package main\n\nfunc x() {}\n","file_path":"/p/new.go"}`,
		`user: result "Success."`,
	}
	got := strings.Split(dump(s), "\n")
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Fatalf("message %d:\n got  %s\n want %s\nall:\n%s", i, at(got, i), w, dump(s))
		}
	}
	last := s.Messages[len(s.Messages)-1]
	joined := ""
	for _, p := range last.Parts {
		joined += p.Text
	}
	if !strings.Contains(joined, "web_search") || !strings.Contains(joined, "results…") || !strings.Contains(joined, "go test") || !strings.Contains(joined, "no result was recorded") || !strings.HasSuffix(joined, "Done.") {
		t.Errorf("the calls without an equivalent or a result are not rendered faithfully: %q", joined)
	}
}

// Claude's edits and writes become Codex patches, its reads shell reads.
func TestConvertClaudeToolsToCodex(t *testing.T) {
	v := &transcript.View{Messages: []transcript.Message{
		msg(transcript.RoleUser, transcript.OriginHuman, text("go")),
		msg(transcript.RoleAssistant, transcript.OriginAgent, callOf("t1", "Read", `{"file_path":"/p/a b.go"}`), callOf("t2", "Edit", `{"file_path":"/p/a.go","old_string":"x","new_string":"y","replace_all":false}`)),
		msg(transcript.RoleUser, transcript.OriginToolResult, result("t1", "1\tpackage a"), result("t2", "ok"), text("<system-reminder>note</system-reminder>")),
		msg(transcript.RoleAssistant, transcript.OriginAgent, callOf("t3", "Edit", `{"file_path":"/p/a.go","old_string":"x","new_string":"y","replace_all":true}`)),
		msg(transcript.RoleUser, transcript.OriginToolResult, result("t3", "ok")),
		msg(transcript.RoleUser, transcript.OriginHuman, text("next")),
	}}
	s, st := Convert(v, Options{From: claudeLike, To: codexLike, Cwd: "/p"})
	if err := s.Check(); err != nil {
		t.Fatalf("%v\n%s", err, dump(s))
	}
	if st.Mapped != 2 || st.AsText != 1 {
		t.Errorf("stats = %+v: a replace_all edit is not one patch of one place, so it is text", st)
	}
	calls := s.Messages[1].Parts
	if calls[0].Tool != "exec_command" || calls[0].Args != `{"cmd":"cat -- '/p/a b.go'"}` {
		t.Errorf("read = %+v", calls[0])
	}
	if calls[1].Tool != "apply_patch" || !calls[1].Freeform || calls[1].Text != "*** Begin Patch\n*** Update File: /p/a.go\n@@\n-x\n+y\n*** End Patch\n" {
		t.Errorf("edit = %+v", calls[1])
	}
	if p := s.Messages[2].Parts; len(p) != 3 || p[2].Text != "<system-reminder>note</system-reminder>" {
		t.Errorf("the text beside the results is not kept after them: %s", dump(s))
	}
	if last := s.Messages[len(s.Messages)-1]; last.Role != transcript.RoleAssistant || !strings.Contains(last.Parts[0].Text, "handed over") {
		t.Errorf("a session ending on an unanswered prompt gets no closing note: %s", dump(s))
	}
}

func TestPatchRoundTrip(t *testing.T) {
	for _, c := range []call{
		{action: Edit, args: map[string]string{ArgPath: "/a", ArgOld: "one\ntwo", ArgNew: "one\n2"}},
		{action: Write, args: map[string]string{ArgPath: "/b", ArgContent: "x\ny\n"}},
	} {
		got, ok := parsePatch(renderPatch(c.action, c.args))
		if !ok || got.action != c.action || len(got.args) != len(c.args) {
			t.Fatalf("%+v → %+v %v", c, got, ok)
		}
		for k, v := range c.args {
			if got.args[k] != v {
				t.Errorf("%s: %q, want %q", k, got.args[k], v)
			}
		}
	}
	two := "*** Begin Patch\n*** Update File: /a\n@@\n-x\n+y\n*** Update File: /b\n@@\n-x\n+y\n*** End Patch"
	if _, ok := parsePatch(two); ok {
		t.Error("a patch of two files read as one edit")
	}
}

func dump(s *Session) string {
	var lines []string
	for _, m := range s.Messages {
		var parts []string
		for _, p := range m.Parts {
			switch p.Kind {
			case transcript.PartToolCall:
				args := p.Args
				if p.Freeform {
					args = p.Text
				}
				parts = append(parts, "call "+p.Tool+" "+args)
			case transcript.PartToolResult:
				b, _ := json.Marshal(p.Text)
				parts = append(parts, "result "+string(b))
			default:
				b, _ := json.Marshal(p.Text)
				parts = append(parts, "text "+string(b))
			}
		}
		lines = append(lines, string(m.Role)+": "+strings.Join(parts, " | "))
	}
	return strings.Join(lines, "\n")
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}
