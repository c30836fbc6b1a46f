package openairesponses

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// ErrSignedChanged is returned when a view alters a reasoning item that
// carries encrypted_content: the API checks it, so it may only be dropped.
var ErrSignedChanged = errors.New("encrypted reasoning was altered; it may only be kept or dropped")

// Fork implements format.Codec: the same document with the item list
// holding the view; summaries become user message items.
func (Codec) Fork(v *transcript.View, _ format.ForkOptions) ([]byte, error) {
	src := v.Source
	fr, ok := src.Frame.(*frame)
	if !ok {
		return nil, fmt.Errorf("fork openai-responses: transcript was not parsed by this codec")
	}
	f := &jsonx.ArrayFork{Src: fr.src, Doc: fr.doc, Skip: map[int]bool{fr.instructions: true}, NewMessage: newMessage}
	f.Record = func(_, rec int, source, kept []transcript.Part) ([]byte, bool, error) {
		r := src.Records[rec]
		untouched := jsonx.Untouched(kept, len(source))
		if rec == fr.instructions {
			// The instructions field, outside the item list.
			if !untouched && len(kept) > 0 {
				s, err := jsonx.Marshal(kept[0].Text)
				if err != nil {
					return nil, false, err
				}
				f.Edits = append(f.Edits, jsonx.Edit{Span: jsonx.Span{Start: int(r.Start), End: int(r.End)}, Bytes: s})
			}
			return nil, false, nil
		}
		if untouched {
			return r.Raw, true, nil
		}
		nr, err := renderItem(r.Raw, source, kept)
		return nr, false, err
	}
	out, err := f.Write(v)
	if err != nil {
		return nil, fmt.Errorf("fork openai-responses: %w", err)
	}
	return out, nil
}

func newMessage(role, text string) []byte {
	partType := "input_text"
	switch role {
	case "assistant":
		partType = "output_text"
	case "system", "developer":
	default:
		role = "user"
	}
	part := &jsonx.Object{}
	_ = part.Set("type", partType)
	_ = part.Set("text", text)
	o := &jsonx.Object{}
	_ = o.Set("type", "message")
	_ = o.Set("role", role)
	o.SetRaw("content", jsonx.Array([]json.RawMessage{part.Bytes()}))
	return o.Bytes()
}

// renderItem rebuilds an item from its kept parts; nil means drop it.
func renderItem(raw []byte, source, kept []transcript.Part) ([]byte, error) {
	if len(kept) == 0 {
		return nil, nil
	}
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	var typ, role string
	_ = json.Unmarshal(obj.Get("type"), &typ)
	_ = json.Unmarshal(obj.Get("role"), &role)
	p := kept[0]
	switch {
	case typ == "message" || (typ == "" && role != ""):
		content := obj.Get("content")
		if len(content) > 0 && content[0] == '"' {
			if err := obj.Set("content", p.Text); err != nil {
				return nil, err
			}
			return obj.Bytes(), nil
		}
		elems, err := jsonx.ParseArray(content)
		if err != nil {
			return nil, err
		}
		_, srcBlocks := jsonx.ByBlock(source)
		order, keptBlocks := jsonx.ByBlock(kept)
		var out []json.RawMessage
		for _, b := range order {
			if b < 0 || b >= len(elems) {
				continue
			}
			if jsonx.Untouched(keptBlocks[b], len(srcBlocks[b])) {
				out = append(out, elems[b])
				continue
			}
			out = append(out, textPart(elems[b], role, keptBlocks[b][0].Text))
		}
		obj.SetRaw("content", jsonx.Array(out))
	case !p.Changed:
	case typ == "reasoning":
		if p.Signed {
			return nil, ErrSignedChanged
		}
		s := &jsonx.Object{}
		_ = s.Set("type", "summary_text")
		_ = s.Set("text", p.Text)
		obj.SetRaw("summary", jsonx.Array([]json.RawMessage{s.Bytes()}))
	case typ == "function_call":
		if err := obj.Set("arguments", p.Args); err != nil {
			return nil, err
		}
	case typ == "custom_tool_call":
		if err := obj.Set("input", p.Args); err != nil {
			return nil, err
		}
	case p.Kind == transcript.PartToolResult:
		if err := obj.Set("output", p.Text); err != nil {
			return nil, err
		}
	}
	return obj.Bytes(), nil
}

// textPart rewrites a content part's text, turning media that changed
// into the text standing in for it.
func textPart(raw json.RawMessage, role, text string) json.RawMessage {
	if obj, err := jsonx.ParseObject(raw); err == nil {
		var typ string
		_ = json.Unmarshal(obj.Get("type"), &typ)
		if typ == "input_text" || typ == "output_text" || typ == "text" {
			_ = obj.Set("text", text)
			return obj.Bytes()
		}
	}
	o := &jsonx.Object{}
	if role == "assistant" {
		_ = o.Set("type", "output_text")
	} else {
		_ = o.Set("type", "input_text")
	}
	_ = o.Set("text", text)
	return o.Bytes()
}
