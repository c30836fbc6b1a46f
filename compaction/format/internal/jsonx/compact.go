package jsonx

import (
	"bytes"
	"encoding/json"
)

// Compact returns raw without insignificant whitespace, as a model
// receives tool arguments and results: "" when raw is absent or null, and
// raw as is when it is not JSON.
func Compact(raw json.RawMessage) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return ""
	}
	if len(trimmed) == len(raw) && !spaceOutsideStrings(raw) {
		// What json.Compact gives such a text: the text itself when it is
		// JSON, raw when it is not. Agents write their tool arguments
		// compact, and validating them again was 7 % of a gauge's CPU.
		return string(raw)
	}
	var b bytes.Buffer
	if json.Compact(&b, trimmed) != nil {
		return string(raw)
	}
	return b.String()
}

// spaceOutsideStrings reports whether b holds a JSON space character
// (space, tab, line feed, carriage return) outside its strings.
func spaceOutsideStrings(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			return true
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return false
}

// StringOrCompact returns a JSON string's content, or any other value
// compacted: tool arguments arrive either as the JSON text the model wrote
// (a string) or as the value itself.
func StringOrCompact(raw json.RawMessage) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '"' {
		var s string
		if json.Unmarshal(trimmed, &s) == nil {
			return s
		}
	}
	return Compact(raw)
}
