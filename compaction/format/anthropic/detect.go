package anthropic

import (
	"strings"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
)

// Evidence is what the head of a document says about which API shape its
// records have. Detect of this codec and of Cline's read it.
type Evidence struct {
	// Records is how many record objects were seen.
	Records int
	// Anthropic counts Anthropic-only features (tool_use/tool_result/
	// thinking blocks, image source objects, a system/max_tokens wrapper).
	Anthropic int
	// Cline counts Cline/Roo extras (ts, modelInfo, metrics, isSummary…).
	Cline int
	// Foreign is set when something rules the Anthropic shape out: a
	// record with a type tag, a chat-only role or field, a Responses part.
	Foreign bool
	// Wrapper is the top-level object, if any.
	Wrapper map[string]any
	// BeforeRecords is set when the head ends before the records: only
	// the request's members around them were seen.
	BeforeRecords bool
}

var anthropicBlocks = map[string]bool{
	"tool_use": true, "tool_result": true, "thinking": true, "redacted_thinking": true,
	"server_tool_use": true, "web_search_tool_result": true, "document": true,
	"mcp_tool_use": true, "mcp_tool_result": true, "search_result": true,
}

var chatOnlyParts = map[string]bool{
	"image_url": true, "input_audio": true, "file": true, "refusal": true,
	"input_text": true, "output_text": true, "input_image": true, "input_file": true,
}

// Inspect reads a document head. Only head's first records matter: a
// head cut mid-record still counts what it shows.
func Inspect(head []byte) Evidence {
	p := jsonx.Peek(head)
	if p.Bad || p.Trailing {
		return Evidence{Foreign: true}
	}
	recs, wrapper := p.Records("messages")
	ev := Evidence{Wrapper: wrapper}
	if recs == nil {
		// A request whose head ends before its messages, inside a long
		// system prompt or tool definitions: its members so far decide.
		if _, has := wrapper["messages"]; wrapper == nil || has || p.Complete {
			ev.Foreign = true
			return ev
		}
		wrapperEvidence(&ev, wrapper)
		ev.BeforeRecords = true
		for _, k := range []string{"instructions", "contents", "prompt"} {
			if _, ok := wrapper[k]; ok {
				ev.Foreign = true // Responses, Gemini, completions
			}
		}
		if !hasSystemOrTools(wrapper) || ev.Anthropic < 2 && !systemBlocks(wrapper) {
			ev.Foreign = true
		}
		return ev
	}
	if wrapper != nil {
		wrapperEvidence(&ev, wrapper)
	}
	for k, r := range recs {
		obj, ok := r.(map[string]any)
		if !ok {
			continue
		}
		ev.Records++
		if _, ok := obj["type"]; ok {
			ev.Foreign = true
		}
		// The head may end inside the last record, before its role
		// (written after its content by a tool that sorts keys).
		cut := !p.Complete && k == len(recs)-1
		role, _ := obj["role"].(string)
		switch role {
		case "user", "assistant":
		case "":
			if _, ok := obj["role"]; !ok && !cut {
				ev.Foreign = true
			}
		default:
			ev.Foreign = true
		}
		for _, k := range []string{"tool_calls", "tool_call_id", "function_call", "reasoning_content", "name"} {
			if _, ok := obj[k]; ok {
				ev.Foreign = true
			}
		}
		for _, k := range []string{"ts", "modelInfo", "metrics", "isSummary", "condenseId", "condenseParent", "truncationParent", "isTruncationMarker"} {
			if _, ok := obj[k]; ok {
				ev.Cline++
			}
		}
		blocks, _ := obj["content"].([]any)
		for _, b := range blocks {
			bo, ok := b.(map[string]any)
			if !ok {
				continue
			}
			typ, _ := bo["type"].(string)
			switch {
			case anthropicBlocks[typ]:
				ev.Anthropic++
			case typ == "image":
				if _, ok := bo["source"]; ok {
					ev.Anthropic++
				}
			case chatOnlyParts[typ]:
				ev.Foreign = true
			}
		}
	}
	return ev
}

// wrapperEvidence counts what a request's members say about its shape.
func wrapperEvidence(ev *Evidence, wrapper map[string]any) {
	if _, ok := wrapper["input"]; ok {
		ev.Foreign = true
	}
	for _, k := range []string{"system", "max_tokens", "thinking", "stop_sequences"} {
		if _, ok := wrapper[k]; ok {
			ev.Anthropic++
		}
	}
	if m, _ := wrapper["model"].(string); strings.HasPrefix(m, "claude") {
		ev.Anthropic++
	}
	if tools, ok := wrapper["tools"].([]any); ok && len(tools) > 0 {
		if t, ok := tools[0].(map[string]any); ok {
			if _, ok := t["input_schema"]; ok {
				ev.Anthropic++
			}
			if _, ok := t["function"]; ok {
				ev.Foreign = true
			}
		}
	}
}

// systemBlocks reports whether the request's system prompt is a list of
// text blocks: the Messages API's own shape.
func systemBlocks(wrapper map[string]any) bool {
	sys, _ := wrapper["system"].([]any)
	for _, b := range sys {
		if textBlock(b) {
			return true
		}
	}
	return false
}

// textBlock reports whether b is a text block: {type: "text", text}, or,
// cut by the head before its type, {text}.
func textBlock(b any) bool {
	bo, ok := b.(map[string]any)
	if !ok {
		return false
	}
	if t, ok := bo["type"]; ok {
		return t == "text"
	}
	_, text := bo["text"].(string)
	return text
}

// hasSystemOrTools reports whether a request's members hold a system
// prompt in the Messages API's shape (a string, or text blocks) or tool
// definitions with input schemas: what grows long before the messages.
func hasSystemOrTools(wrapper map[string]any) bool {
	switch sys := wrapper["system"].(type) {
	case string:
		return true
	case []any:
		for _, b := range sys {
			if textBlock(b) {
				return true
			}
		}
	}
	tools, _ := wrapper["tools"].([]any)
	for _, t := range tools {
		if to, ok := t.(map[string]any); ok {
			if _, ok := to["input_schema"]; ok {
				return true
			}
		}
	}
	return false
}

// Detect implements format.Codec.
func (Codec) Detect(name string, head []byte) int {
	ev := Inspect(head)
	switch {
	case ev.Foreign:
		return 0
	case ev.Cline > 0:
		// Cline's codec reads these better; still ours if it is missing.
		return 40
	case ev.BeforeRecords:
		return 60
	case ev.Anthropic > 0:
		return 85
	case ev.Records > 0:
		// Only role/content with text: the chat codec claims these at 50.
		return 45
	case ev.Wrapper != nil:
		return 30
	}
	return 0
}
