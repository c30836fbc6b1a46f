package main

import (
	"bytes"
	"context"
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
	if !strings.Contains(errb.String(), "append") || !strings.Contains(errb.String(), "tokens") {
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
