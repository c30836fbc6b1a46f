package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/genai"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.SessionWriter = Codec{}

// WriteSession implements format.SessionWriter: Gemini CLI's JSONL
// recording — the session line (its id and the project's hash), then a
// record per message: a user record for what the user says, a gemini
// record for the model's words and calls, each call carrying its result
// (toolCalls[].result), from which Gemini CLI rebuilds the user turn that
// answers them.
func (Codec) WriteSession(s *handoff.Session) ([]byte, error) {
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("write a Gemini CLI session: %w", err)
	}
	var out []byte
	line := func(v any) {
		b, _ := json.Marshal(v)
		out = append(append(out, b...), '\n')
	}
	sum := sha256.Sum256([]byte(s.Cwd))
	ts := s.Timestamp(0).Format("2006-01-02T15:04:05.000Z")
	last := s.Timestamp(len(s.Messages)).Format("2006-01-02T15:04:05.000Z")
	line(map[string]any{"sessionId": s.ID, "projectHash": hex.EncodeToString(sum[:]), "startTime": ts, "lastUpdated": last, "kind": "main"})
	for i, m := range s.Messages {
		ts := s.Timestamp(i).Format("2006-01-02T15:04:05.000Z")
		if m.Role == transcript.RoleUser {
			var parts []any
			for _, p := range m.Parts {
				if p.Kind != transcript.PartToolResult { // answered in the gemini record before
					parts = append(parts, genai.NeutralPart(p))
				}
			}
			if len(parts) > 0 {
				line(map[string]any{"id": newid.UUID(), "timestamp": ts, "type": "user", "content": parts})
			}
			continue
		}
		var text []string
		var calls []any
		results := map[string]handoff.Part{}
		if i+1 < len(s.Messages) {
			for _, p := range s.Messages[i+1].Parts {
				if p.Kind == transcript.PartToolResult {
					results[p.CallID] = p
				}
			}
		}
		for _, p := range m.Parts {
			switch p.Kind {
			case transcript.PartText:
				text = append(text, p.Text)
			case transcript.PartToolCall:
				res := results[p.CallID]
				status := "success"
				if res.IsError {
					status = "error"
				}
				call := genai.NeutralPart(p)["functionCall"].(map[string]any)
				calls = append(calls, map[string]any{
					"id": p.CallID, "name": p.Tool, "args": call["args"],
					"result": []any{genai.NeutralPart(res)}, "status": status, "timestamp": ts,
				})
			default:
				return nil, fmt.Errorf("write a Gemini CLI session: message %d: the model's turn cannot hold a %s part", i, p.Kind)
			}
		}
		rec := map[string]any{"id": newid.UUID(), "timestamp": ts, "type": "gemini", "content": strings.Join(text, "\n\n"), "model": s.Model}
		if len(calls) > 0 {
			rec["toolCalls"] = calls
		}
		line(rec)
	}
	return out, nil
}
