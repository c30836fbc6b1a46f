package handoff

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// An Action is what a tool call does, whatever an agent names the tool.
type Action string

const (
	Read   Action = "read"
	Write  Action = "write"
	Edit   Action = "edit"
	Shell  Action = "shell"
	Search Action = "search"
)

// The neutral arguments a call of each action carries.
const (
	ArgPath    = "path"
	ArgContent = "content"
	ArgOld     = "old"
	ArgNew     = "new"
	ArgCommand = "command"
	ArgPattern = "pattern"
)

// required are the neutral arguments a call of each action needs.
var required = map[Action][]string{
	Read:   {ArgPath},
	Write:  {ArgPath, ArgContent},
	Edit:   {ArgPath, ArgOld, ArgNew},
	Shell:  {ArgCommand},
	Search: {ArgPattern},
}

// A Tool is one of an agent's tools that has an equivalent in other
// agents: what it does and how it names its arguments. The names come
// from the tool definitions the agent sends its model.
type Tool struct {
	Name   string
	Action Action
	// Params names the tool's parameter for each neutral argument it
	// takes (ArgPath → "file_path").
	Params map[string]string
	// Fixed are arguments written on every call beside the mapped ones,
	// which the tool's schema requires (a shell command's description).
	Fixed map[string]any
	// Ignore are parameters that do not change what a call did (a
	// description, a timeout); Default are parameters that do not when
	// they hold this value (replace_all false). Any other parameter the
	// neutral arguments lack makes a call unmappable: it is rendered as
	// text rather than changed in meaning.
	Ignore  []string
	Default map[string]any
	// Workdir names the parameter holding the folder a command ran in.
	Workdir string
	// Argv: the command is an argument vector a shell runs (["bash",
	// "-lc", "…"]) instead of a string.
	Argv bool
	// Patch: the tool takes edits and writes as one patch in Codex's patch
	// language; Freeform: the patch is the call's whole input (a custom
	// tool), else Params[ArgPatch] names the argument that holds it.
	Patch    bool
	Freeform bool
}

// ArgPatch is the neutral name of a patch tool's argument.
const ArgPatch = "patch"

// Tools are one agent's tools that have equivalents.
type Tools []Tool

// find returns the tool named name.
func (ts Tools) find(name string) (Tool, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// doing returns the first tool that does a; a patch tool does edits and
// writes.
func (ts Tools) doing(a Action) (Tool, bool) {
	for _, t := range ts {
		if t.Action == a && !t.Patch {
			return t, true
		}
	}
	if a == Edit || a == Write {
		for _, t := range ts {
			if t.Patch {
				return t, true
			}
		}
	}
	return Tool{}, false
}

// A call is a tool call in neutral terms.
type call struct {
	action Action
	args   map[string]string
	// workdir is the folder the call ran in, when it said ("" = the
	// session's).
	workdir string
}

// decode reads a call of tool t (args: its JSON arguments, or a freeform
// tool's input) in neutral terms; false when the call does more or other
// than its action's neutral arguments say.
func (t Tool) decode(args string) (call, bool) {
	if t.Patch {
		input := args
		if !t.Freeform {
			var obj map[string]any
			if json.Unmarshal([]byte(args), &obj) != nil {
				return call{}, false
			}
			s, ok := obj[t.Params[ArgPatch]].(string)
			if !ok || len(obj) != 1 {
				return call{}, false
			}
			input = s
		}
		return parsePatch(input)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(args), &obj); err != nil {
		return call{}, false
	}
	c := call{action: t.Action, args: map[string]string{}}
	byParam := map[string]string{}
	for neutral, param := range t.Params {
		byParam[param] = neutral
	}
	for k, v := range obj {
		if neutral, ok := byParam[k]; ok {
			s, ok := argString(v, t.Argv && neutral == ArgCommand)
			if !ok {
				return call{}, false
			}
			c.args[neutral] = s
			continue
		}
		if k == t.Workdir && t.Workdir != "" {
			if s, ok := v.(string); ok {
				c.workdir = s
				continue
			}
			return call{}, false
		}
		if slices.Contains(t.Ignore, k) {
			continue
		}
		if d, ok := t.Default[k]; ok && fmt.Sprint(d) == fmt.Sprint(v) {
			continue
		}
		return call{}, false
	}
	for _, r := range required[t.Action] {
		if _, ok := c.args[r]; !ok {
			return call{}, false
		}
	}
	return c, true
}

// argString reads a neutral argument's value: a string, or for an argv
// command the script a shell runs (["bash", "-lc", "ls"] is "ls").
func argString(v any, argv bool) (string, bool) {
	if s, ok := v.(string); ok {
		return s, true
	}
	if !argv {
		return "", false
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return "", false
	}
	words := make([]string, len(list))
	for i, w := range list {
		s, ok := w.(string)
		if !ok {
			return "", false
		}
		words[i] = s
	}
	if len(words) == 3 && (words[0] == "bash" || words[0] == "sh" || words[0] == "zsh" || strings.HasSuffix(words[0], "/bash") || strings.HasSuffix(words[0], "/sh")) && (words[1] == "-lc" || words[1] == "-c") {
		return words[2], true
	}
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " "), true
}

