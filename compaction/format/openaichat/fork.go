package openaichat

import (
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fork implements format.Codec: the same document (wrapper kept) with the
// messages array holding the view. Summaries become user messages; chat
// arrays need no role alternation.
func (Codec) Fork(v *transcript.View, _ format.ForkOptions) ([]byte, error) { return ForkArray(v) }

// ForkArray writes a view of a transcript ParseArray read as Fork does.
func ForkArray(v *transcript.View) ([]byte, error) {
	src := v.Source
	fr, ok := src.Frame.(*frame)
	if !ok {
		return nil, fmt.Errorf("fork %s: transcript was not parsed as a chat message array", src.Format)
	}
	keepUsage := v.UnchangedPrefix()
	f := &jsonx.ArrayFork{Src: fr.src, Doc: fr.doc, NewMessage: newMessage,
		Record: func(msg, rec int, source, kept []transcript.Part) ([]byte, bool, error) {
			raw := src.Records[rec].Raw
			untouched := jsonx.Untouched(kept, len(source))
			if msg >= keepUsage {
				stale, err := dropUsage(raw)
				if err != nil {
					return nil, false, err
				}
				if stale != nil {
					raw = stale
					if untouched {
						return raw, false, nil
					}
				}
			}
			if untouched {
				return raw, true, nil
			}
			nr, err := renderRecord(raw, source, kept)
			return nr, false, err
		}}
	out, err := f.Write(v)
	if err != nil {
		return nil, fmt.Errorf("fork %s: %w", src.Format, err)
	}
	return out, nil
}

// dropUsage removes extra.response.usage (what mini-swe-agent and LiteLLM
// record) from a message past the view's unchanged prefix, where it
// describes a context the fork no longer has. It returns nil when the
// message carries none.
func dropUsage(raw []byte) ([]byte, error) {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	extraRaw := o.Get("extra")
	if len(extraRaw) == 0 || extraRaw[0] != '{' {
		return nil, nil
	}
	extra, err := jsonx.ParseObject(extraRaw)
	if err != nil {
		return nil, err
	}
	respRaw := extra.Get("response")
	if len(respRaw) == 0 || respRaw[0] != '{' {
		return nil, nil
	}
	resp, err := jsonx.ParseObject(respRaw)
	if err != nil || !resp.Has("usage") {
		return nil, err
	}
	resp.Delete("usage")
	extra.SetRaw("response", resp.Bytes())
	o.SetRaw("extra", extra.Bytes())
	return o.Bytes(), nil
}

func newMessage(role, text string) []byte {
	if role == string(transcript.RoleTool) || role == "" {
		role = "user"
	}
	o := &jsonx.Object{}
	_ = o.Set("role", role)
	_ = o.Set("content", text)
	return o.Bytes()
}

// renderRecord rebuilds one message from its kept parts, keeping key order
// and every field it does not own; nil means nothing is left.
func renderRecord(raw []byte, source, kept []transcript.Part) ([]byte, error) {
	if len(kept) == 0 {
		return nil, nil
	}
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	_, srcBlocks := jsonx.ByBlock(source)
	order, keptBlocks := jsonx.ByBlock(kept)
	has := func(b int) bool { _, ok := keptBlocks[b]; return ok }

	// content: a string, or the kept parts of the array.
	content := obj.Get("content")
	switch {
	case len(content) > 0 && content[0] == '"':
		if has(BlockContent) {
			if err := obj.Set("content", keptBlocks[BlockContent][0].Text); err != nil {
				return nil, err
			}
		} else {
			obj.SetRaw("content", json.RawMessage("null"))
		}
	case len(content) > 0 && content[0] == '[':
		elems, err := jsonx.ParseArray(content)
		if err != nil {
			return nil, err
		}
		var out []json.RawMessage
		for _, b := range order {
			if b < 0 || b >= len(elems) || b >= BlockToolCalls {
				continue
			}
			if jsonx.Untouched(keptBlocks[b], len(srcBlocks[b])) {
				out = append(out, elems[b])
				continue
			}
			out = append(out, renderPart(elems[b], keptBlocks[b][0]))
		}
		if len(out) == 0 {
			obj.SetRaw("content", json.RawMessage("null"))
		} else {
			obj.SetRaw("content", jsonx.Array(out))
		}
	}
	for _, f := range []struct {
		block int
		key   string
	}{{BlockReasoning, "reasoning_content"}, {BlockRefusal, "refusal"}} {
		if !obj.Has(f.key) || len(srcBlocks[f.block]) == 0 {
			continue
		}
		if !has(f.block) {
			obj.Delete(f.key)
		} else if p := keptBlocks[f.block][0]; p.Changed {
			if err := obj.Set(f.key, p.Text); err != nil {
				return nil, err
			}
		}
	}
	if calls := obj.Get("tool_calls"); len(calls) > 0 && calls[0] == '[' {
		elems, err := jsonx.ParseArray(calls)
		if err != nil {
			return nil, err
		}
		var out []json.RawMessage
		for i, e := range elems {
			ps, ok := keptBlocks[BlockToolCalls+i]
			switch {
			case !ok:
			case !ps[0].Changed:
				out = append(out, e)
			default:
				nc, err := setArguments(e, ps[0].Args)
				if err != nil {
					return nil, err
				}
				out = append(out, nc)
			}
		}
		if len(out) == 0 {
			obj.Delete("tool_calls")
		} else {
			obj.SetRaw("tool_calls", jsonx.Array(out))
		}
	}
	if obj.Has("function_call") && len(srcBlocks[BlockFunctionCall]) > 0 && !has(BlockFunctionCall) {
		obj.SetRaw("function_call", json.RawMessage("null"))
	}
	return obj.Bytes(), nil
}

func renderPart(raw json.RawMessage, p transcript.Part) json.RawMessage {
	obj, err := jsonx.ParseObject(raw)
	if err == nil {
		var typ string
		_ = json.Unmarshal(obj.Get("type"), &typ)
		if typ == "text" {
			_ = obj.Set("text", p.Text)
			return obj.Bytes()
		}
	}
	// Media that changed becomes the text standing in for it.
	o := &jsonx.Object{}
	_ = o.Set("type", "text")
	_ = o.Set("text", p.Text)
	return o.Bytes()
}

// setArguments writes changed tool-call arguments as the JSON string the
// API expects.
func setArguments(call json.RawMessage, args string) (json.RawMessage, error) {
	obj, err := jsonx.ParseObject(call)
	if err != nil {
		return nil, err
	}
	fn, err := jsonx.ParseObject(obj.Get("function"))
	if err != nil {
		return nil, err
	}
	if err := fn.Set("arguments", args); err != nil {
		return nil, err
	}
	obj.SetRaw("function", fn.Bytes())
	return obj.Bytes(), nil
}
