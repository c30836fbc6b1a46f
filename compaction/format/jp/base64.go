package jp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
)

// decodeString applies jp's read rule to one on-disk string: decode it
// when it is valid base64 whose bytes are valid UTF-8, else keep it. Short
// plain words that happen to be base64 ("abcd") decode too: that is jp's
// ambiguity, reproduced, and why writers must encode every string.
func decodeString(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || !utf8.Valid(b) {
		return s
	}
	return string(b)
}

// encodeString is the on-disk form of a string jp stores base64-encoded.
func encodeString(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// mapStrings rewrites every string value (not keys) of a JSON value with f,
// keeping member order; the result is compact.
func mapStrings(raw json.RawMessage, f func(string) string) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return raw
	}
	switch t[0] {
	case '"':
		var s string
		if json.Unmarshal(t, &s) != nil {
			return raw
		}
		b, _ := jsonx.Marshal(f(s))
		return b
	case '{':
		o, err := jsonx.ParseObject(t)
		if err != nil {
			return raw
		}
		for i := range o.Members {
			o.Members[i].Value = mapStrings(o.Members[i].Value, f)
		}
		return o.Bytes()
	case '[':
		els, err := jsonx.ParseArray(t)
		if err != nil {
			return raw
		}
		for i := range els {
			els[i] = mapStrings(els[i], f)
		}
		return jsonx.Array(els)
	}
	var b bytes.Buffer
	if json.Compact(&b, t) != nil {
		return raw
	}
	return b.Bytes()
}
