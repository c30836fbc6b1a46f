package modelserver

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ActionKind is what a scripted tool call does, whatever the agent names
// the tool: the server maps it onto the tools the request declares.
type ActionKind string

const (
	Read  ActionKind = "read"
	Shell ActionKind = "shell"
	Edit  ActionKind = "edit"
	Write ActionKind = "write"
	// MCP calls an MCP server's tool, found by the server's and the
	// tool's names whatever the agent makes of them (mcp__compactd__recall,
	// mcp_compactd_recall, Codex's namespace mcp__compactd).
	MCP ActionKind = "mcp"
	// Named calls a tool the request declares, by its name (Tool), with
	// Args: a tool only one agent has, such as Codex's view_image.
	Named ActionKind = "named"
)

// An Action is one tool call of a scripted turn. Paths are as the agent
// should see them (absolute paths are safest: every agent accepts them).
type Action struct {
	Kind    ActionKind
	Path    string // Read, Edit, Write
	Command string // Shell
	Old     string // Edit: the text replaced
	New     string // Edit: its replacement
	Content string // Write: the new file's content
	// Server and Tool name an MCP tool; Args are its arguments, or ArgsOf
	// derives them from the request (a handle the conversation names).
	Server, Tool string
	Args         map[string]any
	ArgsOf       func(c *Conversation) (map[string]any, error)
}

// A Turn is what the model does for one user prompt: Steps of tool calls
// (the calls of one step are issued together, in one response), then the
// final Answer. Thinking, when set, is sent as a reasoning block before
// each response of the turn (signed, when the API signs reasoning).
type Turn struct {
	Steps    [][]Action
	Answer   string
	Thinking string
	// EndOnSummary ends the turn with its answer once the conversation
	// holds the server's summary: the agent compacted in the middle of the
	// turn, and the steps would start over from the prompt it kept.
	EndOnSummary bool
	// Hold, when set, runs before the turn's answer is sent, and the
	// reply waits until it returns: the agent waits on its request,
	// running, while a test looks at it.
	Hold func()
}

// A Script maps task names to turns. A prompt names its task with a tag
// `[task:NAME]`; the server finds the latest user prompt carrying a tag and
// counts the tool results that follow it, so every reply is derived from
// the request alone (retries, resumes and forks all work the same way).
type Script struct {
	Turns map[string]Turn
	// Fallback answers a request naming no known task (a resumed fork's
	// new prompt, a side request). Nil: "OK." plus the task name, if any.
	Fallback func(c *Conversation) Reply
}

var taskTag = regexp.MustCompile(`\[task:([A-Za-z0-9_.-]+)\]`)

// TaskTag returns the tag that names task in a prompt.
func TaskTag(task string) string { return "[task:" + task + "]" }

// A Reply is what the model answers to one request.
type Reply struct {
	Thinking string
	Text     string
	Calls    []Call
}

// A Call is one tool call in a reply, already mapped to the agent's tool.
type Call struct {
	ID   string
	Name string
	// Args are a function tool's arguments.
	Args map[string]any
	// Input is a freeform (custom) tool's input, e.g. Codex's apply_patch.
	Input    string
	Freeform bool
	// Namespace is the Responses API namespace of the tool called.
	Namespace string
}

// plan is the script's decision for one request, before it is rendered in
// an API's shape.
type plan struct {
	Task  string // the task named by the latest tagged prompt, "" if none
	Step  int    // index of the step answered; len(Steps) is the answer
	Known bool   // Task is in the script
	// Summary marks an agent's request to summarize the conversation
	// (its own compaction); Reply is the summary.
	Summary bool
	Reply   Reply
}

// decide derives the reply to a conversation from the script.
func (s *Script) decide(c *Conversation) (plan, error) {
	if style := c.summaryStyle(); style != noSummary {
		return plan{Summary: true, Reply: Reply{Text: c.summary(style)}}, nil
	}
	task, after := c.latestTask()
	p := plan{Task: task}
	turn, ok := s.Turns[task]
	if !ok || len(c.Tools) == 0 {
		p.Known = false
		if s.Fallback != nil {
			p.Reply = s.Fallback(c)
		} else if task != "" {
			p.Reply = Reply{Text: "OK. (" + task + ")"}
		} else {
			p.Reply = Reply{Text: "OK."}
		}
		return p, nil
	}
	p.Known = true
	if turn.EndOnSummary && c.Contains(SummaryHeading) {
		p.Step = len(turn.Steps)
		p.Reply = Reply{Thinking: turn.thinking(task, p.Step), Text: turn.Answer}
		return p, nil
	}
	results := 0
	for _, it := range c.Items[after:] {
		if it.Kind == KindResult {
			results++
		}
	}
	done := 0
	for i, step := range turn.Steps {
		if results < done+len(step) {
			if results != done {
				return p, fmt.Errorf("task %s: %d tool results after the prompt, which is inside step %d (%d calls)", task, results, i, len(step))
			}
			calls := make([]Call, 0, len(step))
			for j, a := range step {
				call, err := c.toolCall(a)
				if err != nil {
					return p, fmt.Errorf("task %s step %d call %d: %w", task, i, j, err)
				}
				calls = append(calls, call)
			}
			p.Step = i
			p.Reply = Reply{Thinking: turn.thinking(task, i), Calls: calls}
			return p, nil
		}
		done += len(step)
	}
	p.Step = len(turn.Steps)
	p.Reply = Reply{Thinking: turn.thinking(task, p.Step), Text: turn.Answer}
	if turn.Hold != nil {
		turn.Hold()
	}
	return p, nil
}

