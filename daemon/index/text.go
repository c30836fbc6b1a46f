package index

import (
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/gauge"
)

// Level is how full a context window is.
type Level string

const (
	LevelOK       Level = "ok"
	LevelWarn     Level = "warn"
	LevelCritical Level = "critical"
)

// Source says where a gauge's figure comes from.
const (
	// SourceUsage: the API's last reported usage plus an estimate of what followed.
	SourceUsage = string(gauge.SourceReported)
	// SourceEstimate: no usage was recorded; the figure is counted with BPE alone.
	SourceEstimate = string(gauge.SourceEstimate)
)

// longestPrefix returns the value of the longest key of m that prefixes
// model (case-insensitive), 0 if none.
func longestPrefix(m map[string]int, model string) int {
	best, bestLen := 0, -1
	model = strings.ToLower(model)
	for k, v := range m {
		if strings.HasPrefix(model, strings.ToLower(k)) && len(k) > bestLen {
			best, bestLen = v, len(k)
		}
	}
	return best
}

// GaugeText renders a gauge the way status bars show it: "156k / 200k · 78 %".
func GaugeText(tokens, window int) string {
	pct := 0
	if window > 0 {
		pct = int(float64(tokens)*100/float64(window) + 0.5)
	}
	return fmt.Sprintf("%s / %s · %d %%", Short(tokens), Short(window), pct)
}

// Short renders a token count compactly: 950, 1.2k, 156k, 1.05M.
func Short(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1000)) + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	default:
		return trimZero(fmt.Sprintf("%.2f", float64(n)/1e6)) + "M"
	}
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
