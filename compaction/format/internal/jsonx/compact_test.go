package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestCompactAndStringOrCompact(t *testing.T) {
	for _, tc := range []struct{ raw, compact, stringOr string }{
		{``, ``, ``},
		{` null `, ``, ``},
		{`{"path": "a.go",  "n": [1, 2]}`, `{"path":"a.go","n":[1,2]}`, `{"path":"a.go","n":[1,2]}`},
		{`"{\"path\": \"a.go\"}"`, `"{\"path\": \"a.go\"}"`, `{"path": "a.go"}`},
		{`{not json`, `{not json`, `{not json`},
		{`"unterminated`, `"unterminated`, `"unterminated`},
	} {
		if got := Compact([]byte(tc.raw)); got != tc.compact {
			t.Errorf("Compact(%q) = %q, want %q", tc.raw, got, tc.compact)
		}
		if got := StringOrCompact([]byte(tc.raw)); got != tc.stringOr {
			t.Errorf("StringOrCompact(%q) = %q, want %q", tc.raw, got, tc.stringOr)
		}
	}
}

// TestCompactIsJSONCompact: on texts with and without spaces, inside and
// outside strings, escaped quotes and backslashes, valid or not, Compact
// gives what json.Compact gives (raw itself when it fails).
func TestCompactIsJSONCompact(t *testing.T) {
	for _, raw := range []string{
		`{"a":1}`, `{"a": 1}`, `{"a":"b c"}`, `{"a":"b\" c"}`, `{"a":"b\\" , "c":2}`, `{"a":"b\\"}`,
		`["x\\\"y", 1 ]`, `[1,2,3]`, `"a b"`, `"a\"`, `{"a":1}x`, `{"a":`, `"open`, `{"a":"\u0020"}`,
		"{\"a\":\"tab\there\"}", "{\"a\":1,\n\"b\":2}", "\u00a0{}", `{"k":"v"}}`, `tru`, `1e5`,
	} {
		want := raw
		var b bytes.Buffer
		if trimmed := bytes.TrimSpace([]byte(raw)); json.Compact(&b, trimmed) == nil {
			want = b.String()
		}
		if got := Compact([]byte(raw)); got != want {
			t.Errorf("Compact(%q) = %q, json.Compact gives %q", raw, got, want)
		}
	}
}
