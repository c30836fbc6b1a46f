// Package jsonl frames JSON Lines transcripts (Claude Code sessions, Codex
// rollouts): it splits bytes into lines and remembers every byte that is
// not part of a record — blank lines, whitespace before the first record,
// a missing final newline, a partial last line — so a codec's Write
// reproduces the source exactly while its records hold only their own
// bytes.
//
// It knows nothing of what a line means: codecs decode records themselves.
// Like the rest of compaction/, it must not read files or import daemon,
// LSP, storage or network packages.
package jsonl

import (
	"bytes"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/compactd/compactd/compaction/parallel"

	"github.com/compactd/compactd/compaction/transcript"
)

// Frame is Transcript.Frame for JSONL codecs. A Frame is a value that
// successive transcripts copy and extend; it is never changed in place
// once a transcript holds it.
type Frame struct {
	// Lead is the whitespace before the first record.
	Lead []byte
	// Seps lists separators other than "\n" after a record, in record
	// order; a later entry for the same record wins.
	Seps []Separator
	// Pending is an incomplete last line that was seen but not consumed.
	Pending []byte
	// Joined counts the lines that were joined to the record before them
	// (see Runs): a record then covers several lines.
	Joined int
}

// A Separator is the bytes written after record After instead of "\n":
// "\n" plus blank lines, or nothing for a last line without a newline.
type Separator struct {
	After int
	Bytes []byte
}

var newline = []byte("\n")

// SepAfter returns the bytes that follow record rec.
func (f *Frame) SepAfter(rec int) []byte {
	for i := len(f.Seps) - 1; i >= 0; i-- {
		if f.Seps[i].After == rec {
			return f.Seps[i].Bytes
		}
		if f.Seps[i].After < rec {
			break
		}
	}
	return newline
}

// Extend returns a copy of f where the separator after record rec gains
// extra bytes, or the lead does when rec < 0 (no record yet).
func (f Frame) Extend(rec int, extra []byte) Frame {
	if rec < 0 {
		f.Lead = append(slices.Clip(f.Lead), extra...)
		return f
	}
	next := append(slices.Clone(f.SepAfter(rec)), extra...)
	// Clip so that two transcripts extended from the same one never write
	// into a shared backing array.
	f.Seps = append(slices.Clip(f.Seps), Separator{After: rec, Bytes: next})
	return f
}

// Unterminated returns a copy of f recording that record rec is the last
// line and has no newline after it.
func (f Frame) Unterminated(rec int) Frame {
	f.Seps = append(slices.Clip(f.Seps), Separator{After: rec, Bytes: nil})
	return f
}

// Lines counts the source lines the frame and records records cover: one
// per record, one per line joined to a record, and every blank line the
// frame holds.
func (f *Frame) Lines(records int) int {
	n := records + f.Joined + bytes.Count(f.Lead, newline)
	last := map[int][]byte{}
	for _, sp := range f.Seps {
		last[sp.After] = sp.Bytes
	}
	for _, b := range last {
		if c := bytes.Count(b, newline); c > 1 {
			n += c - 1
		}
	}
	return n
}

// A Line is one non-blank line handed to a Split callback.
type Line struct {
	// Raw is the line without its "\n" (a "\r" before it stays: JSON
	// decoders treat it as whitespace and Write must give it back).
	Raw []byte
	// Start and End are Raw's byte range in the whole source.
	Start, End int64
	// Number is the 1-based line number in the source.
	Number int
	// Terminated is false for a last line without a newline.
	Terminated bool
}

// A Verdict is what a Split callback makes of a line.
type Verdict uint8

const (
	// Wait refuses an unterminated line the codec cannot decode (a write
	// in progress): it becomes Pending and is not consumed.
	Wait Verdict = iota
	// Take makes the line a record of its own.
	Take
	// Join says the codec joined the line to the record before it (see
	// Runs): no new record, the frame counts the line in Joined.
	Join
)

