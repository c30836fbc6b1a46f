package facts

import (
	"encoding/json"
	"strings"

	"github.com/compactd/compactd/compaction/internal/memo"
)

// PlaceholderPrefix starts every stand-in compaction writes, so later steps
// and the retention report can recognise them.
const PlaceholderPrefix = "[compacted: "

// IsPlaceholder reports whether text is a compaction stand-in.
func IsPlaceholder(text string) bool { return strings.HasPrefix(text, PlaceholderPrefix) }

// PathKeys are the argument keys tools across agents name their target
// file or folder by (Claude Code, Codex, Gemini CLI, Cline, jp, Cursor).
var PathKeys = []string{"file_path", "path", "filePath", "notebook_path", "target_file", "absolute_path", "filename", "file", "dir_path"}

// commandKeys are the argument keys shell tools put their command under.
var commandKeys = []string{"command", "cmd", "commandLine", "script"}

// shellTools are the tools that run a shell command, by lower-cased name,
// across agents.
var shellTools = map[string]bool{
	"bash": true, "shell": true, "exec_command": true, "local_shell": true, "local_shell_call": true,
	"run_terminal_cmd": true, "run_shell_command": true, "execute_command": true, "terminal": true,
	"run_command": true, "container.exec": true, "shell_command": true, "cmd": true,
}

// IsShellTool reports whether the tool named runs shell commands.
func IsShellTool(name string) bool { return shellTools[strings.ToLower(name)] }

// isEditorTool reports whether the tool's "command" argument names an
// editing sub-command (view, create, str_replace) rather than a shell
// command.
func isEditorTool(name string) bool {
	switch strings.ToLower(name) {
	case "str_replace_editor", "str_replace_based_edit_tool":
		return true
	}
	return false
}

// Args decodes a tool call's arguments as a JSON object; a JSON string
// holding an object (how Codex stores arguments) is unwrapped. It returns
// nil for anything else (apply_patch's raw patch, malformed JSON).
//
// The map may be shared with other callers (decodedArgs keeps it): it
// must not be changed.
func Args(args string) map[string]any {
	return decodedArgs.Of(args, decodeArgs)
}

// decodedArgs are the arguments Args decoded last: the salience index, the
// key facts, the summary and the placeholders each read the same calls.
var decodedArgs = memo.New[map[string]any](32 << 20)

func decodeArgs(args string) map[string]any {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return nil
	}
	if s, ok := v.(string); ok {
		if json.Unmarshal([]byte(s), &v) != nil {
			return nil
		}
	}
	m, _ := v.(map[string]any)
	return m
}

// CommandText returns the shell command decoded arguments ran, or "". An
// argv array is joined with spaces, except Codex's ["bash", "-lc",
// script] wrapper, where the script is what ran.
func CommandText(args map[string]any) string {
	for _, k := range commandKeys {
		switch v := args[k].(type) {
		case string:
			return v
		case []any:
			parts := make([]string, 0, len(v))
			for _, x := range v {
				if s, ok := x.(string); ok {
					parts = append(parts, s)
				}
			}
			if len(parts) == 3 && (parts[1] == "-lc" || parts[1] == "-c") {
				return parts[2]
			}
			return strings.Join(parts, " ")
		}
	}
	return ""
}

// CommandOf returns the shell command a call's raw arguments ran, or "".
func CommandOf(args string) string { return CommandText(Args(args)) }

// StringArg returns the first of keys holding a non-blank string, trimmed.
func StringArg(args map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := args[k].(string); ok {
			if s = strings.TrimSpace(s); s != "" {
				return s
			}
		}
	}
	return ""
}

// TargetPath returns the file or folder a call acted on, or "".
func TargetPath(args map[string]any) string { return StringArg(args, PathKeys...) }

// OpenTodos lists the items of a todo-list call (Claude TodoWrite's todos,
// Codex update_plan's plan, Gemini write_todos) not marked completed.
func OpenTodos(args map[string]any) []string {
	var out []string
	for _, t := range Todos(args) {
		if t.Status != "completed" {
			out = append(out, t.Text)
		}
	}
	return out
}

// A Todo is one item of a todo-list call.
type Todo struct {
	Text   string
	Status string // as the tool wrote it: pending, in_progress, completed, or ""
}

// Todos lists the items of a todo-list call, in order.
func Todos(args map[string]any) []Todo {
	var out []Todo
	for _, key := range []string{"todos", "plan"} {
		list, _ := args[key].([]any)
		for _, it := range list {
			obj, _ := it.(map[string]any)
			if text := StringArg(obj, "content", "step", "description", "title"); text != "" {
				status, _ := obj["status"].(string)
				out = append(out, Todo{Text: text, Status: status})
			}
		}
	}
	return out
}

