package claude

import "bytes"

// This file frames JSONL: it splits bytes into lines and remembers every
// byte that is not part of a record (blank lines, a missing final newline,
// a partial last line) so Write reproduces the source exactly. The Codex
// codec carries a copy; a little copying beats a shared package for ~80
// lines.

// frame is Transcript.Frame for JSONL codecs.
type frame struct {
	// lead is whitespace before the first record.
	lead []byte
	// seps lists separators other than "\n" after a record; a later entry
	// for the same record wins.
	seps []separator
	// pending is an incomplete last line Parse saw but did not consume.
	pending []byte
}

type separator struct {
	after int
	bytes []byte
}

func (f *frame) sepAfter(rec int) []byte {
	for i := len(f.seps) - 1; i >= 0; i-- {
		if f.seps[i].after == rec {
			return f.seps[i].bytes
		}
		if f.seps[i].after < rec {
			break
		}
	}
	return newline
}

var newline = []byte("\n")

// extend returns a copy of f (sharing the append-only seps backing array)
// where the separator after rec gains extra bytes, or the lead does when
// there is no record yet.
func (f frame) extend(rec int, extra []byte) frame {
	if rec < 0 {
		f.lead = append(append([]byte(nil), f.lead...), extra...)
		return f
	}
	cur := f.sepAfter(rec)
	if len(f.seps) > 0 && f.seps[len(f.seps)-1].after == rec {
		cur = f.seps[len(f.seps)-1].bytes
	}
	next := append(append([]byte(nil), cur...), extra...)
	f.seps = append(f.seps, separator{after: rec, bytes: next})
	return f
}

// writeFramed renders records with their separators.
func writeFramed(f *frame, raws func(yield func([]byte) bool)) []byte {
	var b bytes.Buffer
	if f != nil {
		b.Write(f.lead)
	}
	i := 0
	for raw := range raws {
		b.Write(raw)
		if f != nil {
			b.Write(f.sepAfter(i))
		} else {
			b.WriteByte('\n')
		}
		i++
	}
	if f != nil {
		b.Write(f.pending)
	}
	return b.Bytes()
}

// isBlank reports whether a line holds only whitespace.
func isBlank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }
