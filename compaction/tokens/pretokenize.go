package tokens

import (
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// The BPE of tiktoken encodings runs on pieces cut by a split regex. The
// regex library pkoukk/tiktoken-go uses (dlclark/regexp2, a backtracking
// engine) spends about two thirds of the counting time finding those pieces,
// so the counter cuts them itself with the functions below. Each one is the
// regex's alternation written out, alternative by alternative, in the order
// and with the backtracking outcome regexp2 gives; FuzzPretokenizerMatchesRegex
// holds them equal to regexp2 on arbitrary input.
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Like regexp2 (which runs on []rune(text)), they see each byte of invalid
// UTF-8 as one U+FFFD: callers pass text through validUTF8 first.

// runeClass holds the Unicode properties the split regexes test.
type runeClass uint8

const (
	rcLetter  runeClass = 1 << iota // \p{L}
	rcNumber                        // \p{N}
	rcSpace                         // \s (unicode.IsSpace in regexp2)
	rcUpper                         // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	rcLower                         // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	rcNewline                       // \r or \n
)

// prefix is [^\r\n\p{L}\p{N}], the optional character before a word.
func (c runeClass) prefix() bool { return c&(rcNewline|rcLetter|rcNumber) == 0 }

// punct is [^\s\p{L}\p{N}].
func (c runeClass) punct() bool { return c&(rcSpace|rcLetter|rcNumber) == 0 }

func classOf(r rune) runeClass {
	var c runeClass
	if unicode.IsLetter(r) {
		c |= rcLetter
	}
	if unicode.IsNumber(r) {
		c |= rcNumber
	}
	if unicode.IsSpace(r) {
		c |= rcSpace
	}
	if r == '\r' || r == '\n' {
		c |= rcNewline
	}
	mark := unicode.Is(unicode.M, r)
	either := mark || unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Lo, r)
	if either || unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r) {
		c |= rcUpper
	}
	if either || unicode.Is(unicode.Ll, r) {
		c |= rcLower
	}
	return c
}

// bmpClasses holds the class of the runes of the Basic Multilingual
// Plane, a block of 256 at a time, each computed the first time one of
// its runes is read: text outside ASCII is mostly in it, and a table read
// is far cheaper than the nine Unicode range searches of classOf, while
// computing all 64k classes up front took 4 ms of every command that
// counts (most of a status line's run after an append).
type bmpTable struct {
	blocks [256]atomic.Pointer[[256]runeClass]
}

var bmpClasses = &bmpTable{}

// of returns the class of r, which is below 1<<16.
func (t *bmpTable) of(r rune) runeClass {
	b := t.blocks[r>>8].Load()
	if b == nil {
		b = new([256]runeClass)
		base := r &^ 0xff
		for i := range b {
			b[i] = classOf(base + rune(i))
		}
		t.blocks[r>>8].Store(b) // racing computations store equal blocks
	}
	return b[r&0xff]
}

// asciiClasses is the class of every ASCII byte.
var asciiClasses = func() (t [utf8.RuneSelf]runeClass) {
	for r := range t {
		t[r] = classOf(rune(r))
	}
	return t
}()

// scanner walks valid UTF-8 text rune by rune with the classes above.
type scanner struct {
	s string
}

func newScanner(s string) scanner { return scanner{s: s} }

// at returns the class and byte size of the rune at i; size 0 at the end.
func (sc *scanner) at(i int) (runeClass, int) {
	if i >= len(sc.s) {
		return 0, 0
	}
	b := sc.s[i]
	if b < utf8.RuneSelf {
		return asciiClasses[b], 1
	}
	r, size := utf8.DecodeRuneInString(sc.s[i:])
	if r < 1<<16 {
		return bmpClasses.of(r), size
	}
	return classOf(r), size
}

