package formattest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
)

// A Reformat is how another tool might have rewritten a transcript without
// changing what it says: an editor's formatter, a sync tool, a script that
// loads and saves the JSON.
type Reformat struct {
	// Indent pretty-prints a JSON document with this unit ("  ", "    ",
	// "\t"); "" writes it compactly. JSON Lines stay one record a line:
	// with an Indent they get a space after each ':' and ','.
	Indent string
	// Keys reorders every object's members: KeysAsIs, KeysSorted,
	// KeysReversed or KeysShuffled (by Seed).
	Keys int
	Seed uint64
	// BOM starts the file with a UTF-8 byte order mark; CRLF ends its
	// lines with "\r\n".
	BOM, CRLF bool
}

// How Reformat.Keys orders members.
const (
	KeysAsIs = iota
	KeysSorted
	KeysReversed
	KeysShuffled
)

// Reformats lists a spread of rewrites: indented, compact, spaced, keys in
// other orders, with a BOM, with CRLF line ends, and some of them at once.
func Reformats() []Reformat {
	return []Reformat{
		{Indent: "    "},
		{Indent: "  ", CRLF: true},
		{Indent: "\t", Keys: KeysSorted},
		{},
		{Keys: KeysReversed},
		{Keys: KeysShuffled, Seed: 7},
		{BOM: true},
		{BOM: true, CRLF: true, Indent: "    ", Keys: KeysShuffled, Seed: 3},
	}
}

func (r Reformat) String() string {
	var parts []string
	switch r.Indent {
	case "":
		parts = append(parts, "compact")
	case "\t":
		parts = append(parts, "tabs")
	default:
		parts = append(parts, "indent"+string(rune('0'+len(r.Indent))))
	}
	parts = append(parts, []string{"", "sorted", "reversed", "shuffled"}[r.Keys])
	if r.BOM {
		parts = append(parts, "bom")
	}
	if r.CRLF {
		parts = append(parts, "crlf")
	}
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), "-")
}

var bom = []byte("\xef\xbb\xbf")

// Apply rewrites data, the file name holds — a JSON document or JSON
// Lines (a .jsonl name, or several lines each of JSON) — as r says. ok is
// false for anything else: text formats (Aider's Markdown log) are read
// as their agent reads them, byte order mark included, and a JSON Lines
// file with a line that is not JSON (a partial last line) is left to the
// codecs' own tests.
func (r Reformat) Apply(name string, data []byte) (out []byte, ok bool) {
	body := bytes.TrimPrefix(data, bom)
	rng := rand.New(rand.NewPCG(r.Seed, r.Seed^0x9e3779b97f4a7c15))
	lines := strings.HasSuffix(name, ".jsonl") || jsonLines(body)
	var b bytes.Buffer
	switch {
	case !lines && json.Valid(body):
		n, err := decodeNode(body)
		if err != nil {
			return nil, false
		}
		n.write(&b, r, rng, r.Indent, 0)
		b.WriteByte('\n')
	case lines:
		for _, line := range bytes.Split(body, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			n, err := decodeNode(line)
			if err != nil {
				return nil, false
			}
			n.write(&b, r, rng, "", 0)
			b.WriteByte('\n')
		}
	default:
		return nil, false
	}
	out = b.Bytes()
	if r.CRLF {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	if r.BOM {
		out = append(slices.Clone(bom), out...)
	}
	return out, true
}

// jsonLines reports whether every non-blank line of b is JSON (and there
// are two or more).
func jsonLines(b []byte) bool {
	n := 0
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			return false
		}
		n++
	}
	return n > 1
}

// node is a JSON value with its members in their order and its numbers as
// they were written.
type node struct {
	kind   byte // '{', '[', '"', '0' (number), 'l' (true, false, null)
	text   string
	keys   []string
	values []*node
}

func decodeNode(b []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one value")
	}
	return n, nil
}

func readNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &node{kind: byte(v)}
		for dec.More() {
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			c, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.values = append(n.values, c)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return n, nil
	case string:
		return &node{kind: '"', text: v}, nil
	case json.Number:
		return &node{kind: '0', text: v.String()}, nil
	case bool:
		if v {
			return &node{kind: 'l', text: "true"}, nil
		}
		return &node{kind: 'l', text: "false"}, nil
	default:
		return &node{kind: 'l', text: "null"}, nil
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}

