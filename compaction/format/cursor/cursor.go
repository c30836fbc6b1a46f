// Package cursor is the codec for Cursor's agent transcripts
// (~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl): one
// line per message, {role, message: {content: [blocks]}}, with Claude-API
// style blocks (text, thinking, tool_use, tool_result); user text comes
// wrapped in <user_query> tags. The transcript records no usage, so the
// gauge is our estimate; Cursor does not resume a session from this file,
// so forks are exported transcripts.
//
// The shape follows public descriptions of these files; no session of the
// real agent was available. Like all of compaction/, it takes and returns
// bytes only.
package cursor

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Codec reads and writes Cursor agent transcripts.
type Codec struct{ jsonl.Lines[lines] }

// lines is the Codec's line format.
type lines struct{}

var (
	_ format.Codec    = Codec{}
	_ format.Appender = Codec{}
)

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatCursorAgent }

type line struct {
	Role    string `json:"role"`
	Type    string `json:"type"`
	Message *struct {
		Content json.RawMessage `json:"content"`
		Model   string          `json:"model"`
	} `json:"message"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type state struct {
	lines int
	// lastCall pairs an id-less tool_result with the call before it.
	lastCall string
	calls    int
}

// Empty implements jsonl.LineFormat.
func (lines) Empty() *transcript.Transcript {
	return &transcript.Transcript{Format: transcript.FormatCursorAgent, Frame: &jsonl.Frame{}, State: &state{}}
}

// Owns implements jsonl.LineFormat.
func (lines) Owns(t *transcript.Transcript) bool {
	_, ok := t.State.(*state)
	return ok
}

// Names implements jsonl.LineFormat.
func (lines) Names() (source, record string) { return "Cursor agent transcript", "a message" }

// AppendLines implements jsonl.LineFormat.
func (lines) AppendLines(prev *transcript.Transcript, data []byte) *transcript.Transcript {
	st := *prev.State.(*state)
	t := jsonl.Continue(prev)
	t.Messages, t.Kept, t.Meta = slices.Clip(prev.Messages), len(prev.Messages), prev.Meta
	st.lines = jsonl.Decode(t, data, st.lines, func(idx int, rec *transcript.Record, w *line) error {
		return st.decode(t, rec, idx, w)
	})
	t.State = &st
	if len(prev.Records) == 0 {
		t.Kept = 0
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t
}

func (s *state) decode(t *transcript.Transcript, rec *transcript.Record, idx int, w *line) error {
	rec.Type = cmp.Or(w.Role, w.Type)
	if (w.Role != "user" && w.Role != "assistant") || w.Message == nil {
		rec.Kind = transcript.RecordUnknown
		if w.Type == "turn_ended" {
			rec.Kind = transcript.RecordMeta
		}
		return nil
	}
	rec.Kind = transcript.RecordMessage
	parts, err := s.blocks(w.Message.Content, idx)
	if err != nil {
		return err
	}
	if w.Role == "user" {
		var prompt, results []transcript.Part
		for _, p := range parts {
			if p.Kind == transcript.PartToolResult {
				results = append(results, p)
			} else {
				prompt = append(prompt, p)
			}
		}
		if len(results) > 0 {
			t.Messages = append(t.Messages, transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Records: []int{idx}, Parts: results})
		}
		if len(prompt) > 0 {
			t.Messages = append(t.Messages, transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Records: []int{idx}, Parts: prompt})
		}
		return nil
	}
	if w.Message.Model != "" {
		t.Meta.Model = w.Message.Model
	}
	if len(parts) > 0 {
		t.Messages = append(t.Messages, transcript.Message{Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Model: w.Message.Model, Records: []int{idx}, Parts: parts})
	}
	return nil
}

// blocks reads a content value: a string or a list of blocks.
func (s *state) blocks(raw json.RawMessage, idx int) ([]transcript.Part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, err
		}
		return []transcript.Part{{Kind: transcript.PartText, Text: text, Ref: transcript.Ref{Record: idx, Block: -1}}}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("message content: %w", err)
	}
	var out []transcript.Part
	for k, el := range list {
		var b block
		if json.Unmarshal(el, &b) != nil {
			continue
		}
		ref := transcript.Ref{Record: idx, Block: k}
		switch b.Type {
		case "text":
			out = append(out, transcript.Part{Kind: transcript.PartText, Text: b.Text, Ref: ref})
		case "thinking":
			out = append(out, transcript.Part{Kind: transcript.PartReasoning, Text: cmp.Or(b.Thinking, b.Text), Ref: ref})
		case "tool_use":
			id := b.ID
			if id == "" {
				// Cursor's blocks may carry no id: number the calls so a
				// result pairs with the call before it.
				s.calls++
				id = fmt.Sprintf("call-%d", s.calls)
			}
			s.lastCall = id
			out = append(out, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: id, ToolName: b.Name, Args: cmp.Or(jsonx.Compact(b.Input), "{}"), Ref: ref})
		case "tool_result":
			out = append(out, transcript.Part{Kind: transcript.PartToolResult, ToolCallID: cmp.Or(b.ToolUseID, s.lastCall), Text: resultText(b.Content), IsError: b.IsError, Ref: ref})
		}
	}
	return out, nil
}

func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &list) == nil {
		var texts []string
		for _, b := range list {
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	return jsonx.Compact(raw)
}

// Detect implements format.Codec: lines {role, message: {content}} and no
// envelope of another agent (no type, uuid, sessionId).
func (Codec) Detect(name string, head []byte) int {
	score, seen, other := 0, 0, false
	ok := jsonl.HeadObjects(head, func(w *struct {
		Role      string          `json:"role"`
		Type      string          `json:"type"`
		UUID      json.RawMessage `json:"uuid"`
		SessionID json.RawMessage `json:"sessionId"`
		Message   *struct {
			Content json.RawMessage `json:"content"`
			Parts   json.RawMessage `json:"parts"`
		} `json:"message"`
	}) bool {
		if len(w.UUID) > 0 || len(w.SessionID) > 0 {
			other = true // Claude Code or Qwen Code
			return false
		}
		if w.Type != "" || w.Role == "" && w.Message == nil {
			return true // turn_ended and records Cursor may add
		}
		if (w.Role != "user" && w.Role != "assistant") || w.Message == nil || len(w.Message.Content) == 0 || len(w.Message.Parts) > 0 {
			other = true
			return false
		}
		seen++
		score = max(score, 75)
		if bytes.Contains(w.Message.Content, []byte("<user_query>")) {
			score = 90
		}
		return true
	})
	if !ok || other {
		return 0
	}
	if seen == 0 {
		return 0
	}
	if strings.Contains(filepath.ToSlash(name), "agent-transcripts/") {
		score = min(score+8, 100)
	}
	return score
}
