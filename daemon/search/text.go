package search

import (
	"encoding/json"
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
// and the strings of its arguments (the paths, commands and patterns it
// was given). Images and opaque content have none.
func passages(msgs []transcript.Message, first int) []passage {
	var out []passage
	for i := range msgs {
		m := &msgs[i]
		for j := range m.Parts {
			p := &m.Parts[j]
			text := ""
			switch p.Kind {
			case transcript.PartImage, transcript.PartOpaque:
				continue
			case transcript.PartToolCall:
				text = callText(p)
			default:
				text = p.Text
			}
			if strings.TrimSpace(text) == "" {
				continue
			}
			out = append(out, passage{Message: first + i, Role: m.Role, Origin: m.Origin, Part: p.Kind, Tool: p.ToolName, Text: text})
		}
	}
	return out
}

// callText is a tool call as text: its name, then each string of its
// arguments on a line, by key (JSON escapes undone, so a path or a
// command reads as typed); arguments that are not JSON are kept as they
// are.
func callText(p *transcript.Part) string {
	var b strings.Builder
	b.WriteString(p.ToolName)
	var v any
	if p.Args != "" && json.Unmarshal([]byte(p.Args), &v) == nil {
		appendStrings(&b, v)
	} else if p.Args != "" {
		b.WriteByte('\n')
		b.WriteString(p.Args)
	}
	return b.String()
}

func appendStrings(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteByte('\n')
		b.WriteString(x)
	case map[string]any:
		// In key order: a query's phrase is checked against the text the
		// index was built from, so it must come out the same every time.
		for _, k := range slices.Sorted(maps.Keys(x)) {
			appendStrings(b, x[k])
		}
	case []any:
		for _, y := range x {
			appendStrings(b, y)
		}
	}
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
