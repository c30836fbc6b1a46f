// Package agentconf edits one entry of an agent's own configuration file —
// compactd's MCP server in Claude Code's .claude.json, Codex's config.toml,
// Gemini CLI's settings.json… — and nothing else: the bytes outside the
// entry's span stay as they were, comments and formatting included, so an
// install followed by an uninstall gives the file back byte for byte.
//
// JSON files may carry comments and trailing commas (Gemini CLI and
// opencode read JSONC): github.com/tailscale/hujson parses them with the
// offsets the edits splice at. TOML files are read with go-toml's parser
// for the offsets of table headers; the entry is one table.
//
// It must not import lsp/ or cmd/; it writes nothing itself.
package agentconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// An Edit is a change to one file: Before and After are its bytes (Before
// nil when the file does not exist, After nil when it is to be removed).
type Edit struct {
	Before, After []byte
}

// Changed reports whether the edit changes anything.
func (e Edit) Changed() bool {
	return (e.Before == nil) != (e.After == nil) || !bytes.Equal(e.Before, e.After)
}

// ErrNotObject is returned when a key on the path holds something other
// than an object (the file is left alone).
var ErrNotObject = errors.New("is not an object")

// GetJSON returns the entry name of the object at path in src, if any.
func GetJSON(src []byte, path []string, name string) (json.RawMessage, bool, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, false, nil
	}
	root, err := hujson.Parse(src)
	if err != nil {
		return nil, false, err
	}
	obj, err := objectAt(&root, path)
	if err != nil || obj == nil {
		return nil, false, err
	}
	i := memberIndex(obj, name)
	if i < 0 {
		return nil, false, nil
	}
	v := obj.Members[i].Value.Clone()
	b, err := hujson.Standardize(v.Pack())
	if err != nil {
		return nil, false, err
	}
	return json.RawMessage(bytes.TrimSpace(b)), true, nil
}

// SetJSON sets the entry name of the object at path (created as needed)
// to value. An entry that already holds value (as JSON, whatever its
// formatting) is left as it is.
func SetJSON(src []byte, path []string, name string, value any) ([]byte, error) {
	want, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(src)) == 0 {
		doc := nest(append(append([]string(nil), path...), name), value)
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	}
	root, err := hujson.Parse(src)
	if err != nil {
		return nil, err
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("the file %w", ErrNotObject)
	}
	unit := indentUnit(src)
	at := &root
	depth := 0
	for k, key := range path {
		obj := at.Value.(*hujson.Object)
		i := memberIndex(obj, key)
		if i < 0 {
			// The rest of the path is missing: one member holds it all.
			rest := nest(append(append([]string(nil), path[k+1:]...), name), value)
			return insertMember(src, at, key, rest, unit, depth)
		}
		v := &obj.Members[i].Value
		if _, ok := v.Value.(*hujson.Object); !ok {
			return nil, fmt.Errorf("%q %w", strings.Join(path[:k+1], "."), ErrNotObject)
		}
		at = v
		depth++
	}
	obj := at.Value.(*hujson.Object)
	i := memberIndex(obj, name)
	if i < 0 {
		return insertMember(src, at, name, value, unit, depth)
	}
	v := obj.Members[i].Value
	have, err := hujson.Standardize(v.Clone().Pack())
	if err == nil && jsonEqual(have, want) {
		return src, nil
	}
	indent := lineIndent(src, obj.Members[i].Name.StartOffset)
	rendered, err := json.MarshalIndent(value, indent, unit)
	if err != nil {
		return nil, err
	}
	return splice(src, v.StartOffset, v.EndOffset, rendered), nil
}

// RemoveJSON removes the entry name of the object at path. An object on
// the path left empty goes too, and a file left holding an empty object
// is removed (After nil): what SetJSON created, an uninstall takes back.
func RemoveJSON(src []byte, path []string, name string) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, nil
	}
	root, err := hujson.Parse(src)
	if err != nil {
		return nil, err
	}
	keys := append(append([]string(nil), path...), name)
	// Find the outermost object that would be left empty.
	type level struct {
		at  *hujson.Value
		obj *hujson.Object
		i   int
	}
	var levels []level
	at := &root
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("the file %w", ErrNotObject)
	}
	for k, key := range keys {
		obj := at.Value.(*hujson.Object)
		i := memberIndex(obj, key)
		if i < 0 {
			return src, nil // nothing to remove
		}
		levels = append(levels, level{at, obj, i})
		if k == len(keys)-1 {
			break
		}
		v := &obj.Members[i].Value
		if _, ok := v.Value.(*hujson.Object); !ok {
			return nil, fmt.Errorf("%q %w", strings.Join(keys[:k+1], "."), ErrNotObject)
		}
		at = v
	}
	// Remove at the shallowest level whose object holds nothing else.
	top := len(levels) - 1
	for top > 0 && len(levels[top].obj.Members) == 1 {
		top--
	}
	l := levels[top]
	out := removeMember(src, l.at, l.i)
	if top == 0 && len(l.obj.Members) == 1 {
		if v, err := hujson.Parse(out); err == nil {
			if o, ok := v.Value.(*hujson.Object); ok && len(o.Members) == 0 && len(bytes.TrimSpace(o.AfterExtra)) == 0 &&
				len(bytes.TrimSpace(v.BeforeExtra)) == 0 && len(bytes.TrimSpace(v.AfterExtra)) == 0 {
				return nil, nil // the file held nothing but the entry
			}
		}
	}
	return out, nil
}

