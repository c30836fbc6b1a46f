package gauge

import (
	"fmt"
	"strings"
)

// AutoCompact is where the agent compacts the conversation on its own: the
// context size at which it does, computed the way the agent computes it
// from its own settings (daemon/agents/<name> reads them), and where that
// figure comes from. The gauge marks it on the bar and warns before it.
type AutoCompact struct {
	// At is the context size, in tokens, from which the agent compacts
	// before its next request; 0 when Disabled or unknown.
	At int `json:"at"`
	// Window is the window the agent measures against when it is not the
	// model's (Claude Code's auto-compact window, Gemini CLI's fixed
	// 1,048,576); 0 when it is the gauge's.
	Window int `json:"window,omitempty"`
	// Disabled: the agent's auto-compaction is switched off; the
	// conversation grows until the API refuses it.
	Disabled bool `json:"disabled,omitempty"`
	// Source is where the deciding setting lives: "default" when nothing
	// is set, else the Source of the last of Settings ("env", "user
	// settings", "project settings", "config.toml", …).
	Source string `json:"source"`
	// Settings are the settings that entered the figure, in the order the
	// agent applies them.
	Settings []Setting `json:"settings,omitempty"`
	// Rule is the agent's formula with the values filled in
	// ("min(40 % × 80k, 80k − 13k)").
	Rule string `json:"rule,omitempty"`
	// Note says what the user set that the agent ignores, and why.
	Note string `json:"note,omitempty"`
	// Estimated: the agent's settings were not read (no reader for this
	// agent); At is compactd's table's typical ratio of the window.
	Estimated bool `json:"estimated,omitempty"`
}

// A Setting is one value of the agent's configuration that entered its
// threshold.
type Setting struct {
	// Name is the key as the user writes it ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
	// "autoCompactWindow", "model_auto_compact_token_limit").
	Name  string `json:"name"`
	Value string `json:"value"`
	// Source is where it was read: "env" (the agent's environment), "user
	// settings", "project settings", "local settings", "managed settings",
	// "config.toml", "project config.toml", …
	Source string `json:"source"`
	// File is the file it was read from; "" for the environment.
	File string `json:"file,omitempty"`
}

func (s Setting) String() string { return s.Name + "=" + s.Value + " (" + s.Source + ")" }

// Known reports whether the agent's point is known: a threshold or
// switched off.
func (a *AutoCompact) Known() bool { return a != nil && (a.At > 0 || a.Disabled) }

// Describe says in a few words where the agent compacts, for status bars
// and messages: "auto-compacts at 140k (env)", "auto-compaction off (user
// settings)".
func (a *AutoCompact) Describe() string {
	switch {
	case a == nil || !a.Known():
		return ""
	case a.Disabled:
		return "auto-compaction off (" + a.Source + ")"
	case a.Estimated:
		return "auto-compacts at about " + short(a.At)
	}
	return "auto-compacts at " + short(a.At) + " (" + a.Source + ")"
}

// Origin lists where the figure came from in one line: "CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000 (env), CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=40 (env)", or "default".
func (a *AutoCompact) Origin() string {
	if a == nil {
		return ""
	}
	if len(a.Settings) == 0 {
		if a.Estimated {
			return "compactd's typical figure for this agent (its settings are not read)"
		}
		return "the agent's default"
	}
	parts := make([]string, len(a.Settings))
	for i, s := range a.Settings {
		parts[i] = s.String()
	}
	return strings.Join(parts, ", ")
}

// short renders a token count as the gauge's text does: 950, 1.2k, 140k, 1.05M.
func short(n int) string {
	trim := func(s string) string {
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return trim(fmt.Sprintf("%.1f", float64(n)/1000)) + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	default:
		return trim(fmt.Sprintf("%.2f", float64(n)/1e6)) + "M"
	}
}

// Short renders a token count compactly (950, 1.2k, 140k, 1.05M), the
// way every surface shows the gauge.
func Short(n int) string { return short(n) }

// typical is compactd's table's figure for an agent whose settings it does
// not read: ratio of the window.
func typical(ratio float64, window int) *AutoCompact {
	if ratio <= 0 || window <= 0 {
		return nil
	}
	return &AutoCompact{At: int(ratio * float64(window)), Source: "typical", Estimated: true,
		Rule: fmt.Sprintf("about %.1f %% of the window", 100*ratio)}
}

// A Mark is the agent's own compaction point as every view shows it: on
// the bar, in the status line, in `gauge --json` and the editor's gauge.
type Mark struct {
	AutoCompact
	// Ratio is where the mark sits on the bar (At over the gauge's
	// window); Buffer the tokens left before it, negative past it.
	Ratio  float64 `json:"ratio"`
	Buffer int     `json:"buffer"`
	// Text says it in a few words: "auto-compacts at 140k (env)".
	Text string `json:"text"`
}

// Mark is the gauge's mark of the agent's compaction point; nil when the
// point is unknown.
func (g *Gauge) Mark() *Mark { return MarkOf(g.AutoCompact, g.Tokens, g.ContextWindow) }

// MarkOf places a compaction point on a gauge of tokens in window.
func MarkOf(a *AutoCompact, tokens, window int) *Mark {
	if !a.Known() {
		return nil
	}
	m := &Mark{AutoCompact: *a, Text: a.Describe()}
	if a.At > 0 {
		m.Buffer = a.At - tokens
		if window > 0 {
			m.Ratio = float64(a.At) / float64(window)
		}
	}
	return m
}
