package modelserver

import "strings"

// Item kinds of the neutral conversation view.
const (
	KindText      = "text"
	KindCall      = "call"
	KindResult    = "result"
	KindReasoning = "reasoning"
)

// An Item is one piece of a request's conversation, whatever the API:
// a text, a tool call, a tool result or a reasoning block.
type Item struct {
	// Role is "system", "user", "assistant" (Gemini's "model" too) or "tool".
	Role   string
	Kind   string
	Text   string // text, result content, call arguments, reasoning summary
	Name   string // the tool of a call (and of a result, where the API says)
	CallID string
	// Blocks are a result's text blocks as the request sends them, one by
	// one (Text joins them); nil when the result is one string.
	Blocks []string
	// Images counts a result's image blocks.
	Images int
}

// A Tool is one tool the request declares.
type Tool struct {
	Name     string
	Params   map[string]any // the JSON schema's properties
	Required []string
	Freeform bool // a custom tool taking free text (Codex's apply_patch)
	// Namespace is the Responses API namespace the tool is declared in
	// (Codex sends MCP tools as a namespace "mcp__<server>").
	Namespace string
}

// FullName is the tool's name with its namespace, as agents log it
// ("mcp__compactd__recall").
func (t Tool) FullName() string {
	if t.Namespace == "" {
		return t.Name
	}
	return t.Namespace + "__" + t.Name
}

// A Conversation is the neutral view of one request: what the script
// reads to decide the reply and what tests read to check a resumed fork.
type Conversation struct {
	API      string
	Model    string
	System   string
	Items    []Item
	Tools    []Tool
	Stream   bool
	Thinking bool
}

// Texts returns every text of role ("" for any role), in order.
func (c *Conversation) Texts(role string) []string {
	var out []string
	for _, it := range c.Items {
		if it.Kind == KindText && (role == "" || it.Role == role) {
			out = append(out, it.Text)
		}
	}
	return out
}

// Contains reports whether s occurs in the system prompt or any item.
func (c *Conversation) Contains(s string) bool {
	if strings.Contains(c.System, s) {
		return true
	}
	for _, it := range c.Items {
		if strings.Contains(it.Text, s) {
			return true
		}
	}
	return false
}

// Count returns how many items of kind there are.
func (c *Conversation) Count(kind string) int {
	n := 0
	for _, it := range c.Items {
		if it.Kind == kind {
			n++
		}
	}
	return n
}
