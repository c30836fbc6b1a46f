package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/compactd/compactd/compaction/transcript"
)

// A LineFormat is what a line codec (Qwen Code, Copilot CLI, Cursor)
// tells Lines of its format: its empty transcript, how lines extend one
// (with Continue and Decode), and the names its errors use.
type LineFormat interface {
	// Empty is the transcript of an empty source, holding the codec's
	// fresh state.
	Empty() *transcript.Transcript
	// AppendLines reads data (complete lines, or a whole source for
	// Parse) onto prev, a transcript from Empty or AppendLines, which it
	// must not change.
	AppendLines(prev *transcript.Transcript, data []byte) *transcript.Transcript
	// Owns reports whether t was read by this codec (its State is the
	// codec's).
	Owns(t *transcript.Transcript) bool
	// Names are the format's names for a source and for one of its
	// records, as errors say them: "Copilot CLI session", "an event".
	Names() (source, record string)
}

// Lines is Parse, Append and Write for a line codec whose format F
// describes: the codec embeds it (its zero value is ready) and adds
// Format, Detect and Fork.
type Lines[F LineFormat] struct{}

// Parse implements format.Codec: the whole source read onto F's empty
// transcript; a source none of whose lines is a record is not F's.
func (Lines[F]) Parse(src []byte) (*transcript.Transcript, error) {
	var f F
	t := f.AppendLines(f.Empty(), src)
	source, record := f.Names()
	if err := NotInFormat(t, source, record); err != nil {
		return nil, err
	}
	return t, nil
}

// Append implements format.Appender: the complete lines of tail read
// onto prev (nil or a zero transcript for a first append).
func (Lines[F]) Append(prev *transcript.Transcript, tail []byte) (*transcript.Transcript, error) {
	var f F
	switch {
	case prev == nil || (prev.State == nil && len(prev.Records) == 0):
		prev = f.Empty()
	case !f.Owns(prev):
		source, _ := f.Names()
		return nil, fmt.Errorf("append to a %s that was not parsed by this codec", source)
	}
	return f.AppendLines(prev, CompleteLines(tail)), nil
}

// Write implements format.Codec: the records with the bytes between them,
// as read.
func (Lines[F]) Write(t *transcript.Transcript) ([]byte, error) {
	return WriteRecords(t), nil
}

// Continue returns the transcript an append to prev builds: prev's
// format, records, problems, skipped count, size and frame, to which
// Decode adds. Slices are clipped, so two transcripts appended from the
// same prev never write into a shared array. Messages, turns, state and
// metadata are the codec's to set.
func Continue(prev *transcript.Transcript) *transcript.Transcript {
	return &transcript.Transcript{Format: prev.Format, Records: slices.Clip(prev.Records), Problems: slices.Clip(prev.Problems),
		Skipped: prev.Skipped, Size: prev.Size, Frame: prev.Frame}
}

// Decode adds the records of data — the source's bytes from t.Size on,
// after lines source lines — to t, a transcript from Continue. Each
// non-blank line is unmarshalled into a new T and handed, when it is a
// JSON object, to apply, which classifies rec (its Kind, Type, ID) and
// reads the line into the codec's state; idx is rec's index in t.Records.
// A line that is not a JSON object, or that apply fails on, is kept as a
// malformed record and counted in t.Skipped and t.Problems (naming its
// line); an unterminated line that is not JSON is a write in progress and
// stays unconsumed. Decode sets t's Frame and Size and returns how many
// source lines t now covers (blank ones included), for the next append.
func Decode[T any](t *transcript.Transcript, data []byte, lines int, apply func(idx int, rec *transcript.Record, v *T) error) int {
	pf, _ := t.Frame.(*Frame)
	if pf == nil {
		pf = &Frame{}
	}
	runs := NewRuns(data, t.Size)
	fr, consumed := pf.Split(data, t.Size, len(t.Records), lines, func(l Line) Verdict {
		var v T
		err := json.Unmarshal(l.Raw, &v)
		if err != nil && !l.Terminated {
			return Wait // a write in progress
		}
		idx := len(t.Records)
		rec := transcript.Record{Start: l.Start, End: l.End, Raw: l.Raw}
		if err == nil && bytes.TrimSpace(l.Raw)[0] != '{' {
			err = fmt.Errorf("not a JSON object") // null: it unmarshals into anything
		}
		// A line apply never saw, or one it found to be of a type it
		// does not know with no ID, left nothing by record: it may join
		// the one before (apply is called with the index the line
		// would take, and must leave nothing naming it for such a line).
		inert := err != nil
		if err == nil {
			err = apply(idx, &rec, &v)
			inert = err == nil && rec.Kind == transcript.RecordUnknown && rec.ID == "" || errors.Is(err, ErrUnread)
		}
		if err != nil {
			rec.Kind, rec.Err = transcript.RecordMalformed, err.Error()
		}
		if runs.Join(t, l, &rec, inert) {
			return Join
		}
		if err != nil {
			t.Skipped++
			t.Problems = append(t.Problems, transcript.Problem{Record: idx, Line: l.Number, Message: fmt.Sprintf("line %d: %v", l.Number, err)})
		}
		t.Records = append(t.Records, rec)
		return Take
	})
	runs.Finish(t)
	t.Size += int64(consumed)
	t.Frame = &fr
	// Every consumed line ends with a newline but a last one Parse took
	// without; blank lines count too, so the next append numbers its
	// lines as Parse does.
	lines += bytes.Count(data[:consumed], newline)
	if consumed > 0 && data[consumed-1] != '\n' {
		lines++
	}
	return lines
}

