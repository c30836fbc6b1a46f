package search

import (
	"encoding/json"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/transcript"
)

// A passage is one part's searchable text, with the message it is in.
type passage struct {
	// Message is the message's index in the parse it came from.
	Message int
	Role    transcript.Role
	Origin  transcript.Origin
	Part    transcript.PartKind
	Tool    string
	Text    string
}

// passages are the searchable texts of messages: prose, reasoning, tool
// results and attachments as the model saw them, and a tool call's name
// and each string of its arguments (the paths, commands and patterns it
// was given, JSON escapes undone: a path or a command reads as typed),
// each its own passage, so a phrase is found within one of them as it
// stands in the transcript. Images and opaque content have none.
func passages(msgs []transcript.Message, first int) []passage {
	var out []passage
	for i := range msgs {
		m := &msgs[i]
		for j := range m.Parts {
			p := &m.Parts[j]
			add := func(text string) {
				if strings.TrimSpace(text) != "" {
					out = append(out, passage{Message: first + i, Role: m.Role, Origin: m.Origin, Part: p.Kind, Tool: p.ToolName, Text: text})
				}
			}
			switch p.Kind {
			case transcript.PartImage, transcript.PartOpaque:
			case transcript.PartToolCall:
				add(p.ToolName)
				for _, s := range argStrings(p.Args) {
					add(s)
				}
			default:
				add(p.Text)
			}
		}
	}
	return out
}

// argStrings are the strings of a tool call's arguments, by key (the
// order is the index's and a query's check's, which must agree);
// arguments that are not JSON are one string as they are.
func argStrings(args string) []string {
	if args == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return []string{args}
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return out
}

// joined is what the full-text index holds of passages.
func joined(ps []passage) string {
	n := 0
	for _, p := range ps {
		n += len(p.Text) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range ps {
		b.WriteString(p.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// newest is the latest timestamp of msgs (zero when none has one).
func newest(msgs []transcript.Message) time.Time {
	var t time.Time
	for i := range msgs {
		if msgs[i].Timestamp.After(t) {
			t = msgs[i].Timestamp
		}
	}
	return t
}

// firstPrompt is the first thing a person typed, on one line: the title
// of a session that records none.
func firstPrompt(msgs []transcript.Message) string {
	for i := range msgs {
		m := &msgs[i]
		if m.Role != transcript.RoleUser || m.Origin != transcript.OriginHuman {
			continue
		}
		for _, p := range m.Parts {
			if p.Kind == transcript.PartText && strings.TrimSpace(p.Text) != "" {
				return oneLine(p.Text, titleRunes)
			}
		}
	}
	return ""
}

// titleRunes is how long a title made of a prompt gets.
const titleRunes = 80

// oneLine is s with runs of white space as one space, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + "…"
}

// Phrase keys let the index narrow a phrase of common words, which it
// cannot by its terms (it keeps which pieces hold a term, not where):
// each pair of words next to each other in a passage is hashed into one
// of 65,536 keys, indexed with the piece as a term of two private-use
// characters no text holds. A piece holds about a fortieth of the keys,
// so a four-word phrase's three keys leave about one piece in 60,000
// that does not say it, where its words alone left most of them; the
// keys about double the index's entries.
const pairKeyBits = 16

// pairKey is the key of the words a then b.
func pairKey(a, b string) string {
	h := fnv.New32a()
	h.Write([]byte(a))
	h.Write([]byte{0})
	h.Write([]byte(b))
	k := h.Sum32() & (1<<pairKeyBits - 1)
	return string([]rune{0xE000 + rune(k>>8), 0xE100 + rune(k&0xff)})
}

// pairKeys are the keys of every pair of words next to each other in ps,
// each once, as text the index takes beside ps's.
func pairKeys(ps []passage) string {
	seen := map[string]bool{}
	var b strings.Builder
	for _, p := range ps {
		ts := terms(p.Text)
		for i := 0; i+1 < len(ts); i++ {
			k := pairKey(ts[i].Text, ts[i+1].Text)
			if !seen[k] {
				seen[k] = true
				b.WriteByte(' ')
				b.WriteString(k)
			}
		}
	}
	return b.String()
}

// Terms are what the full-text index and a phrase check compare: runs of
// letters, digits and private-use characters, lower-cased — the index's
// tokenizer (FTS5 unicode61, diacritics kept). Everything else separates
// them: a path "daemon/store/schema.go" is the terms daemon, store,
// schema, go.
func isTermRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// A term is one of a text's terms and where it is.
type term struct {
	Text       string
	Start, End int
}

// terms splits s into its terms, lower-cased, with their byte ranges.
func terms(s string) []term {
	var out []term
	start := -1
	for i, r := range s {
		if isTermRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, term{Text: strings.ToLower(s[start:i]), Start: start, End: i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, term{Text: strings.ToLower(s[start:]), Start: start, End: len(s)})
	}
	return out
}

// A phrase is terms that must follow one another; the last may be a
// prefix.
type phrase struct {
	Terms  []string
	Prefix bool
}

// find returns the byte range of the first place ts holds p, -1 when none.
func (p phrase) find(ts []term) (start, end int) {
	n := len(p.Terms)
	if n == 0 {
		return -1, -1
	}
outer:
	for i := 0; i+n <= len(ts); i++ {
		for k, want := range p.Terms {
			got := ts[i+k].Text
			if k == n-1 && p.Prefix {
				if !strings.HasPrefix(got, want) {
					continue outer
				}
			} else if got != want {
				continue outer
			}
		}
		return ts[i].Start, ts[i+n-1].End
	}
	return -1, -1
}

// snippetRunes is how much text a snippet shows on each side of a match.
const snippetRunes = 80

// snippet is text around [at, end), on one line, cut on rune boundaries.
func snippet(text string, at, end int) string {
	from, to := at, end
	for k := 0; k < snippetRunes && from > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:from])
		from -= size
	}
	for k := 0; k < snippetRunes && to < len(text); k++ {
		_, size := utf8.DecodeRuneInString(text[to:])
		to += size
	}
	out := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		out = "…" + out
	}
	if to < len(text) {
		out += "…"
	}
	return out
}
