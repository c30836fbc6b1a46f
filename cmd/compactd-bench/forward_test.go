package main

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func entityKeys(s entitySet) []string {
	var out []string
	for e := range s {
		out = append(out, e.Kind+":"+e.Key)
	}
	sort.Strings(out)
	return out
}

func TestMeasureEntities(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"edit /Users/dev/repo/cmd/entire/cli/reset.go and reset_test.go", []string{"path:cli/reset.go", "path:reset_test.go"}},
		{"call paths.RepoRoot() not os.Getwd, see fileExists", []string{"identifier:RepoRoot", "identifier:fileExists", "identifier:os.Getwd", "identifier:paths.RepoRoot"}},
		{"read and/or write, e.g. the docs", nil},
		{"see https://github.com/x/y/pull/3. TS2345 and ENOENT", []string{"error-code:ENOENT", "error-code:TS2345", "url:https://github.com/x/y/pull/3"}},
		{"MAX_RETRIES is 3; the String method", []string{"identifier:MAX_RETRIES"}},
	}
	for _, tt := range tests {
		got := entitySet{}
		textEntities(tt.text, got)
		if keys := entityKeys(got); !slices.Equal(keys, tt.want) {
			t.Errorf("textEntities(%q) = %v, want %v", tt.text, keys, tt.want)
		}
	}
}

func TestMeasureCommands(t *testing.T) {
	got := entitySet{}
	argsEntities(`{"command":"cd /repo && GOFLAGS=-x go test ./redact -count=1 | tail -5"}`, got)
	argsEntities(`{"command":["bash","-lc","git status --short"]}`, got)
	for _, want := range []string{"command:go test", "command:tail", "command:git status"} {
		if !slices.Contains(entityKeys(got), want) {
			t.Errorf("commands %v lack %s", entityKeys(got), want)
		}
	}
}

func TestMeasureContainsWord(t *testing.T) {
	if containsWord("RunTests ran", "Run") {
		t.Error("Run found inside RunTests")
	}
	if !containsWord("call Run() now", "Run") {
		t.Error("Run not found")
	}
}

// TestTruncationKeepsNewestWithinTokens: plain truncation fits its budget
// and keeps the newest text, cutting into the oldest message it reaches.
func TestTruncationKeepsNewestWithinTokens(t *testing.T) {
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	s := &forwardScorer{counter: c}
	var msgs []transcript.Message
	for i := range 40 {
		text := "we changed handler" + string(rune('A'+i%26)) + "Func in pkg/handler.go and ran the tests again without trouble"
		msgs = append(msgs, transcript.Message{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartText, Text: text}}})
	}
	cut := &forwardCut{Before: msgs, Reference: entitySet{{entIdent, "handlerAFunc"}: true, {entIdent, "handlerNFunc"}: true}}
	got := s.truncate(cut, 100)
	if got.Tokens > 100 || got.Tokens < 90 {
		t.Errorf("truncation to 100 tokens kept %d", got.Tokens)
	}
	if got.Kept != 1 {
		t.Errorf("kept %d of the reference, want the newest one only", got.Kept)
	}
}

func editCall(name, args string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartToolCall, ToolName: name, Args: args, ToolCallID: "c"}}}
}

// TestWorkingStateReadsEveryAgentsEdits: the last content written into a
// file before the cut, by Claude Code's Edit and Write, Codex's
// apply_patch (raw and in a shell command), Gemini CLI's replace and
// Copilot CLI's str_replace, counts for the files touched after the cut
// and only for those.
func TestWorkingStateReadsEveryAgentsEdits(t *testing.T) {
	before := []transcript.Message{
		editCall("Write", `{"file_path":"/r/pkg/alpha.go","content":"package pkg\n\nfunc Alpha() int { return 1 }\n"}`),
		editCall("Edit", `{"file_path":"/r/pkg/alpha.go","old_string":"return 1","new_string":"return compute(2)"}`),
		editCall("apply_patch", "*** Begin Patch\n*** Update File: src/beta.rs\n@@\n-fn old() {}\n+fn beta_value() -> u32 { 42 }\n*** End Patch"),
		editCall("shell", `{"command":["bash","-lc","apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: web/gamma.ts\n+export const gamma = makeGamma();\n*** End Patch\nEOF"]}`),
		editCall("replace", `{"file_path":"lib/delta.py","old_string":"x = 1","new_string":"delta_total = sum(values)"}`),
		editCall("str_replace_editor", `{"command":"str_replace","path":"cmd/epsilon.go","old_str":"a","new_str":"epsilonHandler(w, r)"}`),
		editCall("Write", `{"file_path":"/r/untouched.md","content":"nobody reads this again"}`),
	}
	after := []transcript.Message{
		editCall("Read", `{"file_path":"/r/pkg/alpha.go"}`),
		editCall("exec_command", `{"cmd":"cargo test --manifest-path src/beta.rs"}`),
		editCall("read_file", `{"path":"web/gamma.ts"}`),
		editCall("run_shell_command", `{"command":"python lib/delta.py"}`),
		editCall("view", `{"path":"cmd/epsilon.go"}`),
	}
	got := workingState(before, after)
	var keys []string
	for _, s := range got {
		keys = append(keys, s.Key+"="+strings.Join(s.Lines, "|"))
	}
	want := []string{
		"cmd/epsilon.go=epsilonHandler(w, r)",
		"lib/delta.py=delta_total = sum(values)",
		"pkg/alpha.go=return compute(2)",
		"src/beta.rs=fn beta_value() -> u32 { 42 }",
		"web/gamma.ts=export const gamma = makeGamma();",
	}
	if !slices.Equal(keys, want) {
		t.Errorf("workingState =\n%s\nwant\n%s", strings.Join(keys, "\n"), strings.Join(want, "\n"))
	}
	// A fork that shows the edit (as a call's decoded argument) keeps that
	// state; one that only names the file does not.
	kept := renderPlain([]transcript.Message{editCall("Edit", `{"file_path":"/r/pkg/alpha.go","new_string":"return compute(2)"}`)})
	if n := stateKept(kept, got); n != 1 {
		t.Errorf("a fork showing alpha.go's last edit keeps %d states, want 1", n)
	}
	if n := stateKept("edited pkg/alpha.go and src/beta.rs", got); n != 0 {
		t.Errorf("names alone keep %d states, want 0", n)
	}
}

// TestMeasureCommandsSkipScripts: a script handed to a program (a
// here-document, a quoted -e or -c argument, a PowerShell here-string) is
// data, not commands; a shell's own -c argument is commands.
func TestMeasureCommandsSkipScripts(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want []string
	}{
		{"node -e 'const fs = require(\"fs\");\nconst el = fs.readFileSync(f); console.log(el)'", []string{"node"}},
		{"cat > a.py <<'EOF'\nimport os\nfor x in y:\n    continue\nEOF\npython a.py", []string{"cat", "python a.py"}},
		{"bash -lc \"go test ./... && git status\"", []string{"bash", "go test", "git status"}},
		{"powershell.exe -NoLogo -Command \"Set-Content -Path a.cpp -Value @'\nCString name;\nauto pid = 1;\n'@\"", []string{"powershell.exe", "Set-Content"}},
		{"git commit -m \"fix: the parser; add tests\"", []string{"git commit"}},
	} {
		got := commandKey(tt.cmd)
		if !slices.Equal(got, tt.want) {
			t.Errorf("commandKey(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
