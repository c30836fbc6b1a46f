package strategy

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// -update rewrites the goldens. Several test helpers linked into one
// test binary each want it, so whoever comes first defines it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite testdata goldens")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updating() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden (run with -update after checking):\n%s", name, got)
	}
}

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
		{"summarize", Options{Counts: counts, Strategies: []string{"dedup-tools", "summarize"}, BufferTurns: 1, Summarizer: extractiveSummarizer()}},
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
			golden(t, tc.name+".diff.md", diff.Bytes())
			golden(t, tc.name+".report.txt", report.Bytes())
		})
	}
}
