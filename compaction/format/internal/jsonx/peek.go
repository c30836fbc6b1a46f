package jsonx

import (
	"encoding/json"
	"strconv"
)

// Peeked is what Peek could decode of a document's head.
type Peeked struct {
	// Value is the decoded prefix: map[string]any, []any, string,
	// float64, bool or nil. Truncated containers hold the members that
	// were started; a truncated string holds the bytes seen.
	Value any
	// Complete is true when the whole first value was present.
	Complete bool
	// Trailing is true when more non-space data follows the first value
	// (JSON Lines, not one document).
	Trailing bool
	// Bad is true when the head is not JSON at all.
	Bad bool
}

// Peek decodes as much of head, the first bytes of a possibly larger JSON
// document, as it holds. Detection uses it: a head cut mid-record still
// shows the record's keys and the types of its blocks.
func Peek(head []byte) Peeked {
	p := peeker{src: head}
	i := p.space(skipBOM(head))
	if i >= len(head) {
		return Peeked{Bad: true}
	}
	v, end, ok := p.value(i, 0)
	if p.bad {
		return Peeked{Value: v, Bad: true}
	}
	out := Peeked{Value: v, Complete: ok}
	if ok && p.space(end) < len(head) {
		out.Trailing = true
	}
	return out
}

type peeker struct {
	src []byte
	bad bool
}

func (p *peeker) space(i int) int {
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\n' || p.src[i] == '\r') {
		i++
	}
	return i
}

// value decodes the value at i; ok is false when head ended inside it.
func (p *peeker) value(i, depth int) (v any, end int, ok bool) {
	if i >= len(p.src) {
		return nil, i, false
	}
	if depth > maxDepth {
		p.bad = true
		return nil, i, false
	}
	switch c := p.src[i]; {
	case c == '{':
		m := map[string]any{}
		i = p.space(i + 1)
		for {
			if i >= len(p.src) {
				return m, i, false
			}
			if p.src[i] == '}' {
				return m, i + 1, true
			}
			if p.src[i] == ',' {
				i = p.space(i + 1)
				continue
			}
			k, kend, kok := p.value(i, depth+1)
			key, isStr := k.(string)
			if !kok || !isStr {
				if !isStr && kok {
					p.bad = true
				}
				return m, kend, false
			}
			i = p.space(kend)
			if i >= len(p.src) {
				return m, i, false
			}
			if p.src[i] != ':' {
				p.bad = true
				return m, i, false
			}
			val, vend, vok := p.value(p.space(i+1), depth+1)
			m[key] = val
			if !vok {
				return m, vend, false
			}
			i = p.space(vend)
		}
	case c == '[':
		a := []any{}
		i = p.space(i + 1)
		for {
			if i >= len(p.src) {
				return a, i, false
			}
			if p.src[i] == ']' {
				return a, i + 1, true
			}
			if p.src[i] == ',' {
				i = p.space(i + 1)
				continue
			}
			val, vend, vok := p.value(i, depth+1)
			a = append(a, val)
			if !vok {
				return a, vend, false
			}
			i = p.space(vend)
		}
	case c == '"':
		s := scanner{src: p.src}
		end, err := s.str(i)
		if err != nil {
			if !p.strBroken(i) {
				return string(p.src[i+1:]), len(p.src), false
			}
			p.bad = true
			return nil, i, false
		}
		var str string
		if json.Unmarshal(p.src[i:end], &str) != nil {
			str = string(p.src[i+1 : end-1])
		}
		return str, end, true
	default:
		j := i
		for j < len(p.src) && !isDelim(p.src[j]) {
			j++
		}
		tok := string(p.src[i:j])
		if j >= len(p.src) {
			return nil, j, false
		}
		switch tok {
		case "true":
			return true, j, true
		case "false":
			return false, j, true
		case "null":
			return nil, j, true
		}
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			p.bad = true
			return nil, i, false
		}
		return f, j, true
	}
}

// strBroken reports whether the string at i is malformed rather than cut
// short by the end of head.
func (p *peeker) strBroken(i int) bool {
	for j := i + 1; j < len(p.src); j++ {
		if p.src[j] < 0x20 {
			return true
		}
		if p.src[j] == '\\' {
			j++
		}
	}
	return false
}

func isDelim(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\n', '\r', ':':
		return true
	}
	return false
}

// RecordsOf returns the record array a peeked document holds: the value
// itself when it is an array, else the first of keys whose value is an
// array. wrapper is the top-level object, if any.
func RecordsOf(v any, keys ...string) (records []any, wrapper map[string]any) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case map[string]any:
		for _, k := range keys {
			if a, ok := x[k].([]any); ok {
				return a, x
			}
		}
		return nil, x
	}
	return nil, nil
}

// Records is RecordsOf for a peeked head, leaving out the last record when
// the head ends inside it and others precede it: a cut record misses keys
// it really has.
func (p Peeked) Records(keys ...string) (records []any, wrapper map[string]any) {
	records, wrapper = RecordsOf(p.Value, keys...)
	if !p.Complete && len(records) > 1 {
		records = records[:len(records)-1]
	}
	return records, wrapper
}