// Split walks the lines of data, which begins at byte base of the source,
// after records records and lines lines. Blank lines fold into the frame.
// Every other line goes to record, which answers Take, Join, or Wait to
// refuse an unterminated line it cannot decode (a write in progress):
// that line, like an unterminated blank one, becomes Pending and is not
// consumed. Split returns the new frame and the number of bytes of data
// consumed.
//
// Codecs that tail a file pass only complete lines (see CompleteLines);
// Parse passes everything so that a last line without a newline is a
// record when it decodes.
func (f Frame) Split(data []byte, base int64, records, lines int, record func(Line) Verdict) (Frame, int) {
	f.Pending = nil
	// A run of blank lines is folded into its separator once, when the
	// run ends: extending line by line copied the separator and the list
	// each time, quadratic in the run (a million blank lines took minutes
	// and gigabytes).
	// The separator list is copied on its first change in this call (the
	// frame passed in belongs to an earlier transcript) and appended to
	// in place after that, so records each followed by a blank line cost
	// linear time too.
	run := -1 // where the run of blank lines not yet folded in starts
	ownSeps := false
	endRun := func(at int) {
		if run < 0 {
			return
		}
		rec, extra := records-1, data[run:at]
		run = -1
		if rec < 0 || !ownSeps {
			f = f.Extend(rec, extra)
			ownSeps = rec >= 0
			return
		}
		f.Seps = append(f.Seps, Separator{After: rec, Bytes: append(slices.Clone(f.SepAfter(rec)), extra...)})
	}
	consumed := 0
	// A byte order mark before the first record is part of the lead.
	if n := bomAt(data, base, records); n > 0 {
		f = f.Extend(-1, data[:n])
		consumed = n
	}
	for off := consumed; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		terminated := end >= 0
		if !terminated {
			end = len(data) - off
		}
		raw := data[off : off+end : off+end]
		next := off + end
		if terminated {
			next++
		}
		lines++
		if IsBlank(raw) {
			if !terminated {
				endRun(off)
				f.Pending = raw
				break
			}
			if run < 0 {
				run = off
			}
			off, consumed = next, next
			continue
		}
		endRun(off)
		l := Line{Raw: raw, Start: base + int64(off), End: base + int64(off+end), Number: lines, Terminated: terminated}
		v := record(l)
		if v == Wait {
			f.Pending = raw
			break
		}
		if v == Join {
			f.Joined++
		} else {
			if !terminated {
				f = f.Unterminated(records)
				ownSeps = true
			}
			records++
		}
		off, consumed = next, next
	}
	endRun(consumed)
	return f, consumed
}

// CompleteLines returns the prefix of tail up to and including its last
// newline: what an appender may consume now. The result is a copy, so the
// transcript does not pin the caller's read buffer.
func CompleteLines(tail []byte) []byte {
	nl := bytes.LastIndexByte(tail, '\n')
	if nl < 0 {
		return nil
	}
	return bytes.Clone(tail[:nl+1])
}

// Write renders records with the separators f recorded; a nil f writes
// each record followed by "\n".
func Write(f *Frame, records []transcript.Record) []byte {
	size := 0
	for i := range records {
		size += len(records[i].Raw) + 1
	}
	if f != nil {
		size += len(f.Lead) + len(f.Pending)
		for _, sp := range f.Seps {
			size += len(sp.Bytes)
		}
	}
	b := make([]byte, 0, size)
	if f != nil {
		b = append(b, f.Lead...)
	}
	// Seps are in record order: walk them alongside the records rather
	// than searching them per record.
	j := 0
	for i := range records {
		b = append(b, records[i].Raw...)
		sep := newline
		if f != nil {
			for j < len(f.Seps) && f.Seps[j].After < i {
				j++
			}
			for ; j < len(f.Seps) && f.Seps[j].After == i; j++ {
				sep = f.Seps[j].Bytes
			}
		}
		b = append(b, sep...)
	}
	if f != nil {
		b = append(b, f.Pending...)
	}
	return b
}

// bomAt is the length of a UTF-8 byte order mark data starts with when
// data is the start of the source (an editor on Windows saved it), else 0.
func bomAt(data []byte, base int64, records int) int {
	if base == 0 && records == 0 && bytes.HasPrefix(data, bom) {
		return len(bom)
	}
	return 0
}

