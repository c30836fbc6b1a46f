package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/compactd/compactd/compaction/transcript"
)

// This file serves codecs of whole-document formats (a JSON array of
// records, bare or inside a wrapper object): it validates the document,
// locates every record's exact byte range, keeps the bytes between records
// so an unmodified parse is written back byte for byte, and lays rebuilt
// arrays out the way the source did.

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 10000

// SyntaxError says where a JSON document is malformed.
type SyntaxError struct {
	Offset       int
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("byte %d (line %d, column %d): %s", e.Offset, e.Line, e.Column, e.Msg)
}

func syntaxErr(src []byte, off int, format string, args ...any) *SyntaxError {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return &SyntaxError{Offset: off, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// Span is the byte range [Start, End) of a value in its source.
type Span struct{ Start, End int }

// MemberSpan is one top-level member of a wrapper object.
type MemberSpan struct {
	Key   string
	Value Span
}

// ArrayDocument is the layout of a JSON document holding one record array.
type ArrayDocument struct {
	// Key names the wrapper member holding the array; "" when the
	// document is the array itself.
	Key string
	// Array is the record array's range, brackets included.
	Array Span
	// Elements are the array elements' ranges, in order.
	Elements []Span
	// Members are the wrapper object's members (nil for a bare array).
	Members []MemberSpan
}

// Member returns the value range of the wrapper member key.
func (d *ArrayDocument) Member(key string) (Span, bool) {
	for _, m := range d.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return Span{}, false
}

// ScanArrayDocument validates src as exactly one JSON value and locates its
// record array: src itself when it is an array, else the value of the first
// of keys that the top-level object holds as an array. Errors are
// *SyntaxError for malformed or truncated JSON.
func ScanArrayDocument(src []byte, keys ...string) (*ArrayDocument, error) {
	s := scanner{src: src}
	i := s.skipSpace(skipBOM(src))
	if i >= len(src) {
		return nil, syntaxErr(src, i, "empty document")
	}
	doc := &ArrayDocument{}
	switch src[i] {
	case '[':
		end, err := s.array(i, 0, &doc.Elements)
		if err != nil {
			return nil, err
		}
		doc.Array = Span{i, end}
		i = end
	case '{':
		end, err := s.object(i, 0, &doc.Members)
		if err != nil {
			return nil, err
		}
		found := false
		for _, k := range keys {
			if sp, ok := doc.Member(k); ok && src[sp.Start] == '[' {
				doc.Key, doc.Array, found = k, sp, true
				// Re-walk the array alone to collect element spans.
				if _, err := s.array(sp.Start, 1, &doc.Elements); err != nil {
					return nil, err
				}
				break
			}
		}
		if !found {
			return nil, syntaxErr(src, i, "object has no %q array", keys)
		}
		i = end
	default:
		return nil, syntaxErr(src, i, "document is neither an array nor an object")
	}
	if j := s.skipSpace(i); j < len(src) {
		return nil, syntaxErr(src, j, "unexpected data after the document")
	}
	return doc, nil
}

func skipBOM(src []byte) int {
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		return 3
	}
	return 0
}

// scanner validates JSON and reports value ends; it never allocates per
// value, so scanning a large document costs one pass.
type scanner struct{ src []byte }

func (s *scanner) skipSpace(i int) int {
	for i < len(s.src) {
		switch s.src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (s *scanner) eof(i int) error {
	return syntaxErr(s.src, i, "unexpected end of document (truncated?)")
}

// value returns the end of the value starting at i.
func (s *scanner) value(i, depth int) (int, error) {
	if i >= len(s.src) {
		return 0, s.eof(i)
	}
	if depth > maxDepth {
		return 0, syntaxErr(s.src, i, "nesting deeper than %d", maxDepth)
	}
	switch c := s.src[i]; {
	case c == '{':
		return s.object(i, depth, nil)
	case c == '[':
		return s.array(i, depth, nil)
	case c == '"':
		return s.str(i)
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	default:
		return 0, syntaxErr(s.src, i, "invalid character %q looking for a value", c)
	}
}

func (s *scanner) literal(i int, lit string) (int, error) {
	n := len(lit)
	if len(s.src)-i < n {
		if bytes.HasPrefix([]byte(lit), s.src[i:]) {
			return 0, s.eof(len(s.src))
		}
		return 0, syntaxErr(s.src, i, "invalid literal")
	}
	if string(s.src[i:i+n]) != lit {
		return 0, syntaxErr(s.src, i, "invalid literal")
	}
	return i + n, nil
}

func (s *scanner) number(i int) (int, error) {
	start := i
	if s.src[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s.src) && s.src[i] >= '0' && s.src[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s.src) && s.src[i] == '0' {
		i++
	} else if digits() == 0 {
		if i >= len(s.src) {
			return 0, s.eof(i)
		}
		return 0, syntaxErr(s.src, start, "invalid number")
	}
	if i < len(s.src) && s.src[i] == '.' {
		i++
		if digits() == 0 {
			return 0, syntaxErr(s.src, start, "invalid number")
		}
	}
	if i < len(s.src) && (s.src[i] == 'e' || s.src[i] == 'E') {
		i++
		if i < len(s.src) && (s.src[i] == '+' || s.src[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, syntaxErr(s.src, start, "invalid number")
		}
	}
	return i, nil
}

// str accepts any bytes >= 0x20 inside strings, invalid UTF-8 included, as
// encoding/json does: such bytes must survive untouched.
func (s *scanner) str(i int) (int, error) {
	start := i
	i++
	for i < len(s.src) {
		c := s.src[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(s.src) {
				return 0, s.eof(len(s.src))
			}
			switch s.src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s.src) {
					return 0, s.eof(len(s.src))
				}
				for _, h := range s.src[i+2 : i+6] {
					if !isHex(h) {
						return 0, syntaxErr(s.src, i, "invalid \\u escape")
					}
				}
				i += 6
			default:
				return 0, syntaxErr(s.src, i, "invalid escape in string")
			}
		case c < 0x20:
			return 0, syntaxErr(s.src, i, "control character in string starting at byte %d", start)
		default:
			i++
		}
	}
	return 0, s.eof(i)
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// array scans the array at i; elems, when non-nil, receives element spans.
func (s *scanner) array(i, depth int, elems *[]Span) (int, error) {
	i = s.skipSpace(i + 1)
	if i >= len(s.src) {
		return 0, s.eof(i)
	}
	if s.src[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := s.value(i, depth+1)
		if err != nil {
			return 0, err
		}
		if elems != nil {
			*elems = append(*elems, Span{i, end})
		}
		i = s.skipSpace(end)
		if i >= len(s.src) {
			return 0, s.eof(i)
		}
		switch s.src[i] {
		case ',':
			i = s.skipSpace(i + 1)
		case ']':
			return i + 1, nil
		default:
			return 0, syntaxErr(s.src, i, "expected ',' or ']' after array element")
		}
	}
}

// object scans the object at i; members, when non-nil, receives its
// members (keys decoded).
func (s *scanner) object(i, depth int, members *[]MemberSpan) (int, error) {
	i = s.skipSpace(i + 1)
	if i >= len(s.src) {
		return 0, s.eof(i)
	}
	if s.src[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(s.src) {
			return 0, s.eof(i)
		}
		if s.src[i] != '"' {
			return 0, syntaxErr(s.src, i, "expected a string object key")
		}
		kend, err := s.str(i)
		if err != nil {
			return 0, err
		}
		keyStart := i
		i = s.skipSpace(kend)
		if i >= len(s.src) {
			return 0, s.eof(i)
		}
		if s.src[i] != ':' {
			return 0, syntaxErr(s.src, i, "expected ':' after object key")
		}
		i = s.skipSpace(i + 1)
		vend, err := s.value(i, depth+1)
		if err != nil {
			return 0, err
		}
		if members != nil {
			var key string
			_ = json.Unmarshal(s.src[keyStart:kend], &key)
			*members = append(*members, MemberSpan{Key: key, Value: Span{i, vend}})
		}
		i = s.skipSpace(vend)
		if i >= len(s.src) {
			return 0, s.eof(i)
		}
		switch s.src[i] {
		case ',':
			i = s.skipSpace(i + 1)
		case '}':
			return i + 1, nil
		default:
			return 0, syntaxErr(s.src, i, "expected ',' or '}' after object member")
		}
	}
}

// Gaps are the bytes around and between a document's records: Gaps[0]
// precedes the first record, Gaps[i] lies between records i-1 and i, and
// the last gap follows the last record. With the records' exact bytes they
// reproduce the document.
type Gaps [][]byte

// GapsOf cuts src around spans, which must be sorted and disjoint.
func GapsOf(src []byte, spans []Span) Gaps {
	g := make(Gaps, 0, len(spans)+1)
	prev := 0
	for _, sp := range spans {
		g = append(g, src[prev:sp.Start])
		prev = sp.End
	}
	return append(g, src[prev:])
}

// Join interleaves the gaps with records' bytes.
func (g Gaps) Join(records [][]byte) ([]byte, error) {
	if len(g) != len(records)+1 {
		return nil, fmt.Errorf("document frame has %d gaps for %d records", len(g), len(records))
	}
	n := 0
	for i := range g {
		n += len(g[i])
	}
	for _, r := range records {
		n += len(r)
	}
	out := make([]byte, 0, n)
	for i, r := range records {
		out = append(out, g[i]...)
		out = append(out, r...)
	}
	return append(out, g[len(g)-1]...), nil
}

// MarkMalformed marks record i of a document transcript malformed: it
// stays in Records (and so in Write's output) as read, is counted in
// Skipped and is reported in Problems as "<noun> at byte N: why", noun
// being what the format calls a record ("message", "item").
func MarkMalformed(t *transcript.Transcript, i int, noun, why string) {
	r := &t.Records[i]
	r.Kind, r.Err = transcript.RecordMalformed, why
	t.Problems = append(t.Problems, transcript.Problem{Record: i, Message: fmt.Sprintf("%s at byte %d: %s", noun, r.Start, why)})
	t.Skipped++
}

// JoinRecords interleaves the gaps with the records' exact bytes: the
// document as read, for a transcript straight from its parse.
func (g Gaps) JoinRecords(records []transcript.Record) ([]byte, error) {
	raws := make([][]byte, len(records))
	for i := range records {
		raws[i] = records[i].Raw
	}
	return g.Join(raws)
}

// SortSpans sorts spans by start, for documents whose records come from
// more than one place (an Anthropic system member and its messages).
func SortSpans(spans []Span) {
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
}

// Layout is how a source lays out its record array, so a rebuilt array
// looks like the original: the whitespace before the first element,
// between elements and after the last, and the indentation of elements.
type Layout struct {
	Lead, Sep, Trail string
	// Pretty is true when elements sit on their own indented lines.
	Pretty bool
	// Prefix is an element's indentation, Indent one nesting level.
	Prefix, Indent string
}

// LayoutOf reads the layout of doc's record array in src.
func LayoutOf(src []byte, doc *ArrayDocument) Layout {
	l := Layout{Indent: "  "}
	els := doc.Elements
	if len(els) == 0 {
		if bytes.IndexByte(src, '\n') >= 0 {
			l.Pretty = true
			l.Prefix = lineIndent(src, doc.Array.Start) + l.Indent
			l.Lead = "\n" + l.Prefix
			l.Sep = ",\n" + l.Prefix
			l.Trail = "\n" + lineIndent(src, doc.Array.Start)
		} else {
			l.Sep = ","
		}
		return l
	}
	l.Lead = string(src[doc.Array.Start+1 : els[0].Start])
	l.Trail = string(src[els[len(els)-1].End : doc.Array.End-1])
	if len(els) > 1 {
		l.Sep = string(src[els[0].End:els[1].Start])
	} else {
		l.Sep = "," + l.Lead
	}
	if nl := bytes.LastIndexByte([]byte(l.Lead), '\n'); nl >= 0 {
		l.Pretty = true
		l.Prefix = l.Lead[nl+1:]
		// One nesting level is the first element's inner indentation
		// beyond its own prefix.
		first := src[els[0].Start:els[0].End]
		if k := bytes.IndexByte(first, '\n'); k >= 0 {
			rest := first[k+1:]
			w := 0
			for w < len(rest) && (rest[w] == ' ' || rest[w] == '\t') {
				w++
			}
			if inner := string(rest[:w]); len(inner) > len(l.Prefix) && inner[:len(l.Prefix)] == l.Prefix {
				l.Indent = inner[len(l.Prefix):]
			}
		} else if l.Prefix != "" {
			l.Indent = l.Prefix
		}
	}
	return l
}

// lineIndent returns the whitespace that starts the line holding offset i.
func lineIndent(src []byte, i int) string {
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	j := start
	for j < i && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[start:j])
}

// Format lays out a rebuilt element in the source's style. String values
// are never touched, so escapes and signatures keep their bytes.
func (l Layout) Format(raw []byte) []byte {
	var b bytes.Buffer
	var err error
	if l.Pretty {
		err = json.Indent(&b, raw, l.Prefix, l.Indent)
	} else {
		err = json.Compact(&b, raw)
	}
	if err != nil {
		return raw
	}
	return b.Bytes()
}

// An Elem is one element of a rebuilt array: its bytes and, when it is a
// source element copied unchanged, that element's index (else -1).
type Elem struct {
	Bytes  []byte
	Source int
}

// ElementAt returns the index of the element starting at byte start, or -1.
func (d *ArrayDocument) ElementAt(start int) int {
	k := sort.Search(len(d.Elements), func(i int) bool { return d.Elements[i].Start >= start })
	if k < len(d.Elements) && d.Elements[k].Start == start {
		return k
	}
	return -1
}

// ArrayBytes renders elems as an array laid out by l, brackets included.
// Where neighbours were neighbours in the source, the source's own bytes
// between them are kept, so an unchanged array comes out byte for byte.
func (d *ArrayDocument) ArrayBytes(src []byte, l Layout, elems []Elem) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	n := len(d.Elements)
	if len(elems) > 0 {
		if elems[0].Source == 0 {
			b.Write(src[d.Array.Start+1 : d.Elements[0].Start])
		} else {
			b.WriteString(l.Lead)
		}
		for i, e := range elems {
			if i > 0 {
				if p := elems[i-1].Source; p >= 0 && e.Source == p+1 {
					b.Write(src[d.Elements[p].End:d.Elements[e.Source].Start])
				} else {
					b.WriteString(l.Sep)
				}
			}
			b.Write(e.Bytes)
		}
		if last := elems[len(elems)-1].Source; last == n-1 {
			b.Write(src[d.Elements[n-1].End : d.Array.End-1])
		} else {
			b.WriteString(l.Trail)
		}
	} else if n == 0 {
		b.Write(src[d.Array.Start+1 : d.Array.End-1])
	}
	b.WriteByte(']')
	return b.Bytes()
}

// An Edit replaces the bytes of Span with Bytes.
type Edit struct {
	Span  Span
	Bytes []byte
}

// Splice applies disjoint edits to src and returns the result; src is not
// modified.
func Splice(src []byte, edits []Edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].Span.Start < edits[j].Span.Start })
	var b bytes.Buffer
	prev := 0
	for _, e := range edits {
		b.Write(src[prev:e.Span.Start])
		b.Write(e.Bytes)
		prev = e.Span.End
	}
	b.Write(src[prev:])
	return b.Bytes()
}
