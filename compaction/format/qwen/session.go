package qwen

import (
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/genai"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.SessionWriter = Codec{}

// WriteSession implements format.SessionWriter: Qwen Code's JSONL, one
// record per message chained by parentUuid — user records for what the
// user says, assistant records (genai role "model") for the model's words
// and functionCalls, and a tool_result record per result, as Qwen Code
// records them.
func (Codec) WriteSession(s *handoff.Session) ([]byte, error) {
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("write a Qwen Code session: %w", err)
	}
	var out []byte
	var parent any // null before the first record
	emit := func(i int, typ, role string, parts []any, extra map[string]any) {
		id := newid.UUID()
		rec := map[string]any{
			"uuid": id, "parentUuid": parent, "sessionId": s.ID, "timestamp": s.Timestamp(i).Format("2006-01-02T15:04:05.000Z"),
			"type": typ, "cwd": s.Cwd, "version": "", "message": map[string]any{"role": role, "parts": parts},
		}
		for k, v := range extra {
			rec[k] = v
		}
		b, _ := json.Marshal(rec)
		out = append(append(out, b...), '\n')
		parent = id
	}
	for i, m := range s.Messages {
		if m.Role == transcript.RoleAssistant {
			parts := make([]any, len(m.Parts))
			for k, p := range m.Parts {
				parts[k] = genai.NeutralPart(p)
			}
			emit(i, "assistant", "model", parts, map[string]any{"model": s.Model})
			continue
		}
		var said []any
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolResult {
				status := "success"
				if p.IsError {
					status = "error"
				}
				emit(i, "tool_result", "user", []any{genai.NeutralPart(p)}, map[string]any{"toolCallResult": map[string]any{"callId": p.CallID, "status": status}})
				continue
			}
			said = append(said, genai.NeutralPart(p))
		}
		if len(said) > 0 {
			emit(i, "user", "user", said, nil)
		}
	}
	return out, nil
}
