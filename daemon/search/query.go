package search

import (
	"errors"
	"fmt"
	"strings"
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
			s := fmt.Sprintf("%q", t)
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
	if len(all) == 0 {
		return nil, ErrEmptyQuery
	}
	p.expr = strings.Join(all, " AND ")
	return p, nil
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

// A match is where a piece's passages satisfy a query.
type match struct {
	passage passage
	// start, end is the range the snippet centres on.
	start, end int
	// typed: the words occur as typed, in order (or a quoted phrase does).
	typed bool
}

// check reports whether ps satisfy q — every quoted phrase occurs as
// written in one passage, every word in one of them — and where to cut
// the snippet: a place the whole query occurs as typed (typed), else the
// first quoted phrase, else the first word.
func (q *parsedQuery) check(ps []passage) (match, bool) {
	tokenized := make([][]term, len(ps))
	at := func(i int) []term {
		if tokenized[i] == nil {
			tokenized[i] = terms(ps[i].Text)
		}
		return tokenized[i]
	}
	var first *match
	for _, ph := range q.phrases {
		found := false
		for i := range ps {
			if s, e := ph.find(at(i)); s >= 0 {
				found = true
				if first == nil {
					first = &match{passage: ps[i], start: s, end: e}
				}
				break
			}
		}
		if !found {
			return match{}, false
		}
	}
	for _, w := range q.words {
		found := false
		for i := range ps {
			if s, e := w.find(at(i)); s >= 0 {
				found = true
				if first == nil {
					first = &match{passage: ps[i], start: s, end: e}
				}
				break
			}
		}
		if !found {
			return match{}, false
		}
	}
	// Exact: the whole query, its words and phrases in order.
	for i := range ps {
		if s, e := q.typed.find(at(i)); s >= 0 {
			return match{passage: ps[i], start: s, end: e, typed: true}, true
		}
	}
	first.typed = false
	return *first, true
}
