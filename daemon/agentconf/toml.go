package agentconf

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// A TOMLTable is an entry written as one table ([mcp_servers.compactd]):
// its keys in order, each a string, a list of strings or a table of
// strings (written inline).
type TOMLTable []TOMLKey

// A TOMLKey is one key of a TOMLTable; Value is a string, []string or
// map[string]string.
type TOMLKey struct {
	Key   string
	Value any
}

// render writes the table under its header.
func (t TOMLTable) render(path []string) []byte {
	var b bytes.Buffer
	b.WriteString("[" + tomlKey(path) + "]\n")
	for _, kv := range t {
		b.WriteString(tomlKey([]string{kv.Key}) + " = ")
		switch v := kv.Value.(type) {
		case string:
			b.WriteString(strconv.Quote(v))
		case []string:
			b.WriteByte('[')
			for i, s := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Quote(s))
			}
			b.WriteByte(']')
		case map[string]string:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("{ ")
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(tomlKey([]string{k}) + " = " + strconv.Quote(v[k]))
			}
			b.WriteString(" }")
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// tomlKey writes a dotted key, quoting the parts that need it.
func tomlKey(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		bare := p != ""
		for _, c := range p {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				bare = false
			}
		}
		if bare {
			out[i] = p
		} else {
			out[i] = strconv.Quote(p)
		}
	}
	return strings.Join(out, ".")
}

// tableSpan finds the table path in src: the byte range from its header
// line to the end of its last line with content (its sub-tables
// included), or ok false. A definition compactd cannot edit as a span
// (inline, or by dotted keys in another table) is an error.
func tableSpan(src []byte, path []string) (from, to int, ok bool, err error) {
	var p unstable.Parser
	p.Reset(src)
	from, to = -1, -1
	var current []string
	inside := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			keys, start := nodeKeys(e)
			current = keys
			line := bytes.LastIndexByte(src[:start], '\n') + 1
			switch {
			case hasPrefix(keys, path):
				if equal(keys, path) && from >= 0 {
					return 0, 0, false, fmt.Errorf("table [%s] is defined twice", tomlKey(path))
				}
				if from < 0 {
					if !equal(keys, path) {
						return 0, 0, false, fmt.Errorf("[%s] is defined through its sub-table [%s]; edit it by hand", tomlKey(path), tomlKey(keys))
					}
					from = line
				}
				inside = true
				to = lineEnd(src, start)
			default:
				inside = false
			}
		case unstable.KeyValue:
			keys, start := nodeKeys(e)
			full := append(append([]string(nil), current...), keys...)
			if inside {
				to = valueEnd(src, e, start)
				continue
			}
			if hasPrefix(full, path) || hasPrefix(path, full) && len(full) == len(path) {
				return 0, 0, false, fmt.Errorf("%s is defined inline (%s = …); edit it by hand or remove it first", tomlKey(path), tomlKey(full))
			}
		}
	}
	if err := p.Error(); err != nil {
		return 0, 0, false, err
	}
	if from < 0 {
		return 0, 0, false, nil
	}
	return from, to, true, nil
}

// nodeKeys returns a table's or key-value's key parts and the offset of
// its first key.
func nodeKeys(e *unstable.Node) ([]string, int) {
	var keys []string
	start := -1
	it := e.Key()
	for it.Next() {
		n := it.Node()
		if start < 0 {
			start = int(n.Raw.Offset)
		}
		keys = append(keys, string(n.Data))
	}
	return keys, start
}

// valueEnd is the end of a key-value's line (a multi-line value's last).
func valueEnd(src []byte, e *unstable.Node, start int) int {
	end := lineEnd(src, start)
	if v := e.Value(); v != nil && v.Raw.Length > 0 {
		end = max(end, lineEnd(src, int(v.Raw.Offset+v.Raw.Length)-1))
	}
	// Inline tables and arrays carry no raw range: their last child does.
	var walk func(n *unstable.Node)
	walk = func(n *unstable.Node) {
		for c := n.Child(); c != nil; c = c.Next() {
			if c.Raw.Length > 0 {
				end = max(end, lineEnd(src, int(c.Raw.Offset+c.Raw.Length)-1))
			}
			walk(c)
		}
	}
	if v := e.Value(); v != nil {
		walk(v)
	}
	return end
}

// lineEnd is the offset just past the newline ending the line of offset.
func lineEnd(src []byte, offset int) int {
	if offset >= len(src) {
		return len(src)
	}
	nl := bytes.IndexByte(src[offset:], '\n')
	if nl < 0 {
		return len(src)
	}
	return offset + nl + 1
}

func hasPrefix(keys, prefix []string) bool {
	return len(keys) >= len(prefix) && equal(keys[:len(prefix)], prefix)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// GetTOML returns the table at path decoded, if there is one.
func GetTOML(src []byte, path []string) (map[string]any, bool, error) {
	var doc map[string]any
	if err := toml.Unmarshal(src, &doc); err != nil {
		return nil, false, err
	}
	var cur any = doc
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		if cur, ok = m[k]; !ok {
			return nil, false, nil
		}
	}
	m, ok := cur.(map[string]any)
	return m, ok, nil
}

// SetTOML writes table at path: in place of the table when src has it,
// else at the end after a blank line.
func SetTOML(src []byte, path []string, table TOMLTable) ([]byte, error) {
	if _, _, err := GetTOML(src, nil); err != nil && len(bytes.TrimSpace(src)) > 0 {
		return nil, err
	}
	block := table.render(path)
	from, to, ok, err := tableSpan(src, path)
	if err != nil {
		return nil, err
	}
	if ok {
		if bytes.Equal(src[from:to], block) {
			return src, nil
		}
		return splice(src, from, to, block), nil
	}
	out := append([]byte(nil), src...)
	if len(bytes.TrimSpace(out)) > 0 {
		if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		out = append(out, '\n')
	} else {
		out = nil
	}
	return append(out, block...), nil
}

// RemoveTOML removes the table at path and the blank line SetTOML put
// before it. A file left with nothing is removed (nil).
func RemoveTOML(src []byte, path []string) ([]byte, error) {
	from, to, ok, err := tableSpan(src, path)
	if err != nil || !ok {
		return src, err
	}
	if from >= 2 && src[from-1] == '\n' && src[from-2] == '\n' {
		from--
	}
	out := splice(src, from, to, nil)
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	return out, nil
}