// A PatchFile is one file an apply_patch envelope touches.
type PatchFile struct {
	Action string // "wrote", "edited" or "deleted"
	Path   string
}

// patchActions maps apply_patch's file headers to what they do.
var patchActions = []struct{ header, action string }{
	{"*** Add File: ", "wrote"}, {"*** Update File: ", "edited"}, {"*** Delete File: ", "deleted"},
}

// PatchFiles lists the files of an apply_patch envelope (Codex), in order.
func PatchFiles(s string) []PatchFile {
	if !strings.Contains(s, "*** ") {
		return nil
	}
	var out []PatchFile
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		for _, pa := range patchActions {
			if rest, ok := strings.CutPrefix(l, pa.header); ok {
				if p := strings.TrimSpace(rest); p != "" {
					out = append(out, PatchFile{Action: pa.action, Path: p})
				}
			}
		}
	}
	return out
}

// PatchText returns the patch an apply_patch call carries: its raw
// arguments, or the "input" or "patch" string of JSON arguments.
func PatchText(args string) string {
	if s := StringArg(Args(args), "input", "patch"); s != "" {
		return s
	}
	return args
}

// A Write is what one tool call put into one file: a write's whole
// content, an edit's new text, or the lines a patch adds.
type Write struct {
	Path    string
	Content string
	// Whole says Content is the file's entire content (a write, a patch's
	// added file), not a fragment of it.
	Whole bool
}

// contentKeys are the argument keys edit tools put new content under,
// across agents (Claude Code Write/Edit, Gemini CLI and Qwen Code
// write_file/replace, Copilot CLI and Anthropic's editor create and
// str_replace, Cline write_to_file, Cursor edit_file), with whether the
// value is a whole file.
var contentKeys = []struct {
	key   string
	whole bool
}{
	{"content", true}, {"file_text", true}, {"contents", true},
	{"new_string", false}, {"new_str", false}, {"newString", false}, {"new_text", false}, {"newText", false},
	{"code_edit", false}, {"replacement", false},
}

// Written lists the files a tool call writes and what it writes into
// each: edit tools by their arguments (a path and new content; MultiEdit's
// edits joined), apply_patch envelopes in the call's patch or shell
// command ("+" lines of each file's section). Read-only calls write
// nothing.
func Written(toolName, rawArgs string) []Write { return WrittenArgs(toolName, Args(rawArgs), rawArgs) }

// WrittenArgs is Written for arguments already decoded (Args).
func WrittenArgs(toolName string, args map[string]any, rawArgs string) []Write {
	if IsShellTool(toolName) {
		return patchWrites(CommandText(args))
	}
	if strings.EqualFold(toolName, "apply_patch") || args == nil {
		return patchWrites(PatchText(rawArgs))
	}
	if isEditorTool(toolName) && StringArg(args, "command") == "view" {
		return nil
	}
	path := TargetPath(args)
	if path == "" {
		return patchWrites(PatchText(rawArgs))
	}
	for _, ck := range contentKeys {
		if s, ok := args[ck.key].(string); ok {
			return []Write{{Path: path, Content: s, Whole: ck.whole}}
		}
	}
	if edits, ok := args["edits"].([]any); ok {
		var parts []string
		for _, e := range edits {
			obj, _ := e.(map[string]any)
			for _, ck := range contentKeys {
				if s, ok := obj[ck.key].(string); ok {
					parts = append(parts, s)
					break
				}
			}
		}
		if len(parts) > 0 {
			return []Write{{Path: path, Content: strings.Join(parts, "\n")}}
		}
	}
	return nil
}

// patchWrites reads the files of an apply_patch envelope in s and the
// lines each section adds.
func patchWrites(s string) []Write {
	if !strings.Contains(s, "*** ") {
		return nil
	}
	var out []Write
	var cur *Write
	var added []string
	flush := func() {
		if cur != nil {
			cur.Content = strings.Join(added, "\n")
			out = append(out, *cur)
		}
		cur, added = nil, nil
	}
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "*** Add File: "):
			flush()
			cur = &Write{Path: strings.TrimSpace(strings.TrimPrefix(t, "*** Add File: ")), Whole: true}
		case strings.HasPrefix(t, "*** Update File: "):
			flush()
			cur = &Write{Path: strings.TrimSpace(strings.TrimPrefix(t, "*** Update File: "))}
		case strings.HasPrefix(t, "*** "):
			flush()
		case cur != nil && strings.HasPrefix(l, "+"):
			added = append(added, l[1:])
		}
	}
	flush()
	return out
}
