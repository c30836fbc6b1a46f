package codex

import (
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
)

// Renew names the new session in the first session_meta line only.
func TestRenewChangesOnlyTheSessionMeta(t *testing.T) {
	for _, name := range formattest.Fixtures(t, "*.jsonl") {
		if formattest.IsGolden(name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if changed := formattest.Renewed(t, Codec{}, formattest.Read(t, name), "019e6b2c-3d4e-7f5a-8b6c-7d8e9f0a1b2c"); changed != 1 {
				t.Fatalf("%d lines renewed, want the session_meta alone", changed)
			}
		})
	}
}