// thinking is the reasoning of one step: the turn's, told apart per step
// as a model's would be.
func (t Turn) thinking(task string, step int) string {
	if t.Thinking == "" {
		return ""
	}
	return fmt.Sprintf("%s (%s, step %d)", t.Thinking, task, step+1)
}

// latestTask returns the task of the latest user text carrying a tag and
// the index of the item after it.
func (c *Conversation) latestTask() (string, int) {
	for i := len(c.Items) - 1; i >= 0; i-- {
		it := c.Items[i]
		if it.Role != "user" || it.Kind != KindText {
			continue
		}
		if m := taskTag.FindAllStringSubmatch(it.Text, -1); len(m) > 0 {
			return m[len(m)-1][1], i + 1
		}
	}
	return "", len(c.Items)
}

// toolCall maps an abstract action onto the tools the request declares.
func (c *Conversation) toolCall(a Action) (Call, error) {
	switch a.Kind {
	case MCP:
		args := a.Args
		if a.ArgsOf != nil {
			var err error
			if args, err = a.ArgsOf(c); err != nil {
				return Call{}, err
			}
		}
		for _, t := range c.Tools {
			full := t.FullName()
			if strings.HasSuffix(full, "_"+a.Tool) && strings.Contains(full, a.Server) {
				return Call{Name: t.Name, Namespace: t.Namespace, Args: args}, nil
			}
		}
		// An agent that defers MCP tools behind a search still runs a
		// direct call by the tool's full name (Qwen Code).
		return Call{Name: "mcp__" + a.Server + "__" + a.Tool, Args: args}, nil
	case Named:
		if t, ok := c.tool(a.Tool); ok {
			return Call{Name: t.Name, Namespace: t.Namespace, Args: a.Args}, nil
		}
	case Read:
		if t, ok := c.tool("Read", "read_file", "read"); ok {
			return Call{Name: t.Name, Args: t.args(map[string]any{"path": a.Path})}, nil
		}
		// Codex has no read tool: it reads through the shell.
		return c.toolCall(Action{Kind: Shell, Command: "cat " + shellQuote(a.Path)})
	case Shell:
		if t, ok := c.tool("Bash", "run_shell_command", "bash", "shell_command"); ok {
			return Call{Name: t.Name, Args: t.args(map[string]any{"command": a.Command, "description": "scripted step"})}, nil
		}
		if t, ok := c.tool("exec_command"); ok {
			return Call{Name: t.Name, Args: t.args(map[string]any{"cmd": a.Command})}, nil
		}
		if t, ok := c.tool("shell"); ok {
			return Call{Name: t.Name, Args: map[string]any{"command": []any{"bash", "-lc", a.Command}}}, nil
		}
	case Edit, Write:
		if a.Kind == Edit {
			if t, ok := c.tool("Edit", "replace", "edit"); ok {
				return Call{Name: t.Name, Args: t.args(map[string]any{"path": a.Path, "old": a.Old, "new": a.New})}, nil
			}
		} else if t, ok := c.tool("Write", "write_file", "write"); ok {
			return Call{Name: t.Name, Args: t.args(map[string]any{"path": a.Path, "content": a.Content})}, nil
		}
		if t, ok := c.tool("apply_patch"); ok {
			patch := applyPatch(a)
			if t.Freeform {
				return Call{Name: t.Name, Input: patch, Freeform: true}, nil
			}
			return Call{Name: t.Name, Args: map[string]any{"input": patch}}, nil
		}
	}
	return Call{}, fmt.Errorf("the request declares no tool for a %s action (tools: %s)", a.Kind, strings.Join(c.toolNames(), ", "))
}

// applyPatch renders an edit or a write in Codex's patch language.
func applyPatch(a Action) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	if a.Kind == Write {
		fmt.Fprintf(&b, "*** Add File: %s\n", a.Path)
		for _, l := range strings.SplitAfter(strings.TrimSuffix(a.Content, "\n"), "\n") {
			b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
		}
	} else {
		fmt.Fprintf(&b, "*** Update File: %s\n@@\n", a.Path)
		for _, l := range strings.Split(strings.TrimSuffix(a.Old, "\n"), "\n") {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range strings.Split(strings.TrimSuffix(a.New, "\n"), "\n") {
			b.WriteString("+" + l + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// tool returns the first declared tool with one of names.
func (c *Conversation) tool(names ...string) (Tool, bool) {
	for _, n := range names {
		for _, t := range c.Tools {
			if t.Name == n {
				return t, true
			}
		}
	}
	return Tool{}, false
}

func (c *Conversation) toolNames() []string {
	out := make([]string, 0, len(c.Tools))
	for _, t := range c.Tools {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

// argAliases are the parameter names agents use for the same thing.
var argAliases = map[string][]string{
	"path":        {"file_path", "absolute_path", "filePath", "path"},
	"command":     {"command", "cmd"},
	"cmd":         {"cmd", "command"},
	"description": {"description"},
	"old":         {"old_string", "oldString", "old_str"},
	"new":         {"new_string", "newString", "new_str"},
	"content":     {"content", "file_text"},
}

// args renames abstract arguments to the parameters the tool's schema
// declares; an argument the schema lacks is dropped unless required.
func (t Tool) args(abstract map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range abstract {
		for _, name := range argAliases[k] {
			if _, ok := t.Params[name]; ok {
				out[name] = v
				break
			}
		}
	}
	// Gemini's replace asks for an instruction too; fill required strings.
	for _, r := range t.Required {
		if _, ok := out[r]; !ok {
			out[r] = "scripted step"
		}
	}
	return out
}
