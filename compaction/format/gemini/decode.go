package gemini

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format/internal/genai"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// Block bases for parts that do not live in a message's content array.
const (
	blockCall   = 2 << 20
	blockResult = 3 << 20
)

// wireMessage is one recorded message (a JSONL line or a legacy
// messages[] element).
type wireMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      *string         `json:"type"`
	Content   json.RawMessage `json:"content"`
	// Parts is what some writers put instead of content (seen in the wild
	// on type "model" messages).
	Parts     json.RawMessage `json:"parts"`
	ToolCalls []wireToolCall  `json:"toolCalls"`
	Thoughts  []wireThought   `json:"thoughts"`
	Tokens    *wireTokens     `json:"tokens"`
	Model     string          `json:"model"`
}

type wireToolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result json.RawMessage `json:"result"`
	Status string          `json:"status"`
}

type wireThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

type wireTokens struct {
	Input    int `json:"input"`
	Output   int `json:"output"`
	Cached   int `json:"cached"`
	Thoughts int `json:"thoughts"`
	Tool     int `json:"tool"`
	Total    int `json:"total"`
}

// wireContent is a checkpoint history entry.
type wireContent struct {
	Role  *string         `json:"role"`
	Parts json.RawMessage `json:"parts"`
}

// messageTypes are the recorded message types and whether the model sees them.
var messageTypes = map[string]bool{"user": true, "gemini": true, "model": true, "info": false, "error": false, "warning": false}

// decodeMessage turns a recorded message into the model-visible messages it
// holds: none (UI messages), one, or an assistant message followed by the
// tool results its calls carry.
func decodeMessage(w *wireMessage, rec int) ([]transcript.Message, error) {
	typ := *w.Type
	ts := parseTime(w.Timestamp)
	content := w.Content
	if len(content) == 0 || string(content) == "null" {
		content = w.Parts
	}
	parts, err := decodeContent(content, rec)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "user":
		m := transcript.Message{ID: w.ID, Role: transcript.RoleUser, Origin: transcript.OriginHuman, Timestamp: ts, Records: []int{rec}, Parts: parts}
		if genai.OnlyResults(parts) {
			m.Origin = transcript.OriginToolResult
		}
		return []transcript.Message{m}, nil
	case "gemini", "model":
	default:
		return nil, nil
	}
	// As Gemini CLI turns a recorded message into history: content that
	// holds its calls itself (the history a resume writes back in a $set)
	// is the model's turn as is; otherwise the content and the toolCalls'
	// calls make it up. The toolCalls' results follow either way. The
	// thoughts are not part of it: Gemini CLI never sends them back (see
	// withoutThoughts).
	ownParts := slices.ContainsFunc(parts, func(p transcript.Part) bool { return p.Kind == transcript.PartToolCall })
	var all []transcript.Part
	var results []transcript.Part
	for _, p := range parts {
		if p.Kind == transcript.PartToolResult {
			results = append(results, p)
		} else {
			all = append(all, p)
		}
	}
	for k, tc := range w.ToolCalls {
		if !ownParts {
			all = append(all, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: tc.ID, ToolName: tc.Name, Args: cmp.Or(jsonx.Compact(tc.Args), "{}"), Ref: transcript.Ref{Record: rec, Block: blockCall + k}})
		}
		results = append(results, callResults(&tc, rec, k)...)
	}
	m := transcript.Message{ID: w.ID, Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Model: w.Model, Timestamp: ts, Records: []int{rec}, Parts: all}
	if t := w.Tokens; t != nil {
		// Gemini's prompt count includes the cached tokens.
		m.Usage = &transcript.Usage{Input: max(t.Input-t.Cached, 0), CacheRead: t.Cached, Output: t.Output, Reasoning: t.Thoughts, Total: t.Total}
	}
	out := []transcript.Message{m}
	if len(results) > 0 {
		out = append(out, transcript.Message{ID: w.ID + "#results", Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Timestamp: ts, Records: []int{rec}, Parts: results})
	}
	return out, nil
}

// callResults reads a recorded tool call's result: functionResponse
// parts, each a result whose response output is its text. A result holds
// one response when the CLI recorded it; the history a resume writes back
// holds the responses of the call's whole group, each sent to the model.
func callResults(tc *wireToolCall, rec, k int) []transcript.Part {
	if len(tc.Result) == 0 || string(tc.Result) == "null" {
		return nil
	}
	p := transcript.Part{Kind: transcript.PartToolResult, ToolCallID: tc.ID, ToolName: tc.Name, IsError: tc.Status == "error", Ref: transcript.Ref{Record: rec, Block: blockResult + k}}
	var parts []genai.Part
	if json.Unmarshal(tc.Result, &parts) != nil {
		p.Text = jsonx.Compact(tc.Result)
		return []transcript.Part{p}
	}
	var texts []string
	for _, wp := range parts {
		switch {
		case wp.FunctionResponse != nil:
			text, isErr := genai.ResponseText(wp.FunctionResponse.Response)
			texts = append(texts, text)
			p.IsError = p.IsError || isErr
		case wp.Text != nil:
			texts = append(texts, *wp.Text)
		}
	}
	p.Text = strings.Join(texts, "\n")
	return []transcript.Part{p}
}

// decodeContent reads a PartListUnion: a string, one Part or a Part array.
func decodeContent(raw json.RawMessage, rec int) ([]transcript.Part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if s == "" {
			return nil, nil
		}
		return []transcript.Part{{Kind: transcript.PartText, Text: s, Ref: transcript.Ref{Record: rec, Block: -1}}}, nil
	case '{':
		var p genai.Part
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		return decodePart(&p, transcript.Ref{Record: rec, Block: -1}), nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	var out []transcript.Part
	for k, el := range list {
		var p genai.Part
		ref := transcript.Ref{Record: rec, Block: k}
		if len(el) > 0 && el[0] == '"' {
			// A PartUnion may be a bare string.
			var s string
			if json.Unmarshal(el, &s) == nil {
				out = append(out, transcript.Part{Kind: transcript.PartText, Text: s, Ref: ref})
			}
			continue
		}
		if json.Unmarshal(el, &p) != nil {
			continue // a part we cannot read is kept on disk, not shown
		}
		out = append(out, decodePart(&p, ref)...)
	}
	return out, nil
}

// decodePart reads one API Part. A thought (a text Part marked thought)
// is left out: Gemini CLI records the model's thoughts (in a message's
// thoughts, and as thought Parts in the history a resume writes back) but
// strips them from every request, live or resumed, so the model never
// reads them again and they take no room in its window. Forks keep them
// as recorded.
func decodePart(p *genai.Part, ref transcript.Ref) []transcript.Part {
	if p.Thought {
		return nil
	}
	if tp, ok := genai.DecodePart(p, ref); ok {
		return []transcript.Part{tp}
	}
	return nil
}

// decodeCheckpoint reads one checkpoint Content.
func decodeCheckpoint(c *wireContent, rec int) ([]transcript.Message, error) {
	parts, err := decodeContent(c.Parts, rec)
	if err != nil {
		return nil, err
	}
	m := transcript.Message{Records: []int{rec}, Parts: parts}
	switch *c.Role {
	case "user":
		m.Role, m.Origin = transcript.RoleUser, transcript.OriginHuman
		if genai.OnlyResults(parts) {
			m.Origin = transcript.OriginToolResult
		}
	case "model":
		m.Role, m.Origin = transcript.RoleAssistant, transcript.OriginAgent
	default:
		return nil, nil
	}
	return []transcript.Message{m}, nil
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