// objectAt follows path from root; nil when a key is missing.
func objectAt(root *hujson.Value, path []string) (*hujson.Object, error) {
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("the file %w", ErrNotObject)
	}
	for k, key := range path {
		i := memberIndex(obj, key)
		if i < 0 {
			return nil, nil
		}
		next, ok := obj.Members[i].Value.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%q %w", strings.Join(path[:k+1], "."), ErrNotObject)
		}
		obj = next
	}
	return obj, nil
}

// memberIndex is the index of the member called name, -1 if none (the
// last one when a file names it twice: JSON parsers keep the last).
func memberIndex(obj *hujson.Object, name string) int {
	found := -1
	for i, m := range obj.Members {
		var s string
		if lit, ok := m.Name.Value.(hujson.Literal); ok && json.Unmarshal(lit, &s) == nil && s == name {
			found = i
		}
	}
	return found
}

// insertMember adds "key": value as the last member of the object at,
// which sits depth objects deep.
func insertMember(src []byte, at *hujson.Value, key string, value any, unit string, depth int) ([]byte, error) {
	obj := at.Value.(*hujson.Object)
	k, _ := json.Marshal(key)
	if n := len(obj.Members); n > 0 {
		last := obj.Members[n-1]
		if lineOf(src, last.Name.StartOffset) == lineOf(src, at.StartOffset) {
			// A one-line object stays on one line.
			ins := append([]byte(", "), k...)
			ins = append(append(ins, ": "...), mustMarshal(value)...)
			return splice(src, last.Value.EndOffset, last.Value.EndOffset, ins), nil
		}
		indent := lineIndent(src, last.Name.StartOffset)
		v, err := json.MarshalIndent(value, indent, unit)
		if err != nil {
			return nil, err
		}
		sep, trailing := []byte(","), false
		pos := last.Value.EndOffset
		if c := nextSignificant(src, pos); c >= 0 && src[c] == ',' {
			// A trailing comma (JSONC): the new member goes after it and
			// takes one too, as the file writes them.
			sep, pos, trailing = nil, c+1, true
		}
		ins := append(sep, '\n')
		ins = append(ins, indent...)
		ins = append(append(append(ins, k...), ": "...), v...)
		if trailing {
			ins = append(ins, ',')
		}
		return splice(src, pos, pos, ins), nil
	}
	// An empty object opens over lines, indented one unit more than the
	// line it starts on; what it held (comments) follows the member.
	outer := lineIndent(src, at.StartOffset)
	if depth > 0 && outer == "" && lineOf(src, at.StartOffset) == 0 {
		outer = strings.Repeat(unit, depth)
	}
	inner := outer + unit
	v, err := json.MarshalIndent(value, inner, unit)
	if err != nil {
		return nil, err
	}
	open, closeAt := at.StartOffset+1, at.EndOffset-1
	ins := append([]byte("\n"+inner), k...)
	ins = append(append(ins, ": "...), v...)
	if held := bytes.TrimSpace(src[open:closeAt]); len(held) > 0 {
		ins = append(append(ins, "\n"+inner...), held...)
	}
	ins = append(ins, "\n"+outer...)
	return splice(src, open, closeAt, ins), nil
}

// removeMember cuts member i out of the object at, with the separator
// and the line it stood on.
func removeMember(src []byte, at *hujson.Value, i int) []byte {
	obj := at.Value.(*hujson.Object)
	m := obj.Members[i]
	switch {
	case i > 0:
		// From the end of the previous value: the comma before the member
		// goes with it, the one after (if any) now follows the previous.
		return splice(src, obj.Members[i-1].Value.EndOffset, m.Value.EndOffset, nil)
	case len(obj.Members) > 1:
		return splice(src, m.Name.StartOffset, obj.Members[1].Name.StartOffset, nil)
	default:
		// The only member: the object closes where it opened, as it was
		// before an insert into an empty object.
		return splice(src, at.StartOffset+1, at.EndOffset-1, nil)
	}
}

func splice(src []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(with))
	out = append(out, src[:from]...)
	out = append(out, with...)
	return append(out, src[to:]...)
}

// nextSignificant is the offset of the first byte at or after at that is
// not whitespace or a comment, -1 at the end.
func nextSignificant(src []byte, at int) int {
	for at < len(src) {
		switch {
		case src[at] == ' ' || src[at] == '\t' || src[at] == '\n' || src[at] == '\r':
			at++
		case bytes.HasPrefix(src[at:], []byte("//")):
			nl := bytes.IndexByte(src[at:], '\n')
			if nl < 0 {
				return -1
			}
			at += nl + 1
		case bytes.HasPrefix(src[at:], []byte("/*")):
			end := bytes.Index(src[at+2:], []byte("*/"))
			if end < 0 {
				return -1
			}
			at += end + 4
		default:
			return at
		}
	}
	return -1
}

// lineIndent is the whitespace that starts the line holding offset.
func lineIndent(src []byte, offset int) string {
	start := bytes.LastIndexByte(src[:offset], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

func lineOf(src []byte, offset int) int { return bytes.Count(src[:offset], []byte("\n")) }

// indentUnit is the file's indentation step: the first indented line's
// leading whitespace, else two spaces.
func indentUnit(src []byte) string {
	for _, line := range bytes.Split(src, []byte("\n")) {
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n > 0 && n < len(line) {
			return string(line[:n])
		}
	}
	return "  "
}

// nest wraps value in objects named by keys, outermost first.
func nest(keys []string, value any) any {
	for i := len(keys) - 1; i >= 0; i-- {
		value = orderedObject{{keys[i], value}}
	}
	return value
}

// orderedObject marshals as a JSON object with its members in order.
type orderedObject []struct {
	key   string
	value any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
