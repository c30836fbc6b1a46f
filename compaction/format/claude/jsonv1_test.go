package claude

import (
	"encoding/json"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
)

// FuzzDecodeAgreesWithEncodingJSON holds the decoder the codec reads
// records with to encoding/json (formattest.DecodersAgree).
func FuzzDecodeAgreesWithEncodingJSON(f *testing.F) {
	formattest.SeedFiles(f, "testdata/*.jsonl", true)
	for _, s := range []string{`{"type":"user","UUID":"x","uuid":"y"}`, `{"type":"user","type":"assistant"}`, "{\"message\":{\"content\":\"a\xffb\"}}", `{"parentUuid":null}`, `{"message":5}`, `{"isSidechain":"yes"}`, `[1,2]`, `{"a":1}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		formattest.DecodersAgree(t, raw, func() any { return new(line) })
		formattest.DecodersAgree(t, raw, func() any { return new(apiMessage) })
		formattest.DecodersAgree(t, raw, func() any { return new([]json.RawMessage) })
	})
}
