package cursor

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fork implements format.Codec: the view as a transcript of the same
// shape (untouched lines byte for byte), each summary a user line.
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	if src == nil {
		return nil, fmt.Errorf("fork: view has no source transcript")
	}
	count := jsonx.SourceParts(src)
	kept := map[int][]transcript.Part{}
	first := map[int]int{}
	for i := range v.Messages {
		for _, r := range v.Messages[i].Records {
			if _, ok := first[r]; !ok {
				first[r] = i
			}
		}
		for _, p := range v.Messages[i].Parts {
			kept[p.Ref.Record] = append(kept[p.Ref.Record], p)
		}
	}
	var out bytes.Buffer
	line := func(b []byte) {
		out.Write(b)
		out.WriteByte('\n')
	}
	summary := func(text string) {
		b, _ := jsonx.Marshal(map[string]any{"role": "user", "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}})
		line(b)
	}
	for _, s := range jsonx.PlanFork(v, jsonx.PassUnknownOnly(src, nil)) {
		switch {
		case s.Summary >= 0:
			summary(v.Summaries[s.Summary].Text)
		case s.Record >= 0:
			line(src.Records[s.Record].Raw)
		default:
			for _, r := range v.Messages[s.Message].Records {
				if first[r] != s.Message {
					continue
				}
				raw := src.Records[r].Raw
				if jsonx.Untouched(kept[r], count[r]) {
					line(raw)
					continue
				}
				if len(kept[r]) == 0 {
					continue
				}
				b, err := render(raw, kept[r])
				if err != nil {
					return nil, fmt.Errorf("fork: record %d: %w", r, err)
				}
				line(b)
			}
		}
	}
	return out.Bytes(), nil
}

// render rewrites a line's content to hold exactly parts.
func render(raw []byte, parts []transcript.Part) ([]byte, error) {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	msg, err := jsonx.ParseObject(o.Get("message"))
	if err != nil {
		return nil, err
	}
	content := bytes.TrimSpace(msg.Get("content"))
	byBlock := map[int]transcript.Part{}
	for _, p := range parts {
		byBlock[p.Ref.Block] = p
	}
	if len(content) > 0 && content[0] == '"' {
		if p, ok := byBlock[-1]; ok && p.Changed {
			_ = msg.Set("content", p.Text)
		}
	} else {
		els, err := jsonx.ParseArray(content)
		if err != nil {
			return nil, err
		}
		keep := []json.RawMessage{}
		for k, el := range els {
			p, ok := byBlock[k]
			if !ok {
				continue
			}
			if p.Changed {
				if bo, err := jsonx.ParseObject(el); err == nil {
					switch p.Kind {
					case transcript.PartText:
						_ = bo.Set("text", p.Text)
					case transcript.PartReasoning:
						if bo.Has("thinking") {
							_ = bo.Set("thinking", p.Text)
						} else {
							_ = bo.Set("text", p.Text)
						}
					case transcript.PartToolCall:
						if json.Valid([]byte(p.Args)) {
							bo.SetRaw("input", json.RawMessage(p.Args))
						}
					case transcript.PartToolResult:
						_ = bo.Set("content", p.Text)
					}
					el = bo.Bytes()
				}
			}
			keep = append(keep, el)
		}
		msg.SetRaw("content", jsonx.Array(keep))
	}
	o.SetRaw("message", msg.Bytes())
	return o.Bytes(), nil
}
