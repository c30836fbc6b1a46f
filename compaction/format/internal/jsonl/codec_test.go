package jsonl

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

type testLine struct {
	Type string `json:"type"`
}

// decodeAll appends each chunk in turn, as a tailer does, and returns the
// last transcript: records of type "bad" are refused by apply, those of
// type "u" are of a type it does not know.
func decodeAll(chunks ...string) *transcript.Transcript {
	t := &transcript.Transcript{Frame: &Frame{}}
	lines := 0
	for _, c := range chunks {
		t = Continue(t)
		lines = Decode(t, []byte(c), lines, func(idx int, rec *transcript.Record, v *testLine) error {
			rec.Type = v.Type
			if v.Type == "u" {
				rec.Kind = transcript.RecordUnknown
			}
			if v.Type == "bad" {
				return errors.New("a bad record")
			}
			return nil
		})
	}
	return t
}

func TestDecodeKeepsBadLinesAsProblems(t *testing.T) {
	src := "{\"type\":\"a\"}\nnot json\nnull\n{\"type\":\"bad\"}\n{\"type\":\"b\"}\n{\"type\":"
	tr := decodeAll(src)
	var kinds []transcript.RecordKind
	for _, r := range tr.Records {
		kinds = append(kinds, r.Kind)
	}
	// The two lines that do not decode are one record (see Runs); the
	// line apply refused is one of its own: apply may have read it.
	m := transcript.RecordMalformed
	if want := []transcript.RecordKind{transcript.RecordMessage, m, m, transcript.RecordMessage}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	if tr.Skipped != 2 || !strings.HasPrefix(tr.Problems[0].Message, "line 2: ") || !strings.HasSuffix(tr.Problems[0].Message, "; line 3 is not a record either") ||
		tr.Problems[1].Message != "line 4: a bad record" || tr.Problems[1].Line != 4 || tr.Records[2].Type != "bad" || string(tr.Records[1].Raw) != "not json\nnull" {
		t.Fatalf("problems %+v", tr.Problems)
	}
	// The unterminated last line does not decode: a write in progress.
	if want := int64(strings.LastIndexByte(src, '\n') + 1); tr.Size != want {
		t.Fatalf("size %d, want %d", tr.Size, want)
	}
	// Write gives the source back, the pending line included.
	if got := string(WriteRecords(tr)); got != src {
		t.Fatalf("write %q", got)
	}
}

// Blank lines at the end of one append still count: a problem in the
// next names the line Parse names.
func TestDecodeNumbersLinesAcrossAppends(t *testing.T) {
	whole := decodeAll("{}\n\n\nnot json\n")
	split := decodeAll("{}\n\n\n", "not json\n")
	if whole.Problems[0].Line != 4 || !slices.Equal(whole.Problems, split.Problems) {
		t.Fatalf("parse %+v, appends %+v", whole.Problems, split.Problems)
	}
	// A last line without a newline is consumed when it decodes.
	if tr := decodeAll("{}\n{}"); tr.Size != 5 || len(tr.Records) != 2 {
		t.Fatalf("size %d, %d records", tr.Size, len(tr.Records))
	}
}

func TestContinueDoesNotShareAppends(t *testing.T) {
	base := decodeAll("{}\n")
	base.Records = slices.Grow(base.Records, 8)
	a, b := Continue(base), Continue(base)
	Decode(a, []byte("{\"type\":\"a\"}\n"), 1, func(int, *transcript.Record, *testLine) error { return nil })
	Decode(b, []byte("{\"type\":\"b\"}\n"), 1, func(int, *transcript.Record, *testLine) error { return nil })
	if string(a.Records[1].Raw) != `{"type":"a"}` || len(base.Records) != 1 {
		t.Fatalf("appends from one transcript share records: %q", a.Records[1].Raw)
	}
}

