package claude

import (
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestStripKeepsSmallResultsAndReportsLostContents: strip-tool-results
// leaves a result below its floor as it is ("ok: 2 tests passed …" is
// what mattered of that run), and when dedup-tools and strip-tool-results
// together remove every copy of a file's contents the retention report
// says which file the agent would have to read again.
func TestStripKeepsSmallResultsAndReportsLostContents(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "last copy", formattest.Fixture(t, "last-copy-of-a-read.jsonl"))
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	v, rep, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: []string{"dedup-tools", "strip-tool-results"}})
	if err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, m := range v.Messages {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolResult {
				results = append(results, p.Text)
			}
		}
	}
	if !slices.Contains(results, "ok  \tgithub.com/dev/ledger/internal/reconcile\t0.214s\tcoverage: 81.4% of statements\nok: 2 tests passed (TestRetryLimit, TestRetryBackoff)") {
		t.Fatalf("the short test result was replaced: %q", results)
	}
	if got := rep.Retention.ContentsLost; !slices.Contains(got, "/home/dev/src/ledger/internal/config/config.go") || !slices.Contains(got, "/home/dev/src/ledger/internal/reconcile/settle.go") {
		t.Fatalf("retention %+v: want config.go and settle.go named as files whose contents are gone", rep.Retention)
	}
	if rep.Retention.Score >= 1 && len(rep.Retention.ContentsLost) == 0 {
		t.Fatal("the report says everything was kept")
	}
	for _, f := range rep.Retention.ContentsLost {
		if strings.Contains(f, "Edit") {
			t.Fatalf("an edit is no read: %q", f)
		}
	}
}
