// Package gauge computes the calibrated context gauge of a transcript
// (ARCHITECTURE.md, "Counting tokens"): the last usage the provider's API reported, plus our BPE
// estimate of every message after it; where no usage was recorded, the
// estimate alone. It also measures the estimator's error against the
// reported figure and gives per-turn figures for hovers and code lenses.
//
// The package is pure: functions over a parsed transcript and per-message
// token counts. It must not import daemon, lsp, the store, fsnotify or
// anything that reads files or the network.
package gauge

import (
	"context"
	"fmt"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// Level is how full the context window is.
type Level string

const (
	LevelOK       Level = "ok"
	LevelWarn     Level = "warn"
	LevelCritical Level = "critical"
)

// Source says where the gauge's figure comes from.
type Source string

const (
	// SourceReported: the API's last reported usage plus the estimate of
	// the messages after it.
	SourceReported Source = "reported+estimate"
	// SourceEstimate: no usage was recorded; the figure is our count alone.
	SourceEstimate Source = "estimate"
)

// Default level thresholds, as fractions of the context window.
const (
	DefaultWarn     = 0.75
	DefaultCritical = 0.90
)

// Options parameterize a gauge. The zero value uses the built-in registry
// and default thresholds.
type Options struct {
	// Model overrides the transcript's model (the --model flag).
	Model string
	// ContextWindow overrides every other source of the window (--window).
	ContextWindow int
	// Registry resolves models and formats; nil means tokens.NewRegistry().
	Registry *tokens.Registry
	// Warn and Critical are the level thresholds as fractions of the
	// window; 0 means DefaultWarn and DefaultCritical.
	Warn, Critical float64
	// AutoCompact is where the agent compacts on its own, as its agent
	// folder read it from the agent's settings (daemon/agents); nil takes
	// the format's typical ratio from the registry, a value that is not
	// Known ignores the agent's point.
	AutoCompact *AutoCompact
	// Overhead is what the API counted beyond the transcript of the source
	// a fork was compacted from (system prompt, tool definitions, memory
	// files: the source's last reported usage minus our count of what it
	// covered). A fork carries no usage of its own until the agent resumes
	// it, so its gauge is its own count plus this overhead, an estimate.
	// It is ignored once the transcript reports usage itself; 0 adds none.
	Overhead int
	// Stats are the figures of the transcript's messages when the caller
	// carries them forward from the previous parse (transcript.Stats.Advance);
	// nil, or figures of another message count, walks every message: what a
	// live gauge on a growing file must not do on every append.
	Stats *transcript.Stats
}

// stats returns the figures of t, from opts when they describe it.
func (opts Options) stats(t *transcript.Transcript) transcript.Stats {
	if opts.Stats != nil && opts.Stats.Messages == len(t.Messages) {
		return *opts.Stats
	}
	return transcript.StatsOf(t.Messages)
}

func (opts Options) registry() *tokens.Registry {
	if opts.Registry != nil {
		return opts.Registry
	}
	return tokens.NewRegistry()
}

// Resolved is which model and window a gauge uses, and why.
type Resolved struct {
	// Model is the model name used (override, transcript, or the format's default).
	Model string
	// Info is what the registry says of it (the default entry if unknown).
	Info tokens.Model
	// Known is false when the registry did not know the model.
	Known bool
	// ContextWindow is the window the gauge divides by.
	ContextWindow int
	// WindowSource names where ContextWindow came from: "flag",
	// "config", "transcript", "registry" or "default" — or "usage" when
	// a reported usage above the window those gave proved it larger.
	WindowSource string
	// WindowNote says why, for WindowSource "usage".
	WindowNote string
}

// Resolve picks the model and the context window for t.
//
// Model: opts.Model, else the transcript's meta model, else the model of
// its last message naming one, else the format's default model.
//
// Window: opts.ContextWindow (the user said so), else a registry entry the
// user configured (Override), else the window the transcript itself
// reports (Meta.ContextWindow, e.g. Codex model_context_window), else the
// built-in registry, else the registry's default. The agent's own figure
// beats the built-in table because it is the budget the agent actually
// enforces for this session (Codex reports 272k for gpt-5, whose API
// window is 400k with 128k reserved for output) and it stays right when
// our table goes stale; a user's explicit configuration beats both.
// A reported usage above the resolved window means the session runs with
// the model's extended window (Claude's 1M beta), which is then used.
func Resolve(t *transcript.Transcript, opts Options) Resolved {
	return resolve(t, opts, opts.registry(), opts.stats(t))
}

func resolve(t *transcript.Transcript, opts Options, reg *tokens.Registry, st transcript.Stats) Resolved {
	r := Resolved{Model: opts.Model}
	if r.Model == "" {
		r.Model = transcriptModel(t, st)
	}
	if r.Model == "" {
		r.Model = reg.Format(t.Format).DefaultModel
	}
	r.Info, r.Known = reg.Lookup(r.Model)
	switch {
	case opts.ContextWindow > 0:
		r.ContextWindow, r.WindowSource = opts.ContextWindow, "flag"
	case r.Known && r.Info.Override:
		r.ContextWindow, r.WindowSource = r.Info.ContextWindow, "config"
	case t.Meta.ContextWindow > 0:
		r.ContextWindow, r.WindowSource = t.Meta.ContextWindow, "transcript"
	case r.Known:
		r.ContextWindow, r.WindowSource = r.Info.ContextWindow, "registry"
	default:
		r.ContextWindow, r.WindowSource = r.Info.ContextWindow, "default"
	}
	// A request that went through with more tokens than the window holds
	// proves the window larger: the model's extended window, or the next
	// common size (an unknown model assumed at 128k, a newer model the
	// table has too small). What the user set stays.
	if last := st.LastUsage; last >= 0 && r.WindowSource != "flag" && r.WindowSource != "config" {
		if used := t.Messages[last].Usage.ContextTokens(); used > r.ContextWindow {
			was, from := r.ContextWindow, r.WindowSource
			r.ContextWindow = tokens.NextWindow(r.Info, was, used)
			if from == "registry" && r.ContextWindow == r.Info.ExtendedWindow {
				return r // its extended window: a setting of the session, not news
			}
			r.WindowSource = "usage"
			r.WindowNote = fmt.Sprintf("the last API call used %s tokens, more than the %s assumed for %s (%s): the window is at least %s",
				tokens.Thousands(used), tokens.Thousands(was), r.Model, windowOrigin[from], tokens.Thousands(r.ContextWindow))
		}
	}
	return r
}

// windowOrigin says in words where an assumed window came from.
var windowOrigin = map[string]string{
	"transcript": "the window the transcript reports",
	"registry":   "compactd's model table",
	"default":    "a model compactd does not know",
}

// transcriptModel is the model the transcript names: its meta, else the
// last message that carries one (Claude Code records it per message).
func transcriptModel(t *transcript.Transcript, st transcript.Stats) string {
	if t.Meta.Model != "" {
		return t.Meta.Model
	}
	return st.Model
}

// TurnTokens are one turn's figures.
type TurnTokens struct {
	// Turn is the index in Transcript.Turns; Start and End its messages.
	Turn       int
	Start, End int
	// Tokens is the estimate of the turn's messages; Cumulative the
	// estimate of every message up to the turn's end.
	Tokens, Cumulative int
}

// Gauge is how full the context window is.
//
// It is the gauge's whole reading, one field per figure its views show: hence more than a dozen.
type Gauge struct {
	Format        transcript.Format
	Model         string
	ContextWindow int
	// WindowSource is where ContextWindow came from (see Resolve), and
	// WindowNote why when a reported usage proved the window larger.
	WindowSource, WindowNote string
	// Tokens is the context size now: Reported + Estimated with usage,
	// else the estimate of every message.
	Tokens int
	Ratio  float64
	Level  Level
	Source Source
	// Reported is the last API-reported context size and ReportedAt the
	// index of the message carrying it (-1 without usage).
	Reported, ReportedAt int
	// Estimated is our count of the messages after ReportedAt (all of them
	// without usage).
	Estimated int
	// Overhead is Options.Overhead when it applies (a fork without usage of
	// its own): part of Tokens, and the reason Source stays an estimate.
	Overhead int
	// EstimateError is our estimator's relative error against the API,
	// negative when we undercount: the median over several spans between
	// usage points (see measureError), nil when too few spans were
	// measured or they disagree, and without full counts.
	EstimateError *float64
	// EstimateErrorSpans is how many spans were measured, and
	// EstimateErrorNote why the error is hidden or what it rests on.
	EstimateErrorSpans int
	EstimateErrorNote  string
	// WarnAt, CriticalAt and AutoCompactAt are token thresholds;
	// AutoCompactAt is 0 when the agent's point is unknown or it does not
	// compact by itself.
	WarnAt, CriticalAt, AutoCompactAt int
	// AutoCompact is where the agent compacts and why; nil when unknown.
	AutoCompact *AutoCompact
	// Turns counts the turns a person began with a prompt: not the
	// preamble an agent injects before the first one (system prompt,
	// environment context, instructions), nor a compaction's summary.
	Turns, Messages, ToolCalls int
	SkippedRecords             int
	// Approx is set when a count used was approximate (long runs).
	Approx bool
	// PerTurn holds per-turn figures; nil for a live gauge (LiveCounts).
	PerTurn []TurnTokens
}

// promptTurns counts the turns of t that a prompt begins.
func promptTurns(t *transcript.Transcript) int {
	n := 0
	for _, tr := range t.Turns {
		if tr.Start < len(t.Messages) {
			if m := &t.Messages[tr.Start]; m.Origin == transcript.OriginHuman && transcript.StartsTurn(m) {
				n++
			}
		}
	}
	return n
}

// TailStart is the first message the calibrated gauge needs counted: the
// one after the last reported usage, or 0 without usage. It reads the
// messages from the end back to that usage only.
func TailStart(t *transcript.Transcript) int { return t.LastUsage() + 1 }

// Compute returns the gauge of t from counts, its messages' token counts
// (counts[i] for t.Messages[i], as tokens.Counter.CountMessages gives).
// With fewer counts than messages it counts only what it has: see Live
// for gauges from the tail counts alone.
func Compute(t *transcript.Transcript, counts []tokens.Count, opts Options) Gauge {
	g := base(t, opts)
	if g.Reported > 0 && len(counts) >= len(t.Messages) {
		e := measureError(usagePoints(t, counts))
		g.EstimateError, g.EstimateErrorSpans, g.EstimateErrorNote = e.Error, e.Spans, e.Note
	}
	from := 0
	if g.ReportedAt >= 0 {
		from = g.ReportedAt + 1
	}
	var tail tokens.Count
	if from < len(counts) {
		tail = tokens.Sum(counts[from:min(len(counts), len(t.Messages))])
	}
	// The reported part is the API's own figure: only the tail can be approximate.
	g.Approx = tail.Approx
	g.finish(tail.N)
	g.PerTurn = perTurn(t, counts)
	return g
}

// Live returns the gauge from the counts of the messages from
// TailStart(t) on only (tail[i] is t.Messages[TailStart(t)+i]): what the
// daemon shows at once on a huge file while full counts run. It has no
// EstimateError and no PerTurn.
func Live(t *transcript.Transcript, tail []tokens.Count, opts Options) Gauge {
	g := base(t, opts)
	s := tokens.Sum(tail)
	g.Approx = s.Approx
	g.finish(s.N)
	return g
}

// CountLive counts only the messages the calibrated gauge needs and
// returns the Live gauge.
func CountLive(ctx context.Context, c *tokens.Counter, t *transcript.Transcript, opts Options) (Gauge, error) {
	tail, err := c.CountMessages(ctx, t.Messages[TailStart(t):])
	if err != nil {
		return Gauge{}, err
	}
	return Live(t, tail, opts), nil
}

// base fills what does not depend on counts. With opts.Stats it reads no
// message but the last usage's: its cost does not grow with the transcript.
func base(t *transcript.Transcript, opts Options) Gauge {
	reg, st := opts.registry(), opts.stats(t)
	r := resolve(t, opts, reg, st)
	g := Gauge{
		Format:         t.Format,
		Model:          r.Model,
		ContextWindow:  r.ContextWindow,
		WindowSource:   r.WindowSource,
		WindowNote:     r.WindowNote,
		ReportedAt:     st.LastUsage,
		Turns:          promptTurns(t),
		Messages:       len(t.Messages),
		ToolCalls:      st.ToolCalls,
		SkippedRecords: t.Skipped,
		Source:         SourceEstimate,
	}
	if g.ReportedAt >= 0 {
		g.Reported = t.Messages[g.ReportedAt].Usage.ContextTokens()
		g.Source = SourceReported
	} else {
		g.Overhead = opts.Overhead
	}
	warn, crit := opts.Warn, opts.Critical
	if warn <= 0 {
		warn = DefaultWarn
	}
	if crit <= 0 {
		crit = DefaultCritical
	}
	w := float64(g.ContextWindow)
	g.WarnAt, g.CriticalAt = int(warn*w), int(crit*w)
	auto := opts.AutoCompact
	if auto == nil {
		auto = typical(reg.Format(t.Format).AutoCompactRatio, g.ContextWindow)
	}
	if auto.Known() {
		g.AutoCompact = auto
	}
	if auto != nil && auto.At > 0 {
		g.AutoCompactAt = auto.At
		// Critical from where the agent compacts by itself, warn a tenth
		// before it (the agent's point may be far below the fixed
		// fractions: a 40 % override).
		g.CriticalAt = min(g.CriticalAt, auto.At)
		g.WarnAt = min(g.WarnAt, auto.At-auto.At/10)
	}
	return g
}

func (g *Gauge) finish(estimated int) {
	g.Estimated = estimated
	g.Tokens = g.Reported + estimated + g.Overhead
	if g.ContextWindow > 0 {
		g.Ratio = float64(g.Tokens) / float64(g.ContextWindow)
	}
	switch {
	case g.Tokens >= g.CriticalAt:
		g.Level = LevelCritical
	case g.Tokens >= g.WarnAt:
		g.Level = LevelWarn
	default:
		g.Level = LevelOK
	}
}

func perTurn(t *transcript.Transcript, counts []tokens.Count) []TurnTokens {
	if len(counts) < len(t.Messages) {
		return nil
	}
	out := make([]TurnTokens, len(t.Turns))
	cum := 0
	for i, tr := range t.Turns {
		n := 0
		for _, c := range counts[tr.Start:tr.End] {
			n += c.N
		}
		cum += n
		out[i] = TurnTokens{Turn: i, Start: tr.Start, End: tr.End, Tokens: n, Cumulative: cum}
	}
	return out
}
