package search

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"
)

// A parsed query: the quoted phrases that must occur as written, the
// words (each a phrase of its terms: "schema.go" is schema then go) that
// must all occur in one piece, and the whole query in order (typed),
// which ranks a piece saying it as typed first.
type parsedQuery struct {
	phrases []phrase
	words   []phrase
	typed   phrase
	// expr is the FTS5 query: every term, ANDed.
	expr string
	// ascii are its terms written in ASCII alone, what a source's bytes
	// are looked at for before they are parsed.
	ascii [][]byte
}

// ErrEmptyQuery is a query with no term to look for.
var ErrEmptyQuery = errors.New("the query has no word to look for (letters or digits)")

// parseQuery reads a query: words, "quoted phrases", and a word ending in
// * matches every term it begins.
func parseQuery(q string) (*parsedQuery, error) {
	p := &parsedQuery{}
	rest := q
	for {
		rest = strings.TrimSpace(rest)
		if rest == "" {
			break
		}
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			text := rest[1:]
			if end >= 0 {
				text, rest = rest[1:1+end], rest[2+end:]
			} else {
				rest = ""
			}
			if ph := toPhrase(text); len(ph.Terms) > 0 {
				p.phrases = append(p.phrases, ph)
				p.typed.Terms = append(p.typed.Terms, ph.Terms...)
				p.typed.Prefix = ph.Prefix
			}
			continue
		}
		word := rest
		if i := strings.IndexAny(rest, " \t\r\n\""); i >= 0 {
			word, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		if ph := toPhrase(word); len(ph.Terms) > 0 {
			p.words = append(p.words, ph)
			p.typed.Terms = append(p.typed.Terms, ph.Terms...)
			p.typed.Prefix = ph.Prefix
		}
	}
	var all []string
	seen := map[string]bool{}
	add := func(ph phrase) {
		for i, t := range ph.Terms {
			s := ftsString(t)
			if i == len(ph.Terms)-1 && ph.Prefix {
				s += "*"
			}
			if !seen[s] {
				seen[s] = true
				all = append(all, s)
			}
		}
	}
	for _, ph := range p.phrases {
		add(ph)
	}
	for _, ph := range p.words {
		add(ph)
	}
	// The keys of each phrase's pairs of words (a prefix ends none).
	for _, ph := range append(slices.Clone(p.phrases), p.words...) {
		n := len(ph.Terms)
		if ph.Prefix {
			n--
		}
		for i := 0; i+1 < n; i++ {
			if k := ftsString(pairKey(ph.Terms[i], ph.Terms[i+1])); !seen[k] {
				seen[k] = true
				all = append(all, k)
			}
		}
	}
	for _, ph := range append(slices.Clone(p.phrases), p.words...) {
		for _, t := range ph.Terms {
			if isASCII(t) {
				p.ascii = append(p.ascii, []byte(t))
			}
		}
	}
	if len(all) == 0 {
		return nil, ErrEmptyQuery
	}
	p.expr = strings.Join(all, " AND ")
	return p, nil
}

// ftsString is s as an FTS5 string (in double quotes, each doubled).
func ftsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// toPhrase is text's terms; a trailing * makes the last a prefix.
func toPhrase(text string) phrase {
	ts := terms(text)
	ph := phrase{Terms: make([]string, len(ts))}
	for i, t := range ts {
		ph.Terms[i] = t.Text
	}
	if len(ts) > 0 && strings.HasPrefix(text[ts[len(ts)-1].End:], "*") {
		ph.Prefix = true
	}
	return ph
}

// A match is where a passage satisfies a query.
type match struct {
	passage passage
	// start, end is the range the snippet centres on.
	start, end int
	// typed: the whole query occurs as typed, in order.
	typed bool
}

// check finds the passage of ps that satisfies q — every quoted phrase
// occurs in it as written and every word — the first that says the whole
// query as typed, else the first that satisfies it; and where to cut the
// snippet: the typed query, else its first phrase, else its first word.
func (q *parsedQuery) check(ps []passage) (match, bool) {
	var plain *match
	for i := range ps {
		ts := terms(ps[i].Text)
		if s, e := q.typed.find(ts); s >= 0 && q.holds(ts) {
			return match{passage: ps[i], start: s, end: e, typed: true}, true
		}
		if plain != nil || !q.holds(ts) {
			continue
		}
		m := match{passage: ps[i], start: -1}
		for _, ph := range append(slices.Clone(q.phrases), q.words...) {
			if s, e := ph.find(ts); s >= 0 {
				m.start, m.end = s, e
				break
			}
		}
		plain = &m
	}
	if plain == nil {
		return match{}, false
	}
	return *plain, true
}

