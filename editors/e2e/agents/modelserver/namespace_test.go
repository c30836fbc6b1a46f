package modelserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestResponsesNamespaceTools: Codex sends an MCP server's tools as a
// Responses namespace; the model's call names the tool and the namespace,
// and Codex answers with content items — the MCP text one of them.
func TestResponsesNamespaceTools(t *testing.T) {
	body := map[string]any{
		"model": "compactd-e2e-model",
		"tools": []any{
			map[string]any{"type": "function", "name": "exec_command", "parameters": map[string]any{"properties": map[string]any{"cmd": map[string]any{"type": "string"}}}},
			map[string]any{"type": "namespace", "name": "mcp__compactd", "description": "Tools in the mcp__compactd namespace.", "tools": []any{
				map[string]any{"type": "function", "name": "recall", "strict": false, "parameters": map[string]any{"properties": map[string]any{"handle": map[string]any{"type": "string"}}, "required": []string{"handle"}}},
			}},
		},
		"input": []any{
			map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "[task:x] go"}}},
			map[string]any{"type": "function_call", "name": "recall", "namespace": "mcp__compactd", "arguments": `{"handle":"r123456"}`, "call_id": "c1"},
			map[string]any{"type": "function_call_output", "call_id": "c1", "output": []any{
				map[string]any{"type": "input_text", "text": "Wall time: 0.01 seconds\nOutput:"},
				map[string]any{"type": "input_text", "text": "the payload\n"},
			}},
		},
	}
	raw, _ := json.Marshal(body)
	c, err := ValidateResponses(raw)
	if err != nil {
		t.Fatal(err)
	}
	var recall *Tool
	for i := range c.Tools {
		if c.Tools[i].FullName() == "mcp__compactd__recall" {
			recall = &c.Tools[i]
		}
	}
	if recall == nil || recall.Namespace != "mcp__compactd" || len(recall.Required) != 1 {
		t.Fatalf("tools %+v", c.Tools)
	}
	res := c.Items[len(c.Items)-1]
	if res.Kind != KindResult || len(res.Blocks) != 2 || res.Blocks[1] != "the payload\n" {
		t.Fatalf("result %+v", res)
	}
	if call := c.Items[len(c.Items)-2]; call.Name != "mcp__compactd__recall" {
		t.Fatalf("call %+v", call)
	}
	// The script calls it by server and tool, with the namespace.
	got, err := c.toolCall(Action{Kind: MCP, Server: "compactd", Tool: "recall", Args: map[string]any{"handle": "r123456"}})
	if err != nil || got.Name != "recall" || got.Namespace != "mcp__compactd" {
		t.Fatalf("call %+v %v", got, err)
	}

	// A namespace without tools is refused, as the API refuses it.
	body["tools"] = []any{map[string]any{"type": "namespace", "name": "mcp__x"}}
	raw, _ = json.Marshal(body)
	if _, err := ValidateResponses(raw); err == nil || !strings.Contains(err.Error(), "namespace") {
		t.Fatalf("an empty namespace: %v", err)
	}
}