var bom = []byte("\xef\xbb\xbf")

// IsBlank reports whether a line holds only whitespace.
func IsBlank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// parallelBytes is the size of data from which SplitParallel decodes lines
// on every core: below it, starting goroutines costs more than it saves
// (an append of a few lines stays on the caller's goroutine).
const parallelBytes = 1 << 20

// decodeWindow is how many lines SplitParallel decodes ahead of record.
const decodeWindow = 1 << 14

// SplitParallel is Split with each line decoded once, by decode, before
// record sees it: on every core when data is large (a whole source, a
// cold read), in line order otherwise. decode must be a pure function of
// its line (it runs concurrently, and for lines Split never hands on, like
// an undecodable unterminated last line); k is the line's place among
// the non-blank lines of data (0 first), so records+k is the record it
// becomes if record takes it and joined none before it (a codec that
// joins lines renumbers what it decoded ahead: see Renumber). record gets
// the line's decoded value and answers as it does for Split.
func SplitParallel[T any](f Frame, data []byte, base int64, records, lines int, decode func(k int, l Line) T, record func(Line, T) Verdict) (Frame, int) {
	if len(data) < parallelBytes || runtime.GOMAXPROCS(0) < 2 {
		k := 0
		return f.Split(data, base, records, lines, func(l Line) Verdict {
			v := decode(k, l)
			k++
			return record(l, v)
		})
	}
	// The non-blank lines are found a window at a time, as Split will
	// find them (their numbers and offsets do not matter to decode
	// beyond Raw and Terminated, which are the same), and decoded just
	// before record needs them: finding every line first held a Line a
	// line (56 MB for 13 MB of tiny lines), decoding them all first held
	// every decoded value at once (1.4 GB).
	pre := make([]Line, 0, decodeWindow)
	out := make([]T, decodeWindow)
	scan := bomAt(data, base, records) // where the next line to find starts
	decodeNext := func(lo int) {
		pre = pre[:0]
		for scan < len(data) && len(pre) < decodeWindow {
			end := bytes.IndexByte(data[scan:], '\n')
			terminated := end >= 0
			if !terminated {
				end = len(data) - scan
			}
			raw := data[scan : scan+end : scan+end]
			if !IsBlank(raw) {
				pre = append(pre, Line{Raw: raw, Start: base + int64(scan), End: base + int64(scan+end), Terminated: terminated})
			}
			scan += end + 1
		}
		n := len(pre)
		workers := min(runtime.GOMAXPROCS(0), max(1, n/16))
		var next atomic.Int64
		var wg parallel.WaitGroup // a codec's panic reaches the caller, where a job recovers it
		const batch = 32
		for range workers {
			wg.Go(func() {
				for {
					i0 := int(next.Add(batch)) - batch
					if i0 >= n {
						return
					}
					for i := i0; i < min(i0+batch, n); i++ {
						out[i] = decode(lo+i, pre[i])
					}
				}
			})
		}
		wg.Wait()
	}
	decodeNext(0)
	k, lo := 0, 0
	return f.Split(data, base, records, lines, func(l Line) Verdict {
		if k-lo == len(pre) {
			lo += len(pre)
			decodeNext(lo)
		}
		v := out[k-lo]
		var zero T
		out[k-lo] = zero // let what record does not keep go
		k++
		return record(l, v)
	})
}

// RenewBefore is the JSONL of t's records before record cut, as renew
// (a codec's Renew: a new session id) writes them, ending with a newline
// whatever the source's last line did: the conversation as it stood
// before an agent's own compaction at cut.
func RenewBefore(t *transcript.Transcript, cut int, renew func(*transcript.Transcript) ([]byte, error)) ([]byte, error) {
	prefix := &transcript.Transcript{Format: t.Format, Meta: t.Meta, Records: t.Records[:cut:cut]}
	if f, ok := t.Frame.(*Frame); ok {
		fr := *f
		fr.Pending = nil
		prefix.Frame = &fr
	}
	out, err := renew(prefix)
	if err != nil {
		return nil, err
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out, nil
}
