package openairesponses

import (
	"strings"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
)

var itemTypes = map[string]bool{
	"message": true, "function_call": true, "function_call_output": true, "reasoning": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "item_reference": true, "compaction": true,
	"web_search_call": true, "file_search_call": true, "computer_call": true, "computer_call_output": true,
	"code_interpreter_call": true, "image_generation_call": true, "local_shell_call": true,
	"local_shell_call_output": true, "mcp_call": true, "mcp_list_tools": true, "mcp_approval_request": true,
	"mcp_approval_response": true, "tool_search_call": true, "tool_search_output": true,
	"shell_call": true, "shell_call_output": true, "apply_patch_call": true, "apply_patch_call_output": true,
}

// Detect implements format.Codec. Items carry Responses type tags
// (function_call, reasoning, message…) or input_text/output_text parts;
// documents whose records carry other type tags (jp events, Gemini) are
// not ours.
func (Codec) Detect(name string, head []byte) int {
	p := jsonx.Peek(head)
	if p.Bad || p.Trailing {
		return 0
	}
	recs, wrapper := p.Records("input")
	if recs == nil {
		return requestBeforeInput(p, wrapper)
	}
	known, foreign, roleOnly := 0, 0, 0
	cutUntold := false
	for k, r := range recs {
		obj, ok := r.(map[string]any)
		if !ok {
			continue
		}
		typ, hasType := obj["type"].(string)
		_, hasRole := obj["role"]
		switch {
		case !hasType && !hasRole && !p.Complete && k == len(recs)-1:
			// The head ends inside this item before its type or role (a
			// tool that sorts keys writes content first): it tells
			// nothing yet.
			cutUntold = true
		case hasType && itemTypes[typ]:
			known++
		case hasType && (strings.HasSuffix(typ, "_call") || strings.HasSuffix(typ, "_call_output")):
			known++
		case hasType:
			foreign++
		default:
			if _, ok := obj["role"]; !ok {
				foreign++
				continue
			}
			roleOnly++
			parts, _ := obj["content"].([]any)
			for _, part := range parts {
				po, _ := part.(map[string]any)
				switch t, _ := po["type"].(string); t {
				case "input_text", "output_text", "input_image", "input_file":
					known++
				}
			}
		}
	}
	switch {
	case known > 0 && known >= foreign:
		return 90
	case wrapper != nil && roleOnly > 0 && foreign == 0:
		// {model, input:[{role, content:"…"}]} is a Responses request.
		return 70
	case wrapper != nil && cutUntold && foreign == 0:
		// {input: [an item the head ends inside]}: input is the
		// Responses API's member.
		return 60
	}
	return 0
}

// requestBeforeInput scores a request whose head ends before its input,
// inside long instructions or tool definitions: instructions (a string,
// the Responses API's system prompt) and no member of another API's
// request. 0 when the head is whole or shows anything else.
func requestBeforeInput(p jsonx.Peeked, wrapper map[string]any) int {
	if wrapper == nil || p.Complete {
		return 0
	}
	for _, k := range []string{"input", "messages", "system", "contents", "prompt", "max_tokens"} {
		if _, ok := wrapper[k]; ok {
			return 0
		}
	}
	if _, ok := wrapper["instructions"].(string); !ok {
		return 0
	}
	if tools, ok := wrapper["tools"].([]any); ok {
		for _, t := range tools {
			if to, ok := t.(map[string]any); ok {
				if _, chat := to["function"]; chat {
					return 0 // Chat Completions' tool shape
				}
			}
		}
	}
	return 60
}
