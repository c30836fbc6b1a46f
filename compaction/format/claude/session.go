package claude

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.SessionWriter = Codec{}

// WriteSession implements format.SessionWriter: one record per message,
// chained by parentUuid as Claude Code chains its own, tool calls as
// tool_use blocks and their results as tool_result blocks of the next
// user record, images as base64 image blocks.
func (Codec) WriteSession(s *handoff.Session) ([]byte, error) {
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("write a Claude Code session: %w", err)
	}
	w := forkWriter{session: s.ID, meta: transcript.Meta{Cwd: s.Cwd}}
	for i, m := range s.Messages {
		w.ts = s.Timestamp(i).Format("2006-01-02T15:04:05.000Z")
		blocks := make([]any, 0, len(m.Parts))
		calls := false
		for _, p := range m.Parts {
			b, err := block(p)
			if err != nil {
				return nil, fmt.Errorf("write a Claude Code session: message %d: %w", i, err)
			}
			calls = calls || p.Kind == transcript.PartToolCall
			blocks = append(blocks, b)
		}
		if m.Role == transcript.RoleUser {
			o := w.base("user")
			var content any = blocks
			if len(m.Parts) == 1 && m.Parts[0].Kind == transcript.PartText {
				content = m.Parts[0].Text // a typed prompt, as Claude Code records it
			}
			_ = o.Set("message", map[string]any{"role": "user", "content": content})
			_ = o.Set("timestamp", w.ts)
			w.chain(o)
			w.emit(o)
			continue
		}
		stop := "end_turn"
		if calls {
			stop = "tool_use"
		}
		o := w.base("assistant")
		_ = o.Set("message", map[string]any{
			"id": "msg_" + newid.Hex(), "type": "message", "role": "assistant", "model": s.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil,
		})
		_ = o.Set("timestamp", w.ts)
		w.chain(o)
		w.emit(o)
	}
	return w.out, nil
}

// block renders one part as a Messages API content block.
func block(p handoff.Part) (any, error) {
	switch p.Kind {
	case transcript.PartText:
		return map[string]any{"type": "text", "text": p.Text}, nil
	case transcript.PartToolCall:
		input := json.RawMessage(p.Args)
		if p.Freeform || !json.Valid(input) {
			b, _ := json.Marshal(map[string]string{"input": p.Text})
			input = b
		}
		return map[string]any{"type": "tool_use", "id": p.CallID, "name": p.Tool, "input": input}, nil
	case transcript.PartToolResult:
		return map[string]any{"type": "tool_result", "tool_use_id": p.CallID, "content": p.Text, "is_error": p.IsError}, nil
	case transcript.PartImage:
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": p.MIME, "data": base64.StdEncoding.EncodeToString(p.Data)}}, nil
	}
	return nil, fmt.Errorf("a %s part has no Claude Code block", p.Kind)
}
