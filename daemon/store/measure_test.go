package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// TestHistoryOf1000VersionsIsFast guards the listing's complexity: the
// CPU time (not the wall clock, which measures the neighbours on a shared
// machine) of listing 1,000 versions stays within 10× the 50 ms bar that
// `make bench` holds the wall time to ("history of 1000 versions"). A
// query per version or a scan per version lands far above it.
func TestHistoryOf1000VersionsIsFast(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.EnsureConversation(ctx, Conversation{Key: "session:history", SourcePath: "/history.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	var parent int64
	for i := 0; i < n; i++ {
		content := []byte(fmt.Sprintf(`{"n":%d}`+"\n", i))
		v, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindCompact, ParentID: parent,
			Content: content, Cuts: LineCuts(content), Report: map[string]any{"tokensBefore": 1000, "steps": []string{"x"}}})
		if err != nil {
			t.Fatal(err)
		}
		parent = v.ID
	}
	cpu0, measured := processCPUTime()
	start := time.Now()
	vs, err := s.Versions(ctx, c.ID)
	wall := time.Since(start)
	cpu1, _ := processCPUTime()
	if err != nil || len(vs) != n {
		t.Fatalf("listed %d versions of %d: %v", len(vs), n, err)
	}
	t.Logf("history of %d versions: %v wall, %v CPU", n, wall, cpu1-cpu0)
	if measured && cpu1-cpu0 > 500*time.Millisecond {
		t.Errorf("listing %d versions took %v of CPU; want far below 500 ms (the bench's bar is 50 ms of wall time)", n, cpu1-cpu0)
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
