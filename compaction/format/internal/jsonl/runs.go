package jsonl

import (
	"bytes"
	"fmt"

	"github.com/compactd/compactd/compaction/transcript"
)

// MaxJoined caps the bytes of a record joined from several lines: a run of
// a million tiny lines becomes a dozen records, and no record grows past
// what one stored segment should hold.
const MaxJoined = 1 << 20

// Runs joins the lines a codec only passes through into records of
// several lines. Everything compactd keeps is per record — the record
// itself, the codec's node, a problem, a stored segment — so a million
// lines of a type the codec does not know, or a million that do not
// decode, cost a million of each (942 MB and 40 s to compact 13 MB of
// `{"a":N}` lines); joined, they cost what the bytes cost.
//
// A line is inert when reading it left nothing the codec keeps by
// record: a record of a type it does not know with no ID, or a line that
// does not decode at all. Consecutive inert lines of the same kind
// (RecordUnknown or RecordMalformed), with nothing but "\n" between them,
// join into one record whose Raw spans them, up to MaxJoined bytes. Write
// gives the lines back as they were, forks pass such a record through
// whole or not at all, and Rewrite hands its lines to an edit one by one.
// Only lines read in one call join: a record from an earlier read
// belongs to an earlier transcript too.
//
// A codec's record callback asks Join before it appends a record and
// answers Join when it says so; Finish, after the split, says in each
// joined malformed record's problem how many lines it covers.
type Runs struct {
	data []byte
	base int64
	// open is the index of the last record taken, when it is inert and
	// may take more lines; -1 when none.
	open int
	kind transcript.RecordKind
	// bad are the malformed records that joined lines, to describe.
	bad []badRun
}

type badRun struct {
	problem     int // index in Transcript.Problems
	first, last int // the lines joined to its record
}

// NewRuns starts joining the lines of data, which begins at byte base of
// the source.
func NewRuns(data []byte, base int64) *Runs {
	return &Runs{data: data, base: base, open: -1}
}

// Join reports whether the line l, read into rec, joined the last record
// of t (which then spans l too). inert says whether reading l left
// nothing by record (see Runs). When Join returns false the caller
// appends rec to t.Records, and, for a malformed rec, its problem to
// t.Problems, before the next call.
func (r *Runs) Join(t *transcript.Transcript, l Line, rec *transcript.Record, inert bool) bool {
	inert = inert && (rec.Kind == transcript.RecordUnknown || rec.Kind == transcript.RecordMalformed)
	last := len(t.Records) - 1
	if inert && r.open == last && last >= 0 && r.kind == rec.Kind && r.extend(&t.Records[last], l) {
		if rec.Kind == transcript.RecordMalformed {
			if n := len(r.bad); n > 0 && r.bad[n-1].problem == len(t.Problems)-1 {
				r.bad[n-1].last = l.Number
			} else {
				r.bad = append(r.bad, badRun{problem: len(t.Problems) - 1, first: l.Number, last: l.Number})
			}
		}
		return true
	}
	r.open, r.kind = -1, rec.Kind
	if inert && l.Terminated {
		r.open = len(t.Records)
	}
	return false
}

// extend makes prev span l when l follows it directly and both lie in
// this call's data.
func (r *Runs) extend(prev *transcript.Record, l Line) bool {
	from, to := prev.Start-r.base, l.End-r.base
	if !l.Terminated || prev.End+1 != l.Start || from < 0 || to > int64(len(r.data)) || to-from > MaxJoined {
		return false
	}
	prev.Raw = r.data[from:to:to]
	prev.End = l.End
	return true
}

// Finish says, in the problem of each malformed record that joined
// lines, which lines it covers.
func (r *Runs) Finish(t *transcript.Transcript) {
	for _, b := range r.bad {
		if b.problem < 0 || b.problem >= len(t.Problems) {
			continue
		}
		p := &t.Problems[b.problem]
		if b.first == b.last {
			p.Message = fmt.Sprintf("%s; line %d is not a record either", p.Message, b.first)
		} else {
			p.Message = fmt.Sprintf("%s; lines %d–%d are not records either", p.Message, b.first, b.last)
		}
	}
	r.bad = nil
}

// Renumber moves m's references from record from to record to: a codec
// that decodes lines ahead (SplitParallel) names the record a line would
// become had no line before it joined another.
func Renumber(m *transcript.Message, from, to int) {
	if m == nil || from == to {
		return
	}
	for i, r := range m.Records {
		if r == from {
			m.Records[i] = to
		}
	}
	for i := range m.Parts {
		if m.Parts[i].Ref.Record == from {
			m.Parts[i].Ref.Record = to
		}
	}
}

// eachLine calls fn with each line of a record's bytes (one, unless lines
// were joined into it).
func eachLine(raw []byte, fn func(line []byte)) {
	for {
		i := bytes.IndexByte(raw, '\n')
		if i < 0 {
			fn(raw)
			return
		}
		fn(raw[:i])
		raw = raw[i+1:]
	}
}
