package anthropic

import (
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/compactd/compactd/compaction/format/formattest"
)

// FuzzBlocksDecodeAgreesWithEncodingJSON holds the decoder blocks are read
// with to encoding/json (formattest.DecodersAgree).
func FuzzBlocksDecodeAgreesWithEncodingJSON(f *testing.F) {
	formattest.SeedFiles(f, "testdata/*.json", false)
	for _, s := range []string{
		`{"type":"text","text":"hi"}`, `{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a.go"}}`,
		`{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}],"is_error":true}`,
		`[{"type":"text","text":"a"},{"type":"thinking","thinking":"b","signature":"c"}]`, "{\"type\":\"text\",\"text\":\"a\xffb\"}",
		`{"Type":"text","TEXT":"case"}`, `{"type":"text","type":"image"}`, `{"is_error":"no"}`, `"just a string"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		formattest.DecodersAgree(t, raw, func() any { return new(wireBlock) })
		formattest.DecodersAgree(t, raw, func() any { return new([]wireBlock) })
		formattest.DecodersAgree(t, raw, func() any { return new(wireMessage) })
		formattest.DecodersAgree(t, raw, func() any { return new(string) })
	})
}

// FuzzContentAgreesWithDecodeContent holds Content, decoded as a member
// is read, to DecodeContent on the member's bytes: the same parts, and an
// error for the same values (the member is read whole whatever it holds).
func FuzzContentAgreesWithDecodeContent(f *testing.F) {
	formattest.SeedFiles(f, "testdata/*.json", false)
	for _, s := range []string{`null`, `"text"`, `5`, `{"a":1}`, `[]`, `[1,{"type":5},{"type":"text","text":"x"}]`, "\"a\xffb\"", `"a\ud800b"`, ` [ {"type":"text","text":"y"} ] `,
		`[{"type":"tool_result","tool_use_id":"t","content":"out"},{"type":"tool_result","content":null},{"type":"tool_result"}]`,
		`[{"type":"tool_result","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]}]`,
		`[{"type":"tool_result","content":[1]},{"type":"tool_result","content":{"a":1}},{"type":"tool_result","content": 5 ,"content":"x"}]`,
		`[{"type":"web_search_tool_result","content":null},{"type":"web_search_tool_result","content" : [ 1 , 2 ] },{"type":"x_tool_result"}]`,
		`[ {"type":"mystery","data":1} , {"type":"text","text":"t","content":"c"},{"Type":"text","TEXT":"u"}, 7, "s", [], {"type":""}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got struct {
			C Content `json:"c"`
		}
		if !jsontext.Value(raw).IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) {
			return
		}
		got.C.Rec = 4
		if err := jsonv1.Unmarshal(append(append([]byte(`{"c":`), raw...), '}'), &got); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		want, wantErr := DecodeContent(raw, 4)
		if (got.C.Err == nil) != (wantErr == nil) || !reflect.DeepEqual(got.C.Parts, want) {
			t.Fatalf("%q: %+v (error %v), DecodeContent %+v (error %v)", raw, got.C.Parts, got.C.Err, want, wantErr)
		}
	})
}
