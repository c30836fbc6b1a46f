package claude

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// Renew renews every line that names the session, and only those.
func TestRenewChangesOnlyTheSessionLines(t *testing.T) {
	formattest.RenewFixtures(t, Codec{}, "*.jsonl", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", func(t *testing.T, src []byte, tr *transcript.Transcript, changed int) {
		names := regexp.MustCompile(`"sessionId":\s*"` + regexp.QuoteMeta(tr.Meta.SessionID) + `"`)
		naming := 0
		for l := range bytes.Lines(src) {
			if names.Match(l) {
				naming++
			}
		}
		if changed != naming || naming == 0 {
			t.Fatalf("%d lines renewed, %d name the session", changed, naming)
		}
	})
}
