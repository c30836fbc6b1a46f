package store

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestVersionOverhead checks the content-addressed layout keeps many
// versions cheap; the full 50 MB figure runs with COMPACTD_STRESS=1 or the
// benchmark, a 4 MB transcript in the normal run.
func TestVersionOverhead(t *testing.T) {
	size := 4 << 20
	if os.Getenv("COMPACTD_STRESS") == "1" {
		size = 50 << 20
	}
	m, err := MeasureVersionOverhead(context.Background(), t.TempDir(), size, 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("source %d bytes, 20 versions: store %d bytes = %.2f× the source (%v)", m.SourceBytes, m.StoreBytes, m.Ratio, m.Elapsed)
	if m.Ratio > 1.3 {
		t.Errorf("20 versions cost %.2f× the source; want ≤ 1.3", m.Ratio)
	}
}

func TestHistoryOf1000VersionsIsFast(t *testing.T) {
	d, err := MeasureHistory(context.Background(), t.TempDir(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("history of 1000 versions: %v", d)
	// 50 ms is the target; the bound is loose because CI machines are shared.
	if d > 250*time.Millisecond {
		t.Errorf("history of 1000 versions took %v; want ≤ 50 ms", d)
	}
}

func BenchmarkVersions50MB(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m, err := MeasureVersionOverhead(context.Background(), b.TempDir(), 50<<20, 20)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(m.Ratio, "store/source")
		b.ReportMetric(float64(m.StoreBytes)/(1<<20), "storeMiB")
	}
}

func BenchmarkHistory1000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		d, err := MeasureHistory(context.Background(), b.TempDir(), 1000)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(d.Microseconds())/1000, "ms/history")
	}
}
