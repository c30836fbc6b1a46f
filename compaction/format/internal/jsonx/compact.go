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
	var b bytes.Buffer
	if json.Compact(&b, trimmed) != nil {
		return string(raw)
	}
	return b.String()
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
