package claude

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
)

// Renew renews every line that names the session, and only those.
func TestRenewChangesOnlyTheSessionLines(t *testing.T) {
	for _, name := range formattest.Fixtures(t, "*.jsonl") {
		if formattest.IsGolden(name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			src := formattest.Read(t, name)
			tr := formattest.RoundTrip(t, Codec{}, name, src)
			names := regexp.MustCompile(`"sessionId":\s*"` + regexp.QuoteMeta(tr.Meta.SessionID) + `"`)
			naming := 0
			for l := range bytes.Lines(src) {
				if names.Match(l) {
					naming++
				}
			}
			if changed := formattest.Renewed(t, Codec{}, src, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"); changed != naming || naming == 0 {
				t.Fatalf("%d lines renewed, %d name the session", changed, naming)
			}
		})
	}
}
