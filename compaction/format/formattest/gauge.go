package formattest

import (
	"testing"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// LiveGauge is the gauge of tr as the daemon shows it (gauge.CountLive,
// no options), counting with the tokenizer encoding; it fails the test
// when either cannot be made.
func LiveGauge(t *testing.T, tr *transcript.Transcript, encoding string) gauge.Gauge {
	t.Helper()
	c, err := tokens.New(encoding)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gauge.CountLive(t.Context(), c, tr, gauge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