// encoded is a call in the target's terms.
type encoded struct {
	name     string
	args     string // JSON object; the input of a freeform tool
	freeform bool
}

// encode writes c as a call of one of ts, cwd being the session's
// folder; false when ts has no equivalent.
func (ts Tools) encode(c call, cwd string) (encoded, bool) {
	t, ok := ts.doing(c.action)
	if !ok {
		switch c.action {
		case Read:
			// An agent without a read tool reads through its shell (Codex).
			return ts.encode(call{action: Shell, args: map[string]string{ArgCommand: "cat -- " + shellQuote(c.args[ArgPath])}, workdir: c.workdir}, cwd)
		case Search:
			cmd := "grep -rn -- " + shellQuote(c.args[ArgPattern])
			if p := c.args[ArgPath]; p != "" {
				cmd += " " + shellQuote(p)
			}
			return ts.encode(call{action: Shell, args: map[string]string{ArgCommand: cmd}, workdir: c.workdir}, cwd)
		}
		return encoded{}, false
	}
	elsewhere := c.workdir != "" && c.workdir != cwd
	args := c.args
	if elsewhere && t.Workdir == "" {
		args = withWorkdir(c)
	}
	if t.Patch {
		patch := renderPatch(c.action, args)
		if t.Freeform {
			return encoded{name: t.Name, args: patch, freeform: true}, true
		}
		b, _ := json.Marshal(map[string]string{t.Params[ArgPatch]: patch})
		return encoded{name: t.Name, args: string(b)}, true
	}
	obj := map[string]any{}
	for neutral, v := range args {
		param, ok := t.Params[neutral]
		if !ok {
			if neutral == ArgPath && c.action == Search {
				continue // a search of the whole project
			}
			return encoded{}, false
		}
		if t.Argv && neutral == ArgCommand {
			obj[param] = []string{"bash", "-lc", v}
			continue
		}
		obj[param] = v
	}
	if elsewhere && t.Workdir != "" {
		obj[t.Workdir] = c.workdir
	}
	for k, v := range t.Fixed {
		if _, ok := obj[k]; !ok {
			obj[k] = v
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return encoded{}, false
	}
	return encoded{name: t.Name, args: string(b)}, true
}

// withWorkdir folds the folder a call ran in into its arguments: a
// command runs after cd, a relative path is joined to it.
func withWorkdir(c call) map[string]string {
	out := map[string]string{}
	for k, v := range c.args {
		out[k] = v
	}
	if cmd, ok := out[ArgCommand]; ok {
		out[ArgCommand] = "cd " + shellQuote(c.workdir) + " && " + cmd
	}
	if p, ok := out[ArgPath]; ok && p != "" && !path.IsAbs(p) && !strings.Contains(p, `:\`) {
		out[ArgPath] = strings.TrimSuffix(c.workdir, "/") + "/" + p
	}
	return out
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