// holds reports whether ts hold every phrase and word of q.
func (q *parsedQuery) holds(ts []term) bool {
	for _, ph := range q.phrases {
		if s, _ := ph.find(ts); s < 0 {
			return false
		}
	}
	for _, w := range q.words {
		if s, _ := w.find(ts); s < 0 {
			return false
		}
	}
	return true
}

// mayHold reports whether low, a source's bytes with ASCII letters
// lower-cased, may hold the query: it holds every ASCII term of it (a
// term with other letters may be escaped in a JSON string, and is left
// to the parse), and the terms of each phrase (a quoted one, a word such
// as a path) close after one another (phraseGap).
func (q *parsedQuery) mayHold(low []byte) bool {
	for _, t := range q.ascii {
		if !bytes.Contains(low, t) {
			return false
		}
	}
	for _, ph := range q.phrases {
		if !ph.mayHold(low) {
			return false
		}
	}
	for _, w := range q.words {
		if !w.mayHold(low) {
			return false
		}
	}
	return true
}

// phraseGap is how far apart two words next to each other in a text may
// be in its bytes, whatever lies between: what separates them (spaces,
// punctuation) and how JSON escapes it, twice for a string of JSON held
// in a string ("\\n", "\\\"", "\u00a0"), or a backslash a path or a
// regular expression holds ("C:\new").
const phraseGap = 24

// mayHold reports whether low holds the phrase's terms in order, each
// after the one before with nothing but separators between (any number:
// a table's padding, a box's rule, JSON escapes) or within phraseGap
// bytes of it (true for a phrase with a term in other letters than
// ASCII, left to the parse).
func (p phrase) mayHold(low []byte) bool {
	if len(p.Terms) < 2 {
		return true
	}
	for _, t := range p.Terms {
		if !isASCII(t) {
			return true
		}
	}
	first := []byte(p.Terms[0])
	for off := 0; ; {
		i := bytes.Index(low[off:], first)
		if i < 0 {
			return false
		}
		if termsFollow(low, off+i+len(first), p.Terms[1:]) {
			return true
		}
		off += i + 1
	}
}

// termsFollow reports whether ts follow one another in low from pos on,
// each after separators only or within phraseGap bytes.
func termsFollow(low []byte, pos int, ts []string) bool {
	if len(ts) == 0 {
		return true
	}
	t := []byte(ts[0])
	if next := skipSeparators(low, pos); bytes.HasPrefix(low[next:], t) && termsFollow(low, next+len(t), ts[1:]) {
		return true
	}
	end := min(pos+phraseGap+len(t), len(low))
	for from := pos; from < end; {
		j := bytes.Index(low[from:end], t)
		if j < 0 {
			return false
		}
		if termsFollow(low, from+j+len(t), ts[1:]) {
			return true
		}
		from += j + 1
	}
	return false
}

// skipSeparators returns where the next term may start in low from pos:
// past spaces, punctuation, symbols (box drawing, arrows) and JSON
// escapes (backslashes and the letter after them: "\n", "\\u00a0").
func skipSeparators(low []byte, pos int) int {
	for pos < len(low) {
		c := low[pos]
		switch {
		case c == '\\':
			for pos < len(low) && low[pos] == '\\' {
				pos++
			}
			if pos < len(low) {
				switch low[pos] {
				case 'n', 't', 'r', 'b', 'f':
					pos++
				case 'u':
					if pos+5 <= len(low) && isHex(low[pos+1:pos+5]) {
						pos += 5
					}
				}
			}
		case c < utf8.RuneSelf:
			if isTermRune(rune(c)) {
				return pos
			}
			pos++
		default:
			r, n := utf8.DecodeRune(low[pos:])
			if isTermRune(r) {
				return pos
			}
			pos += n
		}
	}
	return pos
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
