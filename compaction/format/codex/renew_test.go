package codex

import (
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// Renew names the new session in the first session_meta line only.
func TestRenewChangesOnlyTheSessionMeta(t *testing.T) {
	formattest.RenewFixtures(t, Codec{}, "*.jsonl", "019e6b2c-3d4e-7f5a-8b6c-7d8e9f0a1b2c", func(t *testing.T, _ []byte, _ *transcript.Transcript, changed int) {
		if changed != 1 {
			t.Fatalf("%d lines renewed, want the session_meta alone", changed)
		}
	})
}
