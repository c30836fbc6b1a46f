package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTableRowsWithBarFirstAndVerdicts(t *testing.T) {
	var out bytes.Buffer
	writeTable(&out, []row{
		{Section: "a", Name: "raw time", Value: "3 ms"},
		{Section: "a", Name: "ratio", Value: "1.2×", Anchor: "≤ 1.5", Pass: true},
		{Section: "b", Name: "speed | ratio", Value: "0.5×", Anchor: "≥ 1.0", Pass: false},
	})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 7 {
		t.Fatalf("table:\n%s", out.String())
	}
	if !strings.Contains(lines[2], "| ratio |") || !strings.HasSuffix(lines[2], "| pass |") {
		t.Errorf("first row should be the passing ratio: %q", lines[2])
	}
	if !strings.Contains(lines[3], `speed \| ratio`) || !strings.HasSuffix(lines[3], "| FAIL |") {
		t.Errorf("second row should be the failing, escaped ratio: %q", lines[3])
	}
	if !strings.HasSuffix(lines[4], "| info |") {
		t.Errorf("raw figure should come last, informational: %q", lines[4])
	}
	if lines[6] != "1 pass, 1 fail, 1 informational" {
		t.Errorf("summary %q", lines[6])
	}
}

func TestMedian(t *testing.T) {
	if got := median([]time.Duration{5, 1, 3}); got != 3 {
		t.Errorf("median = %v", got)
	}
	if got := median([]time.Duration{4, 1, 3, 2}); got != 2 {
		t.Errorf("median = %v", got)
	}
}

func TestUnknownSectionIsUsageError(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-only", "nope"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errb.String(), "workspace") || !strings.Contains(errb.String(), "tokens") {
		t.Errorf("error should list the sections: %q", errb.String())
	}
}

func TestTenKBEndsOnLine(t *testing.T) {
	lines := []byte(strings.Repeat(strings.Repeat("x", 999)+"\n", 30))
	got := tenKB(lines)
	if len(got) < appendBytes || got[len(got)-1] != '\n' || len(got) > appendBytes+1000 {
		t.Fatalf("tenKB gave %d bytes", len(got))
	}
}

func TestPercentileNearestRank(t *testing.T) {
	d := []time.Duration{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.9, 9}, {1, 10}, {0, 1}} {
		if got := percentile(slices.Clone(d), tc.q); got != tc.want {
			t.Errorf("percentile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := percentile(nil, 0.9); got != 0 {
		t.Errorf("percentile of nothing = %v", got)
	}
}

func TestServerEnvHidesTheRealHome(t *testing.T) {
	t.Setenv("HOME", "/real/home")
	t.Setenv("CODEX_HOME", "/real/codex")
	t.Setenv("XDG_CONFIG_HOME", "/real/config")
	cfg := &config{TempDir: t.TempDir()}
	env := serverEnv(cfg, filepath.Join(cfg.TempDir, "s.db"))
	seen := map[string]int{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COMPACTD_STORE", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME":
			seen[k]++
			if !strings.HasPrefix(v, cfg.TempDir) {
				t.Errorf("%s=%s is outside the bench's temp dir", k, v)
			}
		}
	}
	for _, k := range []string{"HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COMPACTD_STORE", "XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
		if seen[k] != 1 {
			t.Errorf("%s set %d times", k, seen[k])
		}
	}
}

func TestRepoRootFromPackageDir(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "compactd-bench", "main.go")); err != nil {
		t.Errorf("repoRoot %s is not the compactd repository: %v", root, err)
	}
}

// TestSummarySectionMeasures runs the cheapest real section end to end:
// it must produce its figures from a real summary, all informational (the
// summarizer against its own budget and fact list cannot fail).
func TestSummarySectionMeasures(t *testing.T) {
	if testing.Short() {
		t.Skip("generates ~100k-token sessions")
	}
	rows, err := benchSummary(context.Background(), &config{Quick: true, TempDir: t.TempDir(), Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Anchor != "" {
			t.Errorf("row %q is held to a bar it cannot fail", r.Name)
		}
		if r.Value == "" {
			t.Errorf("row %q has no value", r.Name)
		}
	}
	if len(rows) < 3 {
		t.Errorf("%d rows, want size, time and retention: %+v", len(rows), rows)
	}
}