// runWhile returns the end of the run of runes from i whose class has any
// of the bits in want.
func (sc *scanner) runWhile(i int, want runeClass) int {
	for {
		c, size := sc.at(i)
		if size == 0 || c&want == 0 {
			return i
		}
		i += size
	}
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or i.
// regexp2 compares case-insensitively by unicode.ToLower of the input.
func (sc *scanner) contraction(i int) int {
	if i >= len(sc.s) || sc.s[i] != '\'' {
		return i
	}
	r1, n1 := utf8.DecodeRuneInString(sc.s[i+1:])
	if n1 == 0 {
		return i
	}
	switch unicode.ToLower(r1) {
	case 's', 't', 'm', 'd':
		return i + 1 + n1
	case 'r', 'v':
		if r2, n2 := utf8.DecodeRuneInString(sc.s[i+1+n1:]); n2 > 0 && unicode.ToLower(r2) == 'e' {
			return i + 1 + n1 + n2
		}
	case 'l':
		if r2, n2 := utf8.DecodeRuneInString(sc.s[i+1+n1:]); n2 > 0 && unicode.ToLower(r2) == 'l' {
			return i + 1 + n1 + n2
		}
	}
	return i
}

// upperThenLower matches [upper]*[lower]+ at p as regexp2 does: the upper
// run is taken whole, then given back one rune at a time until a lower
// rune can start the lower run.
func (sc *scanner) upperThenLower(p int) (int, bool) {
	lastLower := -1 // start of the last rune of the upper run that is also lower
	u := p
	for {
		c, size := sc.at(u)
		if size == 0 || c&rcUpper == 0 {
			break
		}
		if c&rcLower != 0 {
			lastLower = u
		}
		u += size
	}
	if c, size := sc.at(u); size > 0 && c&rcLower != 0 {
		return sc.runWhile(u, rcLower), true
	}
	if lastLower >= 0 {
		// The lower run starting inside the upper run stops at the next
		// rune, which is upper only (or the rune after the upper run).
		_, size := sc.at(lastLower)
		return lastLower + size, true
	}
	return 0, false
}

// upperPlusLower matches [upper]+[lower]* at p.
func (sc *scanner) upperPlusLower(p int) (int, bool) {
	if c, size := sc.at(p); size == 0 || c&rcUpper == 0 {
		return 0, false
	}
	return sc.runWhile(sc.runWhile(p, rcUpper), rcLower), true
}

// digits matches \p{N}{1,3} at i (whose rune is a number).
func (sc *scanner) digits(i int) int {
	for k := 0; k < 3; k++ {
		c, size := sc.at(i)
		if size == 0 || c&rcNumber == 0 {
			break
		}
		i += size
	}
	return i
}

// punctuation matches ` ?[^\s\p{L}\p{N}]+[\r\n]*` (with '/' in the last
// class when slash is set) at i, whose rune is n0 bytes long.
func (sc *scanner) punctuation(i, n0 int, slash bool) (int, bool) {
	p := i
	if sc.s[i] == ' ' {
		if c1, n1 := sc.at(i + n0); n1 > 0 && c1.punct() {
			p = i + n0
		}
	}
	if c, size := sc.at(p); size == 0 || !c.punct() {
		return 0, false
	}
	e := p
	for {
		c, size := sc.at(e)
		if size == 0 || !c.punct() {
			break
		}
		e += size
	}
	for e < len(sc.s) && (sc.s[e] == '\r' || sc.s[e] == '\n' || (slash && sc.s[e] == '/')) {
		e++
	}
	return e, true
}

// whitespace matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, whose rune is a space.
func (sc *scanner) whitespace(i int) int {
	lastNewline, lastStart := -1, i
	j := i
	for {
		c, size := sc.at(j)
		if size == 0 || c&rcSpace == 0 {
			break
		}
		if c&rcNewline != 0 {
			lastNewline = j
		}
		lastStart = j
		j += size
	}
	switch {
	case lastNewline >= 0: // \s*[\r\n]+ backs off to the last newline
		return lastNewline + 1
	case j == len(sc.s) || lastStart == i: // \s+(?!\S) at the end; \s+ for one rune
		return j
	default: // \s+(?!\S) leaves the last space to the next piece
		return lastStart
	}
}

// nextO200k returns the end of the o200k_base piece starting at i.
func (sc *scanner) nextO200k(i int) int {
	c0, n0 := sc.at(i)
	if c0.prefix() {
		if e, ok := sc.upperThenLower(i + n0); ok {
			return sc.contraction(e)
		}
	}
	if e, ok := sc.upperThenLower(i); ok {
		return sc.contraction(e)
	}
	if c0.prefix() {
		if e, ok := sc.upperPlusLower(i + n0); ok {
			return sc.contraction(e)
		}
	}
	if e, ok := sc.upperPlusLower(i); ok {
		return sc.contraction(e)
	}
	if c0&rcNumber != 0 {
		return sc.digits(i)
	}
	if e, ok := sc.punctuation(i, n0, true); ok {
		return e
	}
	if c0&rcSpace != 0 {
		return sc.whitespace(i)
	}
	return i + n0 // unreachable: every rune is a letter, number, space or other
}

// nextCL100k returns the end of the cl100k_base piece starting at i.
func (sc *scanner) nextCL100k(i int) int {
	if e := sc.contraction(i); e > i {
		return e
	}
	c0, n0 := sc.at(i)
	if c0.prefix() {
		if c1, n1 := sc.at(i + n0); n1 > 0 && c1&rcLetter != 0 {
			return sc.runWhile(i+n0, rcLetter)
		}
	}
	if c0&rcLetter != 0 {
		return sc.runWhile(i, rcLetter)
	}
	if c0&rcNumber != 0 {
		return sc.digits(i)
	}
	if e, ok := sc.punctuation(i, n0, false); ok {
		return e
	}
	if c0&rcSpace != 0 {
		return sc.whitespace(i)
	}
	return i + n0
}

// next returns the end of the piece of the encoding's split regex that
// starts at i (< len(sc.s)).
func (sc *scanner) next(i int, cl100k bool) int {
	if cl100k {
		return sc.nextCL100k(i)
	}
	return sc.nextO200k(i)
}

// validUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as []rune(s) does, which is what regexp2 and the
// library's BPE see.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}
