package anthropic

import (
	"testing"

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
