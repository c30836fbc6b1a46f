package jsonx

import (
	"reflect"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

func TestPartsByRecordGroupsInOrder(t *testing.T) {
	a := transcript.Part{Kind: transcript.PartText, Text: "a", Ref: transcript.Ref{Record: 0}}
	b := transcript.Part{Kind: transcript.PartToolCall, Text: "b", Ref: transcript.Ref{Record: 2, Block: 0}}
	c := transcript.Part{Kind: transcript.PartText, Text: "c", Ref: transcript.Ref{Record: 2, Block: 1}}
	d := transcript.Part{Kind: transcript.PartText, Text: "d", Ref: transcript.Ref{Record: 3}}
	tr := &transcript.Transcript{Messages: []transcript.Message{{Parts: []transcript.Part{a, b}}, {Parts: []transcript.Part{c, d}}}}
	got := PartsByRecord(tr)
	want := map[int][]transcript.Part{0: {a}, 2: {b, c}, 3: {d}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PartsByRecord = %+v, want %+v", got, want)
	}
	for rec, n := range SourceParts(tr) {
		if len(got[rec]) != n {
			t.Errorf("record %d: %d parts grouped, SourceParts counts %d", rec, len(got[rec]), n)
		}
	}
}
