package codex

import (
	"encoding/json"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
)

// FuzzDecodeAgreesWithEncodingJSON holds the decoder rollouts are read
// with to encoding/json (formattest.DecodersAgree), partial results of
// the lenient decoding included.
func FuzzDecodeAgreesWithEncodingJSON(f *testing.F) {
	formattest.SeedFiles(f, "testdata/*.jsonl", true)
	for _, s := range []string{`{"type":"response_item","payload":{"type":"message","role":5,"content":[{"type":"input_text","text":"x"}]}}`,
		`{"timestamp":1,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":"many"}}}}`,
		`{"type":"message","content":"a\xffb"}`, `[{"type":"output_text","text":"a"},{"type":"input_image","image_url":7}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		formattest.DecodersAgree(t, raw, func() any { return new(envelope) })
		formattest.DecodersAgree(t, raw, func() any { return new(item) })
		formattest.DecodersAgree(t, raw, func() any { return new(event) })
		formattest.DecodersAgree(t, raw, func() any { return new(compacted) })
		formattest.DecodersAgree(t, raw, func() any { return new(sessionMeta) })
		formattest.DecodersAgree(t, raw, func() any { return new(turnContext) })
		formattest.DecodersAgree(t, raw, func() any { return new(block) })
		formattest.DecodersAgree(t, raw, func() any { return new([]json.RawMessage) })
	})
}
