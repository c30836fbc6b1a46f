package tokens

import "unicode/utf8"

// Limits of what is handed to the BPE in one call. See ARCHITECTURE.md
// ("Counting tokens") for the measurements behind them.
const (
	// MaxPiece bounds one BPE call, so a big text is counted in parallel
	// pieces. (It also kept pkoukk/tiktoken-go, which this package used to
	// call, from converting 20 MiB to runes at once: 1.47 GB RSS.)
	MaxPiece = 256 << 10
	// SameClassRunLimit is the longest run of same-class characters
	// (letters, whitespace, punctuation) counted exactly. Such a run is one
	// regex piece and BPE merging is quadratic in a piece's length: 16 KiB
	// of one letter costs about 250 ms, 64 KiB seconds.
	SameClassRunLimit = 1 << 10
	// UnbrokenRunLimit is the longest stretch without whitespace counted
	// exactly. Mixed runs such as base64 are linear but slow (about 1 MB/s),
	// so a 1 MiB data URL would stall the daemon for a second.
	UnbrokenRunLimit = 64 << 10
	// RunChunk is the fixed width long runs are cut at.
	RunChunk = 256
	// RunSample is how much of a long run is counted; the rest is
	// extrapolated from it by bytes.
	RunSample = 16 << 10
)

// A piece is a part of a text counted by one BPE call.
type piece struct {
	s string
	// run marks a long run: counted in RunChunk cuts, sampled, approximate.
	run bool
	// inexact marks a piece cut at a point that may not be a token
	// boundary (no exact split point was found within MaxPiece).
	inexact bool
}

// charClass approximates the classes the BPE split regex groups into one
// piece: a run of one class can become one piece.
type charClass uint8

const (
	classSpace charClass = iota
	classLetter
	classDigit
	classOther
)

var asciiClass = func() (t [utf8.RuneSelf]charClass) {
	for i := range t {
		r := rune(i)
		switch {
		case r == ' ' || (r >= '\t' && r <= '\r'):
			t[i] = classSpace
		case (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
			t[i] = classLetter
		case r >= '0' && r <= '9':
			t[i] = classDigit
		default:
			t[i] = classOther
		}
	}
	return t
}()

// classify returns the class of r.
func classify(r rune) charClass {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	var rc runeClass
	if r < 1<<16 {
		rc = bmpClasses.of(r)
	} else {
		rc = classOf(r)
	}
	switch {
	case rc&rcSpace != 0:
		return classSpace
	case rc&rcLetter != 0 || rc&(rcUpper|rcLower) == rcUpper|rcLower: // letters and marks
		return classLetter
	case rc&rcNumber != 0:
		return classDigit
	default:
		return classOther
	}
}

type span struct{ start, end int }

// longRuns finds the byte ranges of s the BPE must not see whole: runs of
// one character class longer than SameClassRunLimit (digits excepted: the
// regex caps them at three) and stretches without whitespace longer than
// UnbrokenRunLimit. The result is sorted and non-overlapping.
func longRuns(s string) []span {
	var runs []span
	classStart, unbrokenStart := 0, 0
	prev := classSpace
	inUnbroken := false
	add := func(start, end int) { runs = append(runs, span{start, end}) }
	// closeClass and closeUnbroken end the class run and the unbroken
	// stretch that stop at i; mergeSpans later folds class runs into the
	// stretches that contain them.
	closeClass := func(i int) {
		if prev != classDigit && i-classStart > SameClassRunLimit {
			add(classStart, i)
		}
	}
	closeUnbroken := func(i int) {
		if inUnbroken && i-unbrokenStart > UnbrokenRunLimit {
			add(unbrokenStart, i)
		}
		inUnbroken = false
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		c := classify(r)
		if i == 0 {
			prev, classStart = c, 0
		} else if c != prev {
			if c == classSpace {
				closeUnbroken(i)
			}
			closeClass(i)
			prev, classStart = c, i
		}
		if c != classSpace && !inUnbroken {
			inUnbroken, unbrokenStart = true, i
		}
		i += size
	}
	closeUnbroken(len(s))
	closeClass(len(s))
	return mergeSpans(runs)
}

// mergeSpans sorts spans by start (they arrive nearly ordered: an unbroken
// stretch is added after the class runs inside it) and merges overlaps.
func mergeSpans(runs []span) []span {
	if len(runs) < 2 {
		return runs
	}
	// Insertion sort: the list is short and almost sorted.
	for i := 1; i < len(runs); i++ {
		for j := i; j > 0 && runs[j].start < runs[j-1].start; j-- {
			runs[j], runs[j-1] = runs[j-1], runs[j]
		}
	}
	out := runs[:1]
	for _, r := range runs[1:] {
		last := &out[len(out)-1]
		if r.start <= last.end {
			if r.end > last.end {
				last.end = r.end
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// isSpaceAt reports whether the rune starting at s[i] is whitespace.
func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return classify(r) == classSpace
}

// exactSplitAt reports whether cutting s before index i (0 < i < len(s))
// leaves the count unchanged: i follows a newline and starts neither
// whitespace (which the newline's piece would absorb) nor, for o200k_base,
// a '/' (which its punctuation pattern absorbs after newlines).
func exactSplitAt(s string, i int, slashJoins bool) bool {
	if s[i-1] != '\n' {
		return false
	}
	if slashJoins && s[i] == '/' {
		return false
	}
	return !isSpaceAt(s, i)
}

// splitExact cuts s into pieces of at most max bytes at exact split points.
// Where a window holds no exact point it falls back to a cut before a space
// followed by a letter, then to a rune boundary; those pieces are marked
// inexact.
func splitExact(s string, max int, slashJoins bool, out []piece) []piece {
	for len(s) > max {
		cut, inexact := 0, false
		for i := max; i > 0; i-- {
			if exactSplitAt(s, i, slashJoins) {
				cut = i
				break
			}
		}
		if cut == 0 {
			inexact = true
			for i := max; i > 1; i-- {
				if s[i] == ' ' && i+1 < len(s) && isASCIILetter(s[i+1]) && !isSpaceAt(s, i-1) {
					cut = i
					break
				}
			}
		}
		if cut == 0 {
			cut = max
			for cut > 1 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		out = append(out, piece{s: s[:cut], inexact: inexact})
		s = s[cut:]
	}
	if len(s) > 0 {
		out = append(out, piece{s: s})
	}
	return out
}

// plan cuts s into the pieces counted separately: long runs on their own,
// the text between them at exact split points.
func plan(s string, slashJoins bool) []piece {
	if len(s) <= SameClassRunLimit {
		return []piece{{s: s}}
	}
	var out []piece
	at := 0
	for _, r := range longRuns(s) {
		out = splitExact(s[at:r.start], MaxPiece, slashJoins, out)
		out = append(out, piece{s: s[r.start:r.end], run: true})
		at = r.end
	}
	return splitExact(s[at:], MaxPiece, slashJoins, out)
}

func isASCIILetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }
