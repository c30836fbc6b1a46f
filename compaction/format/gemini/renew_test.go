package gemini

import (
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// Renew names the new session in the recording's metadata lines only.
func TestRenewChangesOnlyTheMetadata(t *testing.T) {
	formattest.RenewFixtures(t, Codec{}, "*.jsonl", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", func(t *testing.T, _ []byte, _ *transcript.Transcript, changed int) {
		if changed == 0 {
			t.Fatal("no line renewed")
		}
	})
}
