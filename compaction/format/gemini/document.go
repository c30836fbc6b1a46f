package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// docFrame is Transcript.Frame of the whole-file shapes.
type docFrame struct {
	src  []byte
	doc  *jsonx.ArrayDocument
	gaps jsonx.Gaps
	// checkpoint is true for Content histories, false for legacy sessions.
	checkpoint bool
}

// parseDocument reads a legacy session or a checkpoint. ok is false when
// src is not such a document (then it is read as JSONL).
func parseDocument(src []byte) (*transcript.Transcript, bool, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(src, format.BOM))
	if len(trimmed) == 0 || trimmed[0] != '{' && trimmed[0] != '[' {
		return nil, false, nil
	}
	doc, err := jsonx.ScanArrayDocument(src, "messages", "history")
	if err != nil {
		if trimmed[0] == '[' {
			return nil, true, fmt.Errorf("parse gemini-cli checkpoint: %w", err)
		}
		return nil, false, nil
	}
	fr := &docFrame{src: src, doc: doc, gaps: jsonx.GapsOf(src, doc.Elements), checkpoint: doc.Key != "messages"}
	t := &transcript.Transcript{Format: transcript.FormatGeminiCLI, Size: int64(len(src)), Frame: fr}
	for _, key := range []string{"sessionId", "summary"} {
		if sp, ok := doc.Member(key); ok {
			var s string
			if json.Unmarshal(src[sp.Start:sp.End], &s) == nil {
				if key == "sessionId" {
					t.Meta.SessionID = s
				} else {
					t.Meta.Title = s
				}
			}
		}
	}
	t.Records = make([]transcript.Record, len(doc.Elements))
	for i, sp := range doc.Elements {
		r := &t.Records[i]
		*r = transcript.Record{Start: int64(sp.Start), End: int64(sp.End), Raw: src[sp.Start:sp.End:sp.End]}
		msgs, err := decodeElement(r, i, fr.checkpoint)
		if err != nil {
			r.Kind, r.Err = transcript.RecordMalformed, err.Error()
			t.Skipped++
			t.Problems = append(t.Problems, transcript.Problem{Record: i, Message: fmt.Sprintf("record at byte %d: %v", sp.Start, err)})
			continue
		}
		for _, m := range msgs {
			if m.Model != "" {
				t.Meta.Model = m.Model
			}
		}
		t.Messages = append(t.Messages, msgs...)
	}
	if doc.Key == "" && len(t.Records) > 0 && t.Skipped == len(t.Records) {
		return nil, true, fmt.Errorf("parse gemini-cli checkpoint: no element is a Content object")
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, true, nil
}

// decodeElement decodes one messages[] or history[] element and sets the
// record's kind.
func decodeElement(r *transcript.Record, i int, checkpoint bool) ([]transcript.Message, error) {
	if len(r.Raw) == 0 || r.Raw[0] != '{' {
		return nil, fmt.Errorf("element is not a JSON object")
	}
	if checkpoint {
		var c wireContent
		if err := json.Unmarshal(r.Raw, &c); err != nil {
			return nil, err
		}
		if c.Role == nil {
			r.Kind = transcript.RecordUnknown
			return nil, nil
		}
		r.Type = *c.Role
		msgs, err := decodeCheckpoint(&c, i)
		if err == nil && msgs == nil {
			r.Kind = transcript.RecordUnknown
		}
		return msgs, err
	}
	var w wireMessage
	if err := json.Unmarshal(r.Raw, &w); err != nil {
		return nil, err
	}
	if w.Type == nil {
		r.Kind = transcript.RecordUnknown
		return nil, nil
	}
	r.Type, r.ID = *w.Type, w.ID
	visible, known := messageTypes[*w.Type]
	switch {
	case !known:
		r.Kind = transcript.RecordUnknown
		return nil, nil
	case !visible:
		r.Kind = transcript.RecordMeta
		return nil, nil
	}
	return decodeMessage(&w, i)
}

// detectDocument scores a legacy session ({sessionId, projectHash,
// messages[{id, type}]}) or a checkpoint ({history:[{role, parts}]} or a
// bare array of them; role "model" is Gemini's own).
func detectDocument(head []byte) int {
	p := jsonx.Peek(head)
	records, wrapper := p.Records("messages", "history")
	if wrapper != nil {
		if _, ok := wrapper["messages"]; ok {
			_, hasSession := wrapper["sessionId"]
			_, hasHash := wrapper["projectHash"]
			if hasSession && hasHash {
				return 90
			}
			if hasSession && geminiMessages(records) {
				return 70
			}
			if !hasSession && !p.Complete && geminiMessages(records) {
				// The head ends in the messages: a tool that saved the
				// session put sessionId after them.
				return 60
			}
			return 0
		}
		if _, ok := wrapper["history"]; !ok {
			return 0
		}
	}
	if len(records) == 0 {
		return 0
	}
	model := false
	for _, r := range records {
		o, ok := r.(map[string]any)
		if !ok {
			return 0
		}
		role, _ := o["role"].(string)
		if _, hasParts := o["parts"]; !hasParts || role != "user" && role != "model" {
			return 0
		}
		if len(o) > 2 {
			return 0
		}
		model = model || role == "model"
	}
	switch {
	case model && wrapper != nil:
		return 85
	case model:
		return 70
	case wrapper != nil:
		return 50
	}
	return 30
}

func geminiMessages(records []any) bool {
	for _, r := range records {
		o, ok := r.(map[string]any)
		if !ok {
			return false
		}
		if t, _ := o["type"].(string); t == "gemini" || t == "model" {
			return true
		}
	}
	return false
}
