package openaichat

import "github.com/compactd/compactd/compaction/format/internal/jsonx"

var chatRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true}

// Detect implements format.Codec. Chat messages have role and content and
// no type tag; tool_calls, tool_call_id, system/tool roles or image_url
// parts make it certain. Anthropic blocks, Responses parts and Cline
// extras rule it out.
func (Codec) Detect(name string, head []byte) int {
	p := jsonx.Peek(head)
	if p.Bad || p.Trailing {
		return 0
	}
	recs, wrapper := p.Records("messages")
	if recs == nil {
		return 0
	}
	if wrapper != nil {
		if _, ok := wrapper["input"]; ok {
			return 0
		}
		if _, ok := wrapper["max_tokens"]; ok {
			if _, ok := wrapper["system"]; ok {
				return 0 // an Anthropic request
			}
		}
	}
	known, strong := 0, 0
	for _, r := range recs {
		obj, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := obj["type"]; ok {
			return 0
		}
		for _, k := range []string{"ts", "modelInfo", "isSummary", "condenseParent"} {
			if _, ok := obj[k]; ok {
				return 0
			}
		}
		role, _ := obj["role"].(string)
		if role == "" {
			return 0
		}
		if chatRoles[role] {
			known++
		}
		switch role {
		case "system", "developer", "tool", "function":
			strong++
		}
		for _, k := range []string{"tool_calls", "tool_call_id", "function_call", "reasoning_content", "refusal"} {
			if _, ok := obj[k]; ok {
				strong++
			}
		}
		parts, _ := obj["content"].([]any)
		for _, part := range parts {
			po, ok := part.(map[string]any)
			if !ok {
				continue
			}
			switch typ, _ := po["type"].(string); typ {
			case "image_url", "input_audio", "file", "refusal":
				strong++
			case "text":
			case "image":
				if _, ok := po["source"]; ok {
					return 0
				}
			default:
				return 0 // Anthropic blocks or Responses parts
			}
		}
	}
	switch {
	case known == 0:
		return 0
	case strong > 0:
		return 90
	}
	return 50
}
