package genai

import (
	"encoding/base64"
	"encoding/json"

	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
)

// NeutralPart renders a handoff part as a genai Part: text, functionCall,
// functionResponse ({"output": …}, or {"error": …} for a failed call) or
// inlineData. Each Part carries one data field, as the API requires.
func NeutralPart(p handoff.Part) map[string]any {
	switch p.Kind {
	case transcript.PartToolCall:
		args := json.RawMessage(p.Args)
		if p.Freeform || !json.Valid(args) {
			b, _ := json.Marshal(map[string]string{"input": p.Text})
			args = b
		}
		return map[string]any{"functionCall": map[string]any{"id": p.CallID, "name": p.Tool, "args": args}}
	case transcript.PartToolResult:
		key := "output"
		if p.IsError {
			key = "error"
		}
		return map[string]any{"functionResponse": map[string]any{"id": p.CallID, "name": p.Tool, "response": map[string]string{key: p.Text}}}
	case transcript.PartImage:
		return map[string]any{"inlineData": map[string]string{"mimeType": p.MIME, "data": base64.StdEncoding.EncodeToString(p.Data)}}
	}
	return map[string]any{"text": p.Text}
}
