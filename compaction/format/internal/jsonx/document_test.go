package jsonx

import (
	"bytes"
	"errors"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

func TestScanArrayDocument(t *testing.T) {
	src := []byte("\xef\xbb\xbf{\"info\": {\"a\": [1, 2.5e3, -0]}, \"messages\": [ {\"x\": \"\\u00e9\xff\"} ,\n  [] ], \"z\": null}\n")
	doc, err := ScanArrayDocument(src, "input", "messages")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Key != "messages" || len(doc.Elements) != 2 || len(doc.Members) != 3 {
		t.Fatalf("doc %+v", doc)
	}
	if got := string(src[doc.Elements[0].Start:doc.Elements[0].End]); got != "{\"x\": \"\\u00e9\xff\"}" {
		t.Fatalf("element 0 = %q", got)
	}
	raws := [][]byte{src[doc.Elements[0].Start:doc.Elements[0].End], src[doc.Elements[1].Start:doc.Elements[1].End]}
	out, err := GapsOf(src, doc.Elements).Join(raws)
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("gaps do not rebuild the source: %v", err)
	}
	recs := []transcript.Record{{Raw: raws[0]}, {Raw: raws[1]}}
	if out, err := GapsOf(src, doc.Elements).JoinRecords(recs); err != nil || !bytes.Equal(out, src) {
		t.Fatalf("gaps and records do not rebuild the source: %v", err)
	}
	if _, err := GapsOf(src, doc.Elements).JoinRecords(recs[:1]); err == nil {
		t.Fatal("one record for two places joined without error")
	}
	elems := []Elem{{Bytes: raws[0], Source: 0}, {Bytes: raws[1], Source: 1}}
	if got := Splice(src, []Edit{{Span: doc.Array, Bytes: doc.ArrayBytes(src, LayoutOf(src, doc), elems)}}); !bytes.Equal(got, src) {
		t.Fatalf("unchanged array rebuilt differently:\n%s", got)
	}
}

func TestScanErrorsNameThePlace(t *testing.T) {
	for _, tc := range []struct {
		src  string
		off  int
		line int
	}{
		{"[1,\n 2,\n x]", 9, 3},
		{"[\"abc", 5, 1},
		{"{\"messages\": [1}", 15, 1},
		{"[01]", 2, 1},
		{"[\"a\\q\"]", 3, 1},
		{"[tru", 4, 1},
	} {
		_, err := ScanArrayDocument([]byte(tc.src), "messages")
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tc.off || se.Line != tc.line {
			t.Errorf("%q: err = %v, want offset %d line %d", tc.src, err, tc.off, tc.line)
		}
	}
}

func TestLayoutOfPrettyArray(t *testing.T) {
	src := []byte("{\n    \"messages\": [\n        {\n            \"a\": 1\n        },\n        {\"b\": 2}\n    ]\n}")
	doc, err := ScanArrayDocument(src, "messages")
	if err != nil {
		t.Fatal(err)
	}
	l := LayoutOf(src, doc)
	if !l.Pretty || l.Prefix != "        " || l.Indent != "    " || l.Sep != ",\n        " {
		t.Fatalf("layout %+v", l)
	}
	if got := string(l.Format([]byte(`{"c":[1]}`))); got != "{\n            \"c\": [\n                1\n            ]\n        }" {
		t.Fatalf("format = %q", got)
	}
}

func TestPeekTruncatedHead(t *testing.T) {
	p := Peek([]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_res`))
	if p.Bad || p.Complete {
		t.Fatalf("peek %+v", p)
	}
	recs, wrapper := RecordsOf(p.Value, "messages")
	if wrapper["model"] != "m" || len(recs) != 1 {
		t.Fatalf("recs %v wrapper %v", recs, wrapper)
	}
	block := recs[0].(map[string]any)["content"].([]any)[0].(map[string]any)
	if block["type"] != "tool_res" {
		t.Fatalf("partial string %v", block["type"])
	}
	if q := Peek([]byte("{\"a\":1}\n{\"a\":2}\n")); !q.Trailing {
		t.Fatal("JSON Lines not flagged as trailing data")
	}
	if q := Peek([]byte("# not json")); !q.Bad {
		t.Fatal("markdown not flagged bad")
	}
}

func TestMarkMalformedKeepsTheRecord(t *testing.T) {
	raw := []byte(`"stray"`)
	tr := &transcript.Transcript{Records: []transcript.Record{{Raw: []byte("{}")}, {Raw: raw, Start: 7}}}
	MarkMalformed(tr, 1, "message", "not a JSON object")
	r := tr.Records[1]
	if r.Kind != transcript.RecordMalformed || r.Err != "not a JSON object" || !bytes.Equal(r.Raw, raw) || tr.Skipped != 1 {
		t.Fatalf("record %+v, skipped %d", r, tr.Skipped)
	}
	if len(tr.Problems) != 1 || tr.Problems[0].Record != 1 || tr.Problems[0].Message != "message at byte 7: not a JSON object" {
		t.Fatalf("problems %+v", tr.Problems)
	}
}
