// Package match runs regular expressions over long texts without reading
// every byte with them: Go's regexp tries a match at every position of its
// input, and the summary and the key facts put every line of a
// conversation — megabytes of tool output — through a dozen expressions.
//
// Both helpers give exactly what the expression alone gives; the
// packages using them hold that with differential tests.
package match

import (
	"regexp"
	"strings"
)

// MayHold reports whether s holds one of words (lower-case ASCII),
// ignoring case: a line without any cannot match a case-folded expression
// every match of which holds one. It is exact for Go's case folding, in
// which only two runes beyond ASCII match an ASCII letter: K (Kelvin
// sign, k) and ſ (long s, s); text holding either goes to the expression.
func MayHold(s string, words []string) bool {
	if strings.Contains(s, "\u212a") || strings.Contains(s, "\u017f") {
		return true
	}
	lower := asciiLower(s)
	for _, w := range words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// asciiLower is s with A–Z lowered and every other byte as it is.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// WordBytes are the bytes \b counts as word characters: Runs over an
// expression with \b need every one of them in their chars.
const WordBytes = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

// Runs applies an expression to the runs of a text that can hold a
// match, not to the whole text. A run is a maximal stretch of the bytes
// in chars; runs that worth rejects are skipped.
//
// It gives what the expression gives on the whole text when every match
// consists of bytes in chars only, every ASCII word byte ([0-9A-Za-z_])
// is in chars (so \b sees the same at a run's edge as at the text's), and
// the expression has no ^, $ or \A anchors and matches nothing empty.
type Runs struct {
	re    *regexp.Regexp
	in    [256]bool
	worth func(run string) bool
}

// NewRuns returns Runs of re over chars; worth nil keeps every run.
func NewRuns(re *regexp.Regexp, chars string, worth func(run string) bool) *Runs {
	r := &Runs{re: re, worth: worth}
	for i := 0; i < len(chars); i++ {
		r.in[chars[i]] = true
	}
	return r
}

// each calls f with the start and end of every run worth matching.
func (r *Runs) each(text string, f func(start, end int)) {
	for i := 0; i < len(text); {
		if !r.in[text[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && r.in[text[j]] {
			j++
		}
		if r.worth == nil || r.worth(text[i:j]) {
			f(i, j)
		}
		i = j
	}
}

// FindAll is re.FindAllString(text, -1).
func (r *Runs) FindAll(text string) []string {
	var out []string
	r.each(text, func(i, j int) { out = append(out, r.re.FindAllString(text[i:j], -1)...) })
	return out
}

// FindAllSubmatch is re.FindAllStringSubmatch(text, -1).
func (r *Runs) FindAllSubmatch(text string) [][]string {
	var out [][]string
	r.each(text, func(i, j int) { out = append(out, r.re.FindAllStringSubmatch(text[i:j], -1)...) })
	return out
}

// ReplaceAllFunc is re.ReplaceAllStringFunc(text, repl).
func (r *Runs) ReplaceAllFunc(text string, repl func(string) string) string {
	var b strings.Builder
	last := 0 // text[:last] is in b
	r.each(text, func(i, j int) {
		for _, m := range r.re.FindAllStringIndex(text[i:j], -1) {
			b.WriteString(text[last : i+m[0]])
			b.WriteString(repl(text[i+m[0] : i+m[1]]))
			last = i + m[1]
		}
	})
	if last == 0 && b.Len() == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
