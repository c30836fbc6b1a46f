package strategy

import (
	"bytes"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
)

func TestRenderGoldens(t *testing.T) {
	src := ledgerSession()
	c := counter(t)
	counts, err := CountTranscript(t.Context(), src, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"auto", Options{Counts: counts}},
		{"summarize", Options{Counts: counts, Strategies: []string{"dedup-tools", "summarize"}, BufferTurns: new(1), Summarizer: extractiveSummarizer()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, rep, err := Run(t.Context(), src, c, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var diff, report bytes.Buffer
			if err := RenderDiff(&diff, v, counts); err != nil {
				t.Fatal(err)
			}
			if err := RenderReport(&report, rep); err != nil {
				t.Fatal(err)
			}
			formattest.Golden(t, tc.name+".diff.md", diff.Bytes())
			formattest.Golden(t, tc.name+".report.txt", report.Bytes())
		})
	}
}
