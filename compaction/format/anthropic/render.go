package anthropic

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// ErrSignedChanged is returned when a view alters signed reasoning, which
// the API verifies: such a part may be dropped, never rewritten.
var ErrSignedChanged = errors.New("signed thinking was altered; it may only be kept or dropped")

// RenderRecord rebuilds a MessageParam record keeping only the kept parts
// (all from this record). Untouched blocks keep their exact bytes; the
// object keeps its key order and unknown keys. It returns nil when no
// content is left.
func RenderRecord(raw []byte, source, kept []transcript.Part) ([]byte, error) {
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	content, err := RenderContent(obj.Get("content"), source, kept)
	if err != nil || content == nil {
		return nil, err
	}
	obj.SetRaw("content", content)
	return obj.Bytes(), nil
}

// RenderContent rebuilds a content value (a string or blocks) from the kept
// parts; nil means nothing is left.
func RenderContent(content json.RawMessage, source, kept []transcript.Part) (json.RawMessage, error) {
	if len(kept) == 0 {
		return nil, nil
	}
	_, srcBlocks := jsonx.ByBlock(source)
	order, keptBlocks := jsonx.ByBlock(kept)
	if len(content) > 0 && content[0] == '"' {
		return jsonx.Marshal(joinText(keptBlocks[BlockContent]))
	}
	elems, err := jsonx.ParseArray(content)
	if err != nil {
		return nil, err
	}
	var out []json.RawMessage
	for _, b := range order {
		if b < 0 || b >= len(elems) {
			continue
		}
		if jsonx.Untouched(keptBlocks[b], len(srcBlocks[b])) {
			out = append(out, elems[b])
			continue
		}
		nb, err := renderBlock(elems[b], srcBlocks[b], keptBlocks[b])
		if err != nil {
			return nil, err
		}
		if nb != nil {
			out = append(out, nb)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return jsonx.Array(out), nil
}

func joinText(parts []transcript.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TextBlock renders {"type":"text","text":…}.
func TextBlock(text string) json.RawMessage {
	o := &jsonx.Object{}
	_ = o.Set("type", "text")
	_ = o.Set("text", text)
	return o.Bytes()
}

func renderBlock(raw json.RawMessage, source, kept []transcript.Part) (json.RawMessage, error) {
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	var typ string
	_ = json.Unmarshal(obj.Get("type"), &typ)
	switch typ {
	case "text":
		if err := obj.Set("text", joinText(kept)); err != nil {
			return nil, err
		}
		return obj.Bytes(), nil
	case "thinking":
		p := kept[0]
		if p.Signed {
			return nil, ErrSignedChanged
		}
		if err := obj.Set("thinking", p.Text); err != nil {
			return nil, err
		}
		return obj.Bytes(), nil
	case "tool_use", "server_tool_use", "mcp_tool_use":
		p := kept[0]
		if json.Valid([]byte(p.Args)) {
			obj.SetRaw("input", json.RawMessage(p.Args))
		}
		return obj.Bytes(), nil
	case "tool_result", "mcp_tool_result":
		return renderToolResult(obj, source, kept)
	}
	// Media and anything else that changed becomes the text standing in for it.
	if p := kept[0]; p.Changed {
		return TextBlock(p.Text), nil
	}
	return raw, nil
}

func renderToolResult(obj *jsonx.Object, source, kept []transcript.Part) (json.RawMessage, error) {
	var result *transcript.Part
	images := 0
	for i := range kept {
		switch kept[i].Kind {
		case transcript.PartToolResult:
			result = &kept[i]
		case transcript.PartImage:
			images++
		}
	}
	if result == nil {
		// A result without its text is no result; the pairing pass of the
		// strategy decides about the call.
		return nil, nil
	}
	srcImages := 0
	for _, p := range source {
		if p.Kind == transcript.PartImage {
			srcImages++
		}
	}
	var keptImages []json.RawMessage
	if images > 0 && images == srcImages {
		if elems, err := jsonx.ParseArray(obj.Get("content")); err == nil {
			for _, e := range elems {
				var b struct {
					Type string `json:"type"`
				}
				if json.Unmarshal(e, &b) == nil && b.Type == "image" {
					keptImages = append(keptImages, e)
				}
			}
		}
	}
	if len(keptImages) == 0 {
		if err := obj.Set("content", result.Text); err != nil {
			return nil, err
		}
	} else {
		obj.SetRaw("content", jsonx.Array(append([]json.RawMessage{TextBlock(result.Text)}, keptImages...)))
	}
	return obj.Bytes(), nil
}

// MergeText adds a text block to a user MessageParam: after its leading
// tool_result blocks (the API wants those first), else at the front.
func MergeText(raw []byte, text string) ([]byte, error) {
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	content := obj.Get("content")
	var blocks []json.RawMessage
	if len(content) > 0 && content[0] == '"' {
		var s string
		_ = json.Unmarshal(content, &s)
		blocks = []json.RawMessage{TextBlock(s)}
	} else if content != nil && string(content) != "null" {
		if blocks, err = jsonx.ParseArray(content); err != nil {
			return nil, err
		}
	}
	at := 0
	for at < len(blocks) {
		var b struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(blocks[at], &b) != nil || b.Type != "tool_result" {
			break
		}
		at++
	}
	out := append(append(append([]json.RawMessage{}, blocks[:at]...), TextBlock(text)), blocks[at:]...)
	obj.SetRaw("content", jsonx.Array(out))
	return obj.Bytes(), nil
}

// NewMessage renders a MessageParam holding text parts of a message a
// strategy synthesized (one with no source records).
func NewMessage(m *transcript.Message) ([]byte, error) {
	var blocks []json.RawMessage
	for _, p := range m.Parts {
		if p.Text != "" {
			blocks = append(blocks, TextBlock(p.Text))
		}
	}
	if len(blocks) == 0 {
		return nil, nil
	}
	o := &jsonx.Object{}
	role := string(m.Role)
	if role != "assistant" {
		role = "user"
	}
	_ = o.Set("role", role)
	o.SetRaw("content", jsonx.Array(blocks))
	return o.Bytes(), nil
}
