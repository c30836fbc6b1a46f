package jsonx

import "testing"

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
