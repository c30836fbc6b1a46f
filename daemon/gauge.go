package daemon

import (
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
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
	SourceUsage = "usage"
	// SourceEstimate: no usage was recorded; the figure is counted with BPE alone.
	SourceEstimate = "estimate"
)

// AutoCompactRatio is where an agent compacts by itself, 0 when unknown.
// Claude Code compacts at about 83.5 % of the window, Codex at 90 %.
func AutoCompactRatio(f transcript.Format) float64 {
	switch f {
	case transcript.FormatClaudeCode:
		return 0.835
	case transcript.FormatCodex:
		return 0.90
	case transcript.FormatCline:
		return 0.75
	}
	return 0
}

// contextWindows is the fallback registry of context windows by model name
// prefix, longest prefix wins; settings override it.
var contextWindows = map[string]int{
	"claude":            200_000,
	"claude-sonnet-4-5": 200_000,
	"gpt-4o":            128_000,
	"gpt-4.1":           1_047_576,
	"gpt-5":             272_000,
	"o3":                200_000,
	"o4":                200_000,
	"gemini":            1_048_576,
	"codex":             272_000,
}

// DefaultWindow is used when nothing names the model's window.
const DefaultWindow = 200_000

// windowFor picks the context window: the explicit override, a per-model
// override, what the transcript reported, the registry, the default.
func windowFor(s Settings, model string, reported int) int {
	if s.ContextWindow > 0 {
		return s.ContextWindow
	}
	if w := longestPrefix(s.Windows, model); w > 0 {
		return w
	}
	if reported > 0 {
		return reported
	}
	if w := longestPrefix(contextWindows, model); w > 0 {
		return w
	}
	return DefaultWindow
}

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

// levelFor classifies ratio. The critical point is the lower of the
// configured one and the agent's own auto-compact point, so the warning
// comes before the agent compacts by itself.
func levelFor(s Settings, f transcript.Format, ratio float64) Level {
	crit := s.CriticalRatio
	if a := AutoCompactRatio(f); a > 0 && a < crit {
		crit = a
	}
	switch {
	case ratio >= crit:
		return LevelCritical
	case ratio >= s.WarnRatio:
		return LevelWarn
	}
	return LevelOK
}

// gaugeTokens computes the calibrated figure: the last API-reported usage
// plus the counted tokens of every message after it; without usage, the
// counted total.
func gaugeTokens(t *transcript.Transcript, msgTokens []int) (int, string) {
	last := t.LastUsage()
	if last < 0 {
		total := 0
		for _, n := range msgTokens {
			total += n
		}
		return total, SourceEstimate
	}
	n := t.Messages[last].Usage.ContextTokens()
	for _, c := range msgTokens[last+1:] {
		n += c
	}
	return n, SourceUsage
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
