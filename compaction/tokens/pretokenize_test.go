package tokens

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"

	"github.com/compactd/compactd/compaction/sessiongen"
)

// The split regexes exactly as pkoukk/tiktoken-go compiles them.
var splitPatterns = map[string]string{
	O200kBase: strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"),
	CL100kBase: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// regexSplit is how the library splits s: regexp2 over []rune(s), each
// match turned back into a string (invalid bytes become U+FFFD).
func regexSplit(t testing.TB, re *regexp2.Regexp, s string) []string {
	t.Helper()
	runes := []rune(s)
	var out []string
	m, err := re.FindRunesMatch(runes)
	for m != nil && err == nil {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
		m, err = re.FindNextMatch(m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ourSplit(t testing.TB, s, enc string) []string {
	t.Helper()
	var out []string
	s = validUTF8(s)
	sc := newScanner(s)
	for i := 0; i < len(s); {
		e := sc.next(i, enc == CL100kBase)
		if e <= i {
			t.Fatalf("%s: no progress at byte %d of %q", enc, i, s)
		}
		out = append(out, s[i:e])
		i = e
	}
	return out
}

// pretokenizerSeeds cover each alternative of both regexes and the edges
// between them.
var pretokenizerSeeds = []string{
	"", "\n \n", "hello world", "Hello World's THE'S they'RE i'Ll we'VE I'm he'd",
	"don't 'S 'x 'r 're 'll 'l", "  leading   and trailing  ", "a\r\n\r\n  b\n\t\n  ",
	"x  \n  y", "12345 1234567 ١٢٣٤ ²³ Ⅻ", "a/b//c\n/d\n\n//e ;;\n/\n", " !!!\n\n/x",
	"漢字かなカナ한국어", "emoji 😀👍🏽 flags 🇫🇷", "e\u0301 a\u0300\u0301B \u0301\u0301 x\u0301Y",
	"ABCdef ABC ABCǅdef ǅǅ ʰʰa aʰB Ǉǈǉ", "\xff\xfe invalid \xc3 \xed\xa0\x80 surrogate",
	"\u00a0nbsp\u2003em\u3000ideo\u0085nel\u2028ls", "\t\v\f\r", "{\"type\":\"text\",\"text\":\"hi\\n\"}",
	"'", "''s", "x'", " '", "\r", "\n", " ", "  ", "a\u200bb", "\u0301", "\u0301A", ".\u0301", " \u0301A",
	"Straße İstanbul ſ K Å", "'\u017f '\u212a 'İ",
}

func TestPretokenizerMatchesRegex(t *testing.T) {
	for _, enc := range encodingsUnderTest {
		re := regexp2.MustCompile(splitPatterns[enc], regexp2.None)
		for _, s := range pretokenizerSeeds {
			want := regexSplit(t, re, s)
			if got := ourSplit(t, s, enc); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q:\n got %q\nwant %q", enc, s, got, want)
			}
		}
	}
}

// Every rune of the Basic Multilingual Plane and a sample beyond, each in
// the contexts the alternatives look at (after a space, a letter, a mark,
// an apostrophe; before a letter, an upper-case letter, a newline).
func TestPretokenizerMatchesRegexOnEveryRune(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	var b strings.Builder
	for r := rune(0); r < 0x30000; r++ {
		if r >= 0x10000 && r%7 != 0 {
			continue
		}
		if !utf8.ValidRune(r) {
			continue
		}
		c := string(r)
		b.WriteString(" " + c + "a" + c + "A" + c + "\u0301" + c + "'" + c + "1" + c + c + "\n")
	}
	text := b.String()
	for _, enc := range encodingsUnderTest {
		re := regexp2.MustCompile(splitPatterns[enc], regexp2.None)
		// Line by line so a difference is reported where it is.
		for _, line := range strings.SplitAfter(text, "\n") {
			want := regexSplit(t, re, line)
			if got := ourSplit(t, line, enc); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %q:\n got %q\nwant %q", enc, line, got, want)
			}
		}
	}
}

func FuzzPretokenizerMatchesRegex(f *testing.F) {
	for _, s := range pretokenizerSeeds {
		f.Add(s)
	}
	res := map[string]*regexp2.Regexp{}
	for _, enc := range encodingsUnderTest {
		res[enc] = regexp2.MustCompile(splitPatterns[enc], regexp2.None)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, enc := range encodingsUnderTest {
			want := regexSplit(t, res[enc], s)
			if got := ourSplit(t, s, enc); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %q:\n got %q\nwant %q", enc, s, got, want)
			}
		}
	})
}

// The counter's pretokenizer and merge must give the library's count on
// real transcript text, line by line as the daemon counts JSONL records.
func TestCountMatchesLibrary(t *testing.T) {
	texts := map[string]string{
		"sessiongen/claude-code": string(sessiongen.ClaudeCode(sessiongen.Options{Seed: 7, TargetBytes: 1 << 20})),
		"seeds":                  strings.Join(pretokenizerSeeds, "\n"),
	}
	corpus := filepath.Join(repoRoot(t), "..", "shared", "corpus")
	_ = filepath.WalkDir(corpus, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".md") {
			if b, err := os.ReadFile(path); err == nil {
				rel, _ := filepath.Rel(corpus, path)
				texts["corpus/"+rel] = string(b)
			}
		}
		return nil
	})
	for _, enc := range encodingsUnderTest {
		b, err := loadBPE(enc)
		if err != nil {
			t.Fatal(err)
		}
		cache := mergedCounts{} // shared, so hits are checked too
		for name, text := range texts {
			lines := 0
			for _, line := range strings.SplitAfter(text, "\n") {
				if len(line) > UnbrokenRunLimit {
					continue // the reference is quadratic on long runs
				}
				lines++
				if got, want := b.count(line, cache), referenceCount(t, enc, line); got != want {
					t.Fatalf("%s %s line %d: %d tokens, library %d: %.200q", enc, name, lines, got, want, line)
				}
			}
		}
	}
}

// FuzzCountMatchesLibrary holds pretokenizer, merge and cache together to
// the library's count, on both encodings.
func FuzzCountMatchesLibrary(f *testing.F) {
	for _, s := range pretokenizerSeeds {
		f.Add(s)
	}
	bpes := map[string]*bpe{}
	for _, enc := range encodingsUnderTest {
		b, err := loadBPE(enc)
		if err != nil {
			f.Fatal(err)
		}
		bpes[enc] = b
		referenceEncoding(f, enc)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return // the reference is quadratic on long runs
		}
		for _, enc := range encodingsUnderTest {
			if got, want := bpes[enc].count(s, mergedCounts{}), referenceCount(t, enc, s); got != want {
				t.Fatalf("%s %q: %d tokens, library %d", enc, s, got, want)
			}
		}
	})
}

// classify reads the class table, filled a block at a time as runes are
// read; it must say what the Unicode tables say.
func TestClassifyMatchesUnicode(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := classOther
		switch {
		case unicode.IsSpace(r):
			want = classSpace
		case unicode.IsLetter(r) || unicode.Is(unicode.M, r):
			want = classLetter
		case unicode.IsNumber(r):
			want = classDigit
		}
		if got := classify(r); got != want {
			t.Fatalf("classify(%U) = %d, want %d", r, got, want)
		}
	}
}
