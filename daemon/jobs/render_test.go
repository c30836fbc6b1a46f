package jobs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// clipByFields is what clip means, written plainly: collapse, then cut.
func clipByFields(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func TestClipCollapsesAndCuts(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"", 5, ""},
		{"   ", 5, ""},
		{"abc def", 7, "abc def"},
		{"abc def", 4, "abc …"},
		{"abc def", 3, "abc…"},
		{"  abc \n\t def  ", 80, "abc def"},
		{"héllo wörld", 7, "héllo w…"},
		{"ab\xffcd", 80, "ab\uFFFDcd"},
		{"日本語のテキスト", 3, "日本語…"},
	}
	for _, c := range cases {
		if got := clip(c.in, c.n); got != c.want {
			t.Errorf("clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func FuzzClip(f *testing.F) {
	for _, s := range []string{"", "a b", "  x\n\ny  ", "héllo\u00a0wörld", "ab\xffcd", strings.Repeat("word ", 40)} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 200 {
			return
		}
		got := clip(s, n)
		if !utf8.ValidString(got) {
			t.Fatalf("clip(%q, %d) = %q: not UTF-8", s, n, got)
		}
		if utf8.ValidString(s) {
			if want := clipByFields(s, n); got != want {
				t.Fatalf("clip(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	})
}