// ErrUnread marks an apply error for a line apply read nothing from (a
// JSON object that is none of the format's records): such lines may join
// (see Runs) like lines that do not decode.
var ErrUnread = errors.New("nothing read from the line")

// Unread returns err marked with ErrUnread, its message unchanged.
func Unread(err error) error { return unread{err} }

type unread struct{ error }

func (u unread) Unwrap() []error { return []error{u.error, ErrUnread} }

// NotInFormat returns, when every record of t is malformed (and there is
// one), an error saying the source is not a what: no line is a record
// (naming the first problem). Parse fails with it; a source with some
// good records parses, its bad lines counted.
func NotInFormat(t *transcript.Transcript, what, record string) error {
	if len(t.Records) == 0 || t.Skipped != len(t.Records) {
		return nil
	}
	return fmt.Errorf("not a %s: no line is %s (%s)", what, record, t.Problems[0].Message)
}

// WriteRecords renders t's records with its frame (a nil or foreign frame:
// each record followed by "\n"): Write for a line codec.
func WriteRecords(t *transcript.Transcript) []byte {
	f, _ := t.Frame.(*Frame)
	return Write(f, t.Records)
}

// Rewrite renders t's records with its frame, each record's bytes replaced
// by what edit returns for it (nil: kept as they are). It is Renew for a
// line codec whose session id lives in some of its lines. A record of
// joined lines (see Runs) goes to edit a line at a time, each with the
// record's index and kind.
func Rewrite(t *transcript.Transcript, edit func(i int, r transcript.Record) ([]byte, error)) ([]byte, error) {
	recs := slices.Clone(t.Records)
	for i := range recs {
		if bytes.IndexByte(recs[i].Raw, '\n') >= 0 {
			raw, err := rewriteJoined(i, recs[i], edit)
			if err != nil {
				return nil, err
			}
			recs[i].Raw = raw
			continue
		}
		raw, err := edit(i, recs[i])
		if err != nil {
			return nil, err
		}
		if raw != nil {
			recs[i].Raw = raw
		}
	}
	f, _ := t.Frame.(*Frame)
	return Write(f, recs), nil
}

// HeadObjects hands visit each line of a Detect head that starts as a
// JSON object, decoded into a new T, up to the head's 20th line, until
// visit returns false. A line that does not decode may be one a crash
// cut short, but more than two mean the head is not JSON Lines: then
// HeadObjects returns false.
func HeadObjects[T any](head []byte, visit func(v *T) bool) bool {
	bad := 0
	for i, l := range bytes.Split(head, newline) {
		if i >= 20 {
			break
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] != '{' {
			continue
		}
		var v T
		if json.Unmarshal(l, &v) != nil {
			if bad++; bad > 2 {
				return false
			}
			continue
		}
		if !visit(&v) {
			break
		}
	}
	return true
}

// rewriteJoined is Rewrite for a record of joined lines.
func rewriteJoined(i int, r transcript.Record, edit func(i int, r transcript.Record) ([]byte, error)) ([]byte, error) {
	out := make([]byte, 0, len(r.Raw))
	var err error
	eachLine(r.Raw, func(line []byte) {
		if err != nil {
			return
		}
		one := r
		one.Raw = line
		var raw []byte
		if raw, err = edit(i, one); raw == nil {
			raw = line
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, raw...)
	})
	return out, err
}
