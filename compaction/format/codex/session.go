package codex

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.SessionWriter = Codec{}

// WriteSession implements format.SessionWriter: a session_meta naming the
// new id and folder, then the conversation as response items — messages,
// function calls (custom tool calls for a freeform tool such as
// apply_patch) and their outputs — with a user_message event for each
// prompt, as Codex lists a session's prompts.
func (Codec) WriteSession(s *handoff.Session) ([]byte, error) {
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("write a Codex rollout: %w", err)
	}
	w := &forkWriter{id: s.ID, ts: s.Timestamp(0).Format("2006-01-02T15:04:05.000Z")}
	meta := &jsonx.Object{}
	_ = meta.Set("id", s.ID)
	_ = meta.Set("timestamp", w.ts)
	_ = meta.Set("cwd", s.Cwd)
	_ = meta.Set("originator", "compactd")
	_ = meta.Set("cli_version", "")
	w.line(w.envelope(typeSessionMeta, meta.Bytes()))
	freeform := map[string]bool{}
	for i, m := range s.Messages {
		w.ts = s.Timestamp(i).Format("2006-01-02T15:04:05.000Z")
		var content []any
		var prompt string
		flush := func() {
			if len(content) == 0 {
				return
			}
			b, _ := json.Marshal(map[string]any{"type": "message", "role": string(m.Role), "content": content})
			w.line(w.envelope("response_item", b))
			content = nil
		}
		text := "input_text"
		if m.Role == transcript.RoleAssistant {
			text = "output_text"
		}
		for _, p := range m.Parts {
			switch p.Kind {
			case transcript.PartText:
				content = append(content, map[string]string{"type": text, "text": p.Text})
				if m.Role == transcript.RoleUser {
					prompt += p.Text
				}
			case transcript.PartImage:
				content = append(content, map[string]string{"type": "input_image", "image_url": "data:" + p.MIME + ";base64," + base64.StdEncoding.EncodeToString(p.Data)})
			case transcript.PartToolCall:
				flush()
				var item map[string]any
				if p.Freeform {
					freeform[p.CallID] = true
					item = map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": p.CallID, "name": p.Tool, "input": p.Text}
				} else {
					item = map[string]any{"type": "function_call", "name": p.Tool, "arguments": p.Args, "call_id": p.CallID}
				}
				b, _ := json.Marshal(item)
				w.line(w.envelope("response_item", b))
			case transcript.PartToolResult:
				typ := "function_call_output"
				if freeform[p.CallID] {
					typ = "custom_tool_call_output"
				}
				b, _ := json.Marshal(map[string]any{"type": typ, "call_id": p.CallID, "output": p.Text})
				w.line(w.envelope("response_item", b))
			default:
				return nil, fmt.Errorf("write a Codex rollout: message %d: a %s part has no response item", i, p.Kind)
			}
		}
		flush()
		if prompt != "" {
			b, _ := json.Marshal(map[string]any{"type": "user_message", "message": prompt, "images": []string{}, "local_images": []string{}, "text_elements": []string{}})
			w.line(w.envelope("event_msg", b))
		}
	}
	return w.out, nil
}
