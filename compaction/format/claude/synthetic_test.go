package claude

import (
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
)

// TestSyntheticRecordNeverCalibrates: after an API error Claude Code writes
// a "<synthetic>" assistant record with all-zero usage. It reports nothing
// about the context, so the gauge calibrates on the last real response
// (4 + 38,004 + 1,911 + 233 tokens) plus the count of what follows it,
// never on 0.
func TestSyntheticRecordNeverCalibrates(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "synthetic", formattest.Fixture(t, "synthetic-api-error.jsonl"))
	last := tr.Messages[len(tr.Messages)-1]
	if last.Model != "<synthetic>" {
		t.Fatalf("last message model %q, want the synthetic record", last.Model)
	}
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := counter.CountMessages(t.Context(), tr.Messages)
	if err != nil {
		t.Fatal(err)
	}
	g := gauge.Compute(tr, counts, gauge.Options{})
	if g.Reported != 40_152 || g.Tokens <= g.Reported || g.Source != gauge.SourceReported {
		t.Fatalf("gauge %d tokens (reported %d, %s), want the last real usage 40,152 plus the tail", g.Tokens, g.Reported, g.Source)
	}
	if last.Usage != nil {
		t.Fatalf("synthetic record carries usage %+v", *last.Usage)
	}
	if g.Model != "claude-sonnet-4-5-20250929" {
		t.Fatalf("model %q", g.Model)
	}
}
