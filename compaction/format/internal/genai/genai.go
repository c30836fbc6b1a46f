// Package genai reads and re-renders Gemini API Content ({role, parts[]})
// as agents built on Google's genai types record it (Gemini CLI's
// recordings and checkpoints, Qwen Code's session messages and
// compression history). Like the rest of compaction/, it takes and
// returns bytes only.
package genai

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// Content is one genai Content.
type Content struct {
	Role  string          `json:"role"`
	Parts json.RawMessage `json:"parts"`
}

// Part is one genai Part.
type Part struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
}

// DecodeParts reads a parts array; each part's Ref is {rec, base+index}.
// Elements that are not parts are skipped (they stay on disk).
func DecodeParts(raw json.RawMessage, rec, base int) ([]transcript.Part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	var out []transcript.Part
	for k, el := range list {
		var p Part
		if json.Unmarshal(el, &p) != nil {
			continue
		}
		if tp, ok := DecodePart(&p, transcript.Ref{Record: rec, Block: base + k}); ok {
			out = append(out, tp)
		}
	}
	return out, nil
}

// DecodePart reads one Part as the part the model sees, at ref; ok is
// false for a Part that carries none of the data it knows.
func DecodePart(p *Part, ref transcript.Ref) (transcript.Part, bool) {
	switch {
	case p.FunctionCall != nil:
		return transcript.Part{Kind: transcript.PartToolCall, ToolCallID: p.FunctionCall.ID, ToolName: p.FunctionCall.Name, Args: cmp.Or(jsonx.Compact(p.FunctionCall.Args), "{}"), Ref: ref}, true
	case p.FunctionResponse != nil:
		text, isErr := ResponseText(p.FunctionResponse.Response)
		return transcript.Part{Kind: transcript.PartToolResult, ToolCallID: p.FunctionResponse.ID, ToolName: p.FunctionResponse.Name, Text: text, IsError: isErr, Ref: ref}, true
	case p.InlineData != nil:
		kind := transcript.PartDocument
		if strings.HasPrefix(p.InlineData.MimeType, "image/") {
			kind = transcript.PartImage
		}
		return transcript.Part{Kind: kind, MIME: p.InlineData.MimeType, Size: base64.StdEncoding.DecodedLen(len(p.InlineData.Data)), Ref: ref}, true
	case p.FileData != nil:
		return transcript.Part{Kind: transcript.PartAttachment, MIME: p.FileData.MimeType, Text: p.FileData.FileURI, Ref: ref}, true
	case p.Text != nil && p.Thought:
		return transcript.Part{Kind: transcript.PartReasoning, Text: *p.Text, Signed: p.ThoughtSignature != "", Opaque: len(p.ThoughtSignature), Ref: ref}, true
	case p.Text != nil:
		return transcript.Part{Kind: transcript.PartText, Text: *p.Text, Ref: ref}, true
	}
	return transcript.Part{}, false
}

// ResponseText is what a functionResponse tells the model: its output
// (or error) string, else the response as JSON.
func ResponseText(raw json.RawMessage) (string, bool) {
	var r struct {
		Output *string `json:"output"`
		Error  *string `json:"error"`
	}
	if json.Unmarshal(raw, &r) == nil {
		switch {
		case r.Output != nil && r.Error == nil:
			return *r.Output, false
		case r.Error != nil && r.Output == nil:
			return *r.Error, true
		}
	}
	return jsonx.Compact(raw), false
}

// OnlyResults reports whether every part is a tool result (and there is one).
func OnlyResults(parts []transcript.Part) bool {
	for _, p := range parts {
		if p.Kind != transcript.PartToolResult {
			return false
		}
	}
	return len(parts) > 0
}

// RenderParts rewrites a parts array to hold exactly the parts kept
// (matched by Ref.Block - base), re-rendering changed ones. Elements no
// kept part refers to are dropped, except elements that decode to no part
// at all (unknown shapes), which stay.
func RenderParts(raw json.RawMessage, kept []transcript.Part, base int) (json.RawMessage, error) {
	els, err := jsonx.ParseArray(raw)
	if err != nil {
		return nil, err
	}
	byBlock := map[int]transcript.Part{}
	for _, p := range kept {
		if _, seen := byBlock[p.Ref.Block-base]; !seen {
			byBlock[p.Ref.Block-base] = p
		}
	}
	out := []json.RawMessage{}
	for k, el := range els {
		p, ok := byBlock[k]
		if !ok {
			var gp Part
			if json.Unmarshal(el, &gp) == nil {
				if _, known := DecodePart(&gp, transcript.Ref{}); known {
					continue
				}
			}
			out = append(out, el)
			continue
		}
		if p.Changed {
			el = RenderPart(el, p)
		}
		out = append(out, el)
	}
	return jsonx.Array(out), nil
}

// partData are the members of the API Part's "data" oneof: a Part may
// carry one of them, never two (the API answers 400 INVALID_ARGUMENT).
var partData = []string{"text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode", "codeExecutionResult"}

// RenderPart rewrites one API Part with a changed part's text or args. A
// text standing in for a function response (a stripped payload, or the
// one-line stand-in that keeps an emptied message) becomes the response's
// output, so the Part stays a functionResponse; one standing in for any
// other data (media, a call) replaces the Part with a text Part.
func RenderPart(raw []byte, p transcript.Part) json.RawMessage {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return raw
	}
	switch p.Kind {
	case transcript.PartText, transcript.PartReasoning:
		if o.Has("functionResponse") {
			setResponse(o, p.Text)
			break
		}
		for _, f := range partData {
			if f != "text" && o.Has(f) {
				t := &jsonx.Object{}
				_ = t.Set("text", p.Text)
				return t.Bytes()
			}
		}
		_ = o.Set("text", p.Text)
	case transcript.PartToolCall:
		if fc, err := jsonx.ParseObject(o.Get("functionCall")); err == nil && json.Valid([]byte(p.Args)) {
			fc.SetRaw("args", json.RawMessage(p.Args))
			o.SetRaw("functionCall", fc.Bytes())
		}
	case transcript.PartToolResult:
		setResponse(o, p.Text)
	}
	return o.Bytes()
}

// setResponse replaces a functionResponse Part's payload with text as its
// output, leaving the Part's one data field the functionResponse.
func setResponse(o *jsonx.Object, text string) {
	fr, err := jsonx.ParseObject(o.Get("functionResponse"))
	if err != nil {
		return
	}
	_ = fr.Set("response", map[string]any{"output": text})
	o.SetRaw("functionResponse", fr.Bytes())
	for _, f := range partData {
		if f != "functionResponse" {
			o.Delete(f)
		}
	}
}

// TextContent renders a Content holding one text part.
func TextContent(role, text string) json.RawMessage {
	b, _ := jsonx.Marshal(map[string]any{"role": role, "parts": []any{map[string]any{"text": text}}})
	return b
}
