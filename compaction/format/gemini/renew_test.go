package gemini

import (
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
)

// Renew names the new session in the recording's metadata lines only.
func TestRenewChangesOnlyTheMetadata(t *testing.T) {
	for _, name := range formattest.Fixtures(t, "*.jsonl") {
		if formattest.IsGolden(name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if changed := formattest.Renewed(t, Codec{}, formattest.Read(t, name), "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"); changed == 0 {
				t.Fatal("no line renewed")
			}
		})
	}
}