// write writes n; indent "" on a line of its own writes it on one line
// (spaced when r.Indent is set).
func (n *node) write(b *bytes.Buffer, r Reformat, rng *rand.Rand, indent string, depth int) {
	colon, comma := ":", ","
	if r.Indent != "" && indent == "" {
		colon, comma = ": ", ", "
	} else if indent != "" {
		colon = ": "
	}
	newline := func(d int) {
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(indent, d))
		}
	}
	switch n.kind {
	case '"':
		writeString(b, n.text)
	case '0', 'l':
		b.WriteString(n.text)
	case '[':
		b.WriteByte('[')
		for i, c := range n.values {
			if i > 0 {
				b.WriteString(comma)
			}
			newline(depth + 1)
			c.write(b, r, rng, indent, depth+1)
		}
		if len(n.values) > 0 {
			newline(depth)
		}
		b.WriteByte(']')
	case '{':
		order := make([]int, len(n.keys))
		for i := range order {
			order[i] = i
		}
		switch r.Keys {
		case KeysSorted:
			slices.SortStableFunc(order, func(a, c int) int { return strings.Compare(n.keys[a], n.keys[c]) })
		case KeysReversed:
			slices.Reverse(order)
		case KeysShuffled:
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		b.WriteByte('{')
		for i, k := range order {
			if i > 0 {
				b.WriteString(comma)
			}
			newline(depth + 1)
			writeString(b, n.keys[k])
			b.WriteString(colon)
			n.values[k].write(b, r, rng, indent, depth+1)
		}
		if len(order) > 0 {
			newline(depth)
		}
		b.WriteByte('}')
	}
}

// Enlarge returns data, a JSON document, with the elements of its longest
// array (the document itself, or a member of it: a request's messages, a
// session's history) repeated until it is at least size bytes, written
// compactly: a document whose head, cut where detection stops reading,
// ends mid-element. ok is false for anything else.
func Enlarge(name string, data []byte, size int) ([]byte, bool) {
	body := bytes.TrimPrefix(data, bom)
	if strings.HasSuffix(name, ".jsonl") || !json.Valid(body) || jsonLines(body) {
		return nil, false
	}
	n, err := decodeNode(body)
	if err != nil {
		return nil, false
	}
	arr := n
	if n.kind == '{' {
		arr = nil
		for _, v := range n.values {
			if v.kind == '[' && (arr == nil || len(v.values) > len(arr.values)) {
				arr = v
			}
		}
	}
	if arr == nil || arr.kind != '[' || len(arr.values) == 0 {
		return nil, false
	}
	var b bytes.Buffer
	n.write(&b, Reformat{}, nil, "", 0)
	whole := b.Len()
	b.Reset()
	for _, v := range arr.values {
		v.write(&b, Reformat{}, nil, "", 0)
	}
	// Each copy of the elements adds about their size (and a comma each).
	per := b.Len() + len(arr.values)
	orig := arr.values
	for k := 0; k < (size-whole)/per+1; k++ {
		arr.values = append(arr.values, orig...)
	}
	b.Reset()
	n.write(&b, Reformat{}, nil, "", 0)
	return b.Bytes(), true
}

// Where Lengthen grows a document's string.
const (
	// LengthenFirst grows the longest string of the first record: a huge
	// first message (a pasted file, a system prompt, a message's info
	// holding whole files).
	LengthenFirst = iota
	// LengthenLead grows the longest string outside the records, in the
	// members around them (a session's title, a request's system prompt
	// or instructions).
	LengthenLead
)

// Lengthen returns data, a JSON document, with one string of free text
// (the longest with a space in it; where says which) repeated until the
// document is at least size bytes, written compactly: a document whose head, cut where detection stops reading,
// ends inside that string, before the records or inside the first. ok is
// false when the document has no such string.
func Lengthen(name string, data []byte, size, where int) ([]byte, bool) {
	body := bytes.TrimPrefix(data, bom)
	if strings.HasSuffix(name, ".jsonl") || !json.Valid(body) || jsonLines(body) {
		return nil, false
	}
	n, err := decodeNode(body)
	if err != nil {
		return nil, false
	}
	arr := n
	if n.kind == '{' {
		arr = nil
		for _, v := range n.values {
			if v.kind == '[' && (arr == nil || len(v.values) > len(arr.values)) {
				arr = v
			}
		}
	}
	if arr == nil || arr.kind != '[' || len(arr.values) == 0 {
		return nil, false
	}
	var target *node
	switch where {
	case LengthenFirst:
		target = longestString(arr.values[0], nil)
	case LengthenLead:
		if n == arr {
			return nil, false
		}
		for _, v := range n.values {
			if v != arr {
				if s := longestString(v, nil); s != nil && (target == nil || len(s.text) > len(target.text)) {
					target = s
				}
			}
		}
	}
	if target == nil || target.text == "" {
		return nil, false
	}
	var b bytes.Buffer
	n.write(&b, Reformat{}, nil, "", 0)
	text := target.text
	for grow := size - b.Len(); grow > 0; grow -= len(text) {
		target.text += text
	}
	b.Reset()
	n.write(&b, Reformat{}, nil, "", 0)
	return b.Bytes(), true
}

// longestString is the longest string of free text in n (best so far:
// best): text people or models wrote grows long, ids and names do not.
func longestString(n, best *node) *node {
	switch n.kind {
	case '"':
		if strings.Contains(n.text, " ") && (best == nil || len(n.text) > len(best.text)) {
			return n
		}
	case '[', '{':
		for _, v := range n.values {
			best = longestString(v, best)
		}
	}
	return best
}