func TestNotInFormat(t *testing.T) {
	if err := NotInFormat(decodeAll("nope\n{\"type\":\"bad\"}\n"), "Test log", "an entry"); err == nil || err.Error() != "not a Test log: no line is an entry (line 1: invalid character 'o' in literal null (expecting 'u'))" {
		t.Fatalf("all bad: %v", err)
	}
	for _, src := range []string{"", "\n\n", "nope\n{}\n"} {
		if err := NotInFormat(decodeAll(src), "Test log", "an entry"); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// testFormat is a line codec of testLine records, for Lines.
type testFormat struct{}

type testState struct{ lines int }

func (testFormat) Empty() *transcript.Transcript {
	return &transcript.Transcript{Frame: &Frame{}, State: &testState{}}
}

func (testFormat) AppendLines(prev *transcript.Transcript, data []byte) *transcript.Transcript {
	st := *prev.State.(*testState)
	t := Continue(prev)
	st.lines = Decode(t, data, st.lines, func(_ int, rec *transcript.Record, v *testLine) error {
		rec.Type = v.Type
		return nil
	})
	t.State = &st
	return t
}

func (testFormat) Owns(t *transcript.Transcript) bool { _, ok := t.State.(*testState); return ok }

func (testFormat) Names() (string, string) { return "test log", "an entry" }

func TestLines(t *testing.T) {
	var c Lines[testFormat]
	if _, err := c.Parse([]byte("nope\n")); err == nil || !strings.HasPrefix(err.Error(), "not a test log: no line is an entry") {
		t.Fatalf("parse of no record: %v", err)
	}
	for _, prev := range []*transcript.Transcript{nil, {}} {
		tr, err := c.Append(prev, []byte("{\"type\":\"a\"}\n{\"type\":"))
		if err != nil || len(tr.Records) != 1 || tr.Size != 13 {
			t.Fatalf("first append from %v: %+v, %v", prev, tr, err)
		}
		// Only complete lines: the cut one waits.
		if next, err := c.Append(tr, []byte("{\"type\":\"b\"}\n")); err != nil || len(next.Records) != 2 || len(tr.Records) != 1 {
			t.Fatalf("second append: %+v, %v", next, err)
		}
	}
	if _, err := c.Append(&transcript.Transcript{State: "other"}, []byte("{}\n")); err == nil || !strings.Contains(err.Error(), "test log") {
		t.Fatalf("append to another codec's transcript: %v", err)
	}
	src := "\n{\"type\":\"a\"}\n\n"
	tr, err := c.Parse([]byte(src))
	if out, _ := c.Write(tr); err != nil || string(out) != src {
		t.Fatalf("write %q, %v", out, err)
	}
}

func TestRewrite(t *testing.T) {
	tr := decodeAll("\n{\"type\":\"a\"}\n\n{\"type\":\"b\"}")
	out, err := Rewrite(tr, func(i int, r transcript.Record) ([]byte, error) {
		if r.Type == "b" {
			return []byte(`{"type":"B"}`), nil
		}
		return nil, nil
	})
	if err != nil || string(out) != "\n{\"type\":\"a\"}\n\n{\"type\":\"B\"}" {
		t.Fatalf("%q, %v", out, err)
	}
	if string(tr.Records[1].Raw) != `{"type":"b"}` {
		t.Fatal("Rewrite changed the transcript's records")
	}
	if _, err := Rewrite(tr, func(int, transcript.Record) ([]byte, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("an edit's error was dropped")
	}
}

func TestHeadObjects(t *testing.T) {
	var seen []string
	visit := func(v *testLine) bool {
		seen = append(seen, v.Type)
		return v.Type != "stop"
	}
	if !HeadObjects([]byte("{\"type\":\"a\"}\n[1]\n{cut\n\n{\"type\":\"stop\"}\n{\"type\":\"c\"}"), visit) || !slices.Equal(seen, []string{"a", "stop"}) {
		t.Fatalf("seen %v", seen)
	}
	if HeadObjects([]byte("{x\n{y\n{z\n"), visit) {
		t.Fatal("three lines that are not JSON pass as a JSONL head")
	}
	seen = nil
	if !HeadObjects([]byte(strings.Repeat("{\"type\":\"a\"}\n", 30)), visit) || len(seen) != 20 {
		t.Fatalf("saw %d lines of a long head, want 20", len(seen))
	}
}

// Unknown lines next to each other join into one record; a blank line, a
// known line or the end of a read ends the run. Line numbers, Write and
// Rewrite see every line.
func TestDecodeJoinsUnknownLines(t *testing.T) {
	u := `{"type":"u"}` + "\n"
	src := `{"type":"a"}` + "\n" + u + u + u + "\n" + u + `{"type":"a"}` + "\n" + u + u + "not json\n"
	whole := decodeAll(src)
	var raws []string
	for _, r := range whole.Records {
		raws = append(raws, string(r.Raw))
	}
	uu := strings.TrimSuffix(u, "\n")
	want := []string{`{"type":"a"}`, uu + "\n" + uu + "\n" + uu, uu, `{"type":"a"}`, uu + "\n" + uu, "not json"}
	if !slices.Equal(raws, want) {
		t.Fatalf("records %q, want %q", raws, want)
	}
	if got := string(WriteRecords(whole)); got != src {
		t.Fatalf("write %q", got)
	}
	// Cut inside the runs: the problem after them names the same line.
	cut := len(`{"type":"a"}`+"\n") + 2*len(u)
	pieces := decodeAll(src[:cut], src[cut:])
	if len(pieces.Records) != len(whole.Records)+1 || pieces.Problems[0].Line != 10 || whole.Problems[0].Line != 10 {
		t.Fatalf("%d records in pieces, problems %+v and %+v", len(pieces.Records), pieces.Problems, whole.Problems)
	}
	if f := pieces.Frame.(*Frame); f.Lines(len(pieces.Records)) != 10 {
		t.Fatalf("the frame covers %d lines, want 10", f.Lines(len(pieces.Records)))
	}
	out, err := Rewrite(whole, func(i int, r transcript.Record) ([]byte, error) {
		if string(r.Raw) == uu {
			return []byte(`{"type":"U"}`), nil
		}
		return nil, nil
	})
	if err != nil || string(out) != strings.ReplaceAll(src, uu, `{"type":"U"}`) {
		t.Fatalf("rewrite %q, %v", out, err)
	}
}
