package gauge

import (
	"strings"
	"testing"
	"time"
)

func TestHealthOf(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 1, 7, 37, 0, time.UTC)
	at := func(d time.Duration, after int) CompactionPoint {
		return CompactionPoint{At: t0.Add(d), Before: 20_000, After: after}
	}
	tests := []struct {
		name    string
		points  []CompactionPoint
		loop    bool
		warning string
	}{
		{"none", nil, false, ""},
		{"two an hour apart", []CompactionPoint{at(0, 30_000), at(time.Hour, 30_000)}, false, ""},
		{"three within 15 minutes", []CompactionPoint{at(0, 30_000), at(7*time.Minute, 30_000), at(14*time.Minute, 30_000)}, true, "3 times within 14 min"},
		{"three over 16 minutes", []CompactionPoint{at(0, 30_000), at(8*time.Minute, 30_000), at(16*time.Minute, 30_000)}, false, ""},
		{"70 % full right after", []CompactionPoint{at(0, 140_000)}, true, "still 70 % full"},
		{"69 % full right after", []CompactionPoint{at(0, 138_000)}, false, ""},
	}
	for _, tt := range tests {
		h := HealthOf(tt.points, 200_000)
		if h.Loop != tt.loop || !strings.Contains(h.Warning, tt.warning) || h.Compactions != len(tt.points) {
			t.Errorf("%s: loop %v, warning %q; want %v, %q", tt.name, h.Loop, h.Warning, tt.loop, tt.warning)
		}
	}
}
