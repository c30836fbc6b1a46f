package agentconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// arrayAt finds the array at path (its last key names it); nil when a key
// is missing.
func arrayAt(root *hujson.Value, path []string) (*hujson.Value, error) {
	at := root
	for k, key := range path {
		obj, ok := at.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%q %w", strings.Join(path[:k], "."), ErrNotObject)
		}
		i := memberIndex(obj, key)
		if i < 0 {
			return nil, nil
		}
		at = &obj.Members[i].Value
	}
	if _, ok := at.Value.(*hujson.Array); !ok {
		return nil, fmt.Errorf("%q is not an array", strings.Join(path, "."))
	}
	return at, nil
}

// elementJSON is an element as standard JSON.
func elementJSON(v hujson.Value) json.RawMessage {
	b, err := hujson.Standardize(v.Clone().Pack())
	if err != nil {
		return nil
	}
	return json.RawMessage(bytes.TrimSpace(b))
}

// SetJSONElement puts value in the array at path (created as needed): in
// place of the first element ours reports as compactd's, else last.
func SetJSONElement(src []byte, path []string, ours func(json.RawMessage) bool, value any) ([]byte, error) {
	want, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return SetJSON(src, path[:len(path)-1], path[len(path)-1], []any{value})
	}
	root, err := hujson.Parse(src)
	if err != nil {
		return nil, err
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("the file %w", ErrNotObject)
	}
	at, err := arrayAt(&root, path)
	if err != nil {
		return nil, err
	}
	if at == nil {
		return SetJSON(src, path[:len(path)-1], path[len(path)-1], []any{value})
	}
	arr := at.Value.(*hujson.Array)
	unit := indentUnit(src)
	for _, el := range arr.Elements {
		if raw := elementJSON(el); raw != nil && ours(raw) {
			if jsonEqual(raw, want) {
				return src, nil
			}
			rendered, err := json.MarshalIndent(value, lineIndent(src, el.StartOffset), unit)
			if err != nil {
				return nil, err
			}
			return splice(src, el.StartOffset, el.EndOffset, rendered), nil
		}
	}
	if n := len(arr.Elements); n > 0 {
		last := arr.Elements[n-1]
		indent := lineIndent(src, last.StartOffset)
		if lineOf(src, last.StartOffset) == lineOf(src, at.StartOffset) {
			ins := append([]byte(", "), want...)
			return splice(src, last.EndOffset, last.EndOffset, ins), nil
		}
		v, err := json.MarshalIndent(value, indent, unit)
		if err != nil {
			return nil, err
		}
		sep, pos, trailing := []byte(","), last.EndOffset, false
		if c := nextSignificant(src, pos); c >= 0 && src[c] == ',' {
			sep, pos, trailing = nil, c+1, true
		}
		ins := append(append(append(sep, '\n'), indent...), v...)
		if trailing {
			ins = append(ins, ',')
		}
		return splice(src, pos, pos, ins), nil
	}
	outer := lineIndent(src, at.StartOffset)
	inner := outer + unit
	v, err := json.MarshalIndent(value, inner, unit)
	if err != nil {
		return nil, err
	}
	open, closeAt := at.StartOffset+1, at.EndOffset-1
	ins := append([]byte("\n"+inner), v...)
	if held := bytes.TrimSpace(src[open:closeAt]); len(held) > 0 {
		ins = append(append(ins, "\n"+inner...), held...)
	}
	ins = append(ins, "\n"+outer...)
	return splice(src, open, closeAt, ins), nil
}

// RemoveJSONElements removes the elements of the array at path that ours
// reports as compactd's. An array left empty goes, as RemoveJSON takes an
// entry (and the objects it leaves empty) out.
func RemoveJSONElements(src []byte, path []string, ours func(json.RawMessage) bool) ([]byte, error) {
	for {
		if len(bytes.TrimSpace(src)) == 0 {
			return src, nil
		}
		root, err := hujson.Parse(src)
		if err != nil {
			return nil, err
		}
		if _, ok := root.Value.(*hujson.Object); !ok {
			return nil, fmt.Errorf("the file %w", ErrNotObject)
		}
		at, err := arrayAt(&root, path)
		if err != nil || at == nil {
			return src, err
		}
		arr := at.Value.(*hujson.Array)
		i := -1
		for k, el := range arr.Elements {
			if raw := elementJSON(el); raw != nil && ours(raw) {
				i = k
				break
			}
		}
		if i < 0 {
			return src, nil
		}
		el := arr.Elements[i]
		switch {
		case len(arr.Elements) == 1:
			return RemoveJSON(src, path[:len(path)-1], path[len(path)-1])
		case i > 0:
			src = splice(src, arr.Elements[i-1].EndOffset, el.EndOffset, nil)
		default:
			src = splice(src, el.StartOffset, arr.Elements[1].StartOffset, nil)
		}
	}
}
