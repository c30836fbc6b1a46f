package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/sessionstate"
	"github.com/compactd/compactd/daemon/sourcefile"
	"github.com/compactd/compactd/daemon/store"
	"github.com/compactd/compactd/daemon/watch"
)

func init() {
	register(&command{
		name:    "gauge",
		summary: "show how full the model's context window is for each transcript",
		run:     runGauge,
	})
}

// gaugeRow is one transcript's gauge as `gauge --json` prints it; the
// field order is the JSON key order and is part of the CLI's contract.
type gaugeRow struct {
	Path          string `json:"path"`
	Format        string `json:"format"`
	Model         string `json:"model"`
	ContextWindow int    `json:"contextWindow"`
	// WindowSource is where the window came from ("registry", "transcript",
	// "usage", …) and WindowNote why, when a reported usage proved the
	// assumed window too small.
	WindowSource   string   `json:"windowSource"`
	WindowNote     string   `json:"windowNote,omitempty"`
	Tokens         int      `json:"tokens"`
	Ratio          float64  `json:"ratio"`
	Level          string   `json:"level"`
	Source         string   `json:"source"`
	Turns          int      `json:"turns"`
	Messages       int      `json:"messages"`
	ToolCalls      int      `json:"toolCalls"`
	SkippedRecords int      `json:"skippedRecords"`
	EstimateError  *float64 `json:"estimateError"`
	Approx         bool     `json:"approx"`
	// EstimateErrorSpans and EstimateErrorNote say what the error rests
	// on, or why it is not shown.
	EstimateErrorSpans int    `json:"estimateErrorSpans"`
	EstimateErrorNote  string `json:"estimateErrorNote"`
	// Breakdown is what fills the window; its parts sum to Tokens.
	Breakdown gauge.Breakdown `json:"breakdown"`
	// Reach says how much compaction can reach, and why it cannot help
	// when most of the window is outside the transcript.
	Reach string `json:"reach"`
	// Cost is null when the model has no price.
	Cost *pricing.Figures `json:"cost"`
	// Overhead is, for a fork compactd wrote, what its source's gauge held
	// beyond the transcript; Tokens includes it (the figure is an estimate).
	Overhead int `json:"overhead,omitempty"`
	// AutoCompact is where the agent compacts by itself, read from its
	// settings as the agent reads them: the mark on the bar, the tokens
	// left before it, where the setting came from; null when unknown.
	AutoCompact *gauge.Mark `json:"autoCompact"`
}

func runGauge(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("gauge", e)
	asJSON := fs.Bool("json", false, "print a JSON array instead of one line per transcript")
	detail := fs.Bool("breakdown", false, "under each line, what fills the window and what it costs")
	model := fs.String("model", "", "count for this model instead of the transcript's")
	window := fs.Int("window", 0, "the model's context window in tokens; wins over gauge.context_window (default: gauge.context_window, else the transcript's model)")
	session := fs.String("session", "", "opencode and Kilo: gauge only this session of the database")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("usage: compactd gauge [--json] [--breakdown] [--model M] [--window N] [--session ID] PATH...")
	}
	if *window < 0 {
		return usagef("--window must be a positive number of tokens, not %d", *window)
	}
	opts := measureOptions{
		gauge: gauge.Options{Model: *model, ContextWindow: *window, Registry: tokens.NewRegistry()},
		// Files of one model share a counter (and its cache).
		counters: tokens.NewCounterSet(tokens.WithCache(tokens.NewMemoryCache(0))),
		agent:    &agentSettings{env: agents.EnvFromOS(e.getenv), getenv: e.getenv, running: true},
	}
	var rows []gaugeRow
	var all []*figures
	var errs []error
	// An agent's session database (opencode.db, kilo.db) stands for its
	// sessions, rendered read-only where the daemon renders them.
	var paths []string
	for _, path := range pos {
		if !watch.IsAgentDatabase(path) {
			if *session != "" {
				return usagef("--session names a session of an agent's database (opencode.db, kilo.db); %s is not one", path)
			}
			paths = append(paths, path)
			continue
		}
		if *session != "" {
			rendered, err := watch.RenderDatabaseSession(ctx, agents.EnvFromOS(e.getenv), path, *session)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			paths = append(paths, rendered)
			continue
		}
		rendered, err := watch.RenderDatabase(ctx, agents.EnvFromOS(e.getenv), path, nil)
		if err != nil {
			errs = append(errs, err)
		}
		if len(rendered) == 0 && err == nil {
			errs = append(errs, fmt.Errorf("%s holds no session", path))
		}
		paths = append(paths, rendered...)
	}
	overhead, closeStore := forkOverheads(ctx, e)
	defer closeStore()
	for _, path := range paths {
		cfg := loadConfig(e, path)
		// The window and the model as the server's gauge and a compaction
		// take them: the flag, else the configuration, else the transcript's.
		over := config.Overrides{}
		if *window > 0 {
			over.Window = window
		}
		pipeline := cfg.CompactOptions(0, over)
		opts.prices, opts.keepLast, opts.gauge.ContextWindow = cfg.PriceTable(), pipeline.KeepLastTurns(), pipeline.Window
		opts.gauge.Model = *model
		if opts.gauge.Model == "" {
			opts.gauge.Model = cfg.Gauge.Model
		}
		opts.gauge.Overhead, opts.path = 0, path
		if abs, err := filepath.Abs(path); err == nil {
			opts.gauge.Overhead, _ = overhead(abs)
		}
		f, err := gaugeFile(e, path, cfg, opts, overhead)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		rows = append(rows, rowOf(path, f))
		all = append(all, f)
	}
	if *asJSON {
		if rows == nil {
			rows = []gaugeRow{}
		}
		if err := writeJSON(e.stdout, rows); err != nil {
			return err
		}
	} else {
		printGauges(e.stdout, rows, all, *detail)
	}
	return errors.Join(errs...)
}

// gaugeFile gauges one transcript from where the previous gauge of it
// left it: its state beside the store (daemon/sessionstate), so a gauge
// after an append reads what was appended. The figures are the daemon's
// index's, every usage point measured for the estimate error as a first
// read measures it, equal with or without a state.
func gaugeFile(e *env, path string, cfg *config.Config, opts measureOptions, overhead func(string) (int, bool)) (*figures, error) {
	// Admitted as compact admits it, before any state is read or kept: a
	// pipe, device or folder is refused by what it is, a file too large
	// or with a line no agent writes at once, from its head and a scan —
	// following it, as the daemon follows a growing file, would read all
	// of it first.
	if _, err := sourcefile.Admit(path); err != nil {
		return nil, refusal(path, err)
	}
	c := *cfg
	// The flag's or the configuration's model and window, the levels'
	// defaults (a gauge line's level is the gauge's own).
	c.Gauge.Model, c.Gauge.ContextWindow = opts.gauge.Model, opts.gauge.ContextWindow
	c.Gauge.Warn, c.Gauge.Critical = 0, 0
	set := index.NewSettings(&c)
	registry := tokens.NewRegistry()
	iopts := index.Options{
		Settings: func(string) *index.Settings { return set },
		Threshold: func(path string, t *transcript.Transcript, _ gauge.Resolved) *gauge.AutoCompact {
			return opts.agent.threshold(path, t, gauge.Resolve(t, gauge.Options{Model: c.Gauge.Model, Registry: registry}))
		},
		Overhead: overhead,
		AllUsage: true,
		HotBytes: 1,
		Named:    true,
	}
	key, err := stateKey(&c, 0, fmt.Sprintf("gauge overhead=%d", opts.gauge.Overhead))
	if err != nil {
		return nil, err
	}
	dir := ""
	if storePath, err := resolveStore(e, ""); err == nil {
		dir = sessionstate.Dir(storePath)
	}
	sess, err := sessionstate.Open(dir, path, key, iopts)
	if err != nil {
		return nil, err
	}
	snap, err := sess.Snapshot()
	if err != nil {
		var unrecognized *format.ErrUnrecognized
		if errors.As(err, &unrecognized) {
			return nil, &usageError{unrecognized.Error()}
		}
		return nil, err
	}
	if !(sess.Resumed && sess.BytesRead() == 0) {
		if err := sess.Save(); err != nil {
			fmt.Fprintf(e.stderr, "compactd gauge: keep the session's state: %v\n", err)
		}
	}
	f := snapshotFigures(snap)
	if f.gauge.Reported > 0 {
		ee := snap.Insight.EstimateError
		f.gauge.EstimateError, f.gauge.EstimateErrorSpans, f.gauge.EstimateErrorNote = ee.Error, ee.Spans, ee.Note
	}
	return f, nil
}

func rowOf(path string, f *figures) gaugeRow {
	g := f.gauge
	return gaugeRow{
		Path:               path,
		Format:             string(g.Format),
		Model:              g.Model,
		ContextWindow:      g.ContextWindow,
		WindowSource:       g.WindowSource,
		WindowNote:         g.WindowNote,
		Tokens:             g.Tokens,
		Ratio:              g.Ratio,
		Level:              string(g.Level),
		Source:             string(g.Source),
		Turns:              g.Turns,
		Messages:           g.Messages,
		ToolCalls:          g.ToolCalls,
		SkippedRecords:     g.SkippedRecords,
		EstimateError:      g.EstimateError,
		Approx:             g.Approx,
		EstimateErrorSpans: g.EstimateErrorSpans,
		EstimateErrorNote:  g.EstimateErrorNote,
		Breakdown:          f.breakdown,
		Reach:              f.breakdown.Reach(),
		Cost:               f.cost,
		Overhead:           g.Overhead,
		AutoCompact:        g.Mark(),
	}
}

// forkOverheads looks up, in the version store when there is one, what the
// source of a fork compactd wrote held beyond its transcript, so a fork
// gauges as the daemon shows it. Without a store nothing is added; gauge
// never creates one.
func forkOverheads(ctx context.Context, e *env) (func(string) (int, bool), func()) {
	none := func(string) (int, bool) { return 0, false }
	path, err := resolveStore(e, "")
	if err != nil {
		return none, func() {}
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return none, func() {}
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return none, func() {}
	}
	return func(p string) (int, bool) { return jobs.StoreOverhead(ctx, st, p) }, func() { st.Close() }
}

// printGauges writes one aligned line per transcript, and with detail
// the breakdown and cost under each:
//
//	session.jsonl  claude-code  claude-sonnet-4-5  156,234 / 200,000  78.1%  warn  (reported+estimate, est. error -3.2%)
func printGauges(w io.Writer, rows []gaugeRow, figs []*figures, detail bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, r := range rows {
		notes := []string{r.Source}
		if r.Overhead != 0 {
			notes = append(notes, fmt.Sprintf("incl. %s outside the transcript, measured on the source", tokens.Thousands(r.Overhead)))
		}
		if r.EstimateError != nil {
			notes = append(notes, fmt.Sprintf("est. error %+.1f%%", 100**r.EstimateError))
		}
		if r.Approx {
			notes = append(notes, "approximate")
		}
		if r.SkippedRecords > 0 {
			notes = append(notes, fmt.Sprintf("%d records skipped", r.SkippedRecords))
		}
		if r.WindowNote != "" {
			notes = append(notes, r.WindowNote)
		}
		if m := r.AutoCompact; m != nil {
			notes = append(notes, markNote(m))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s / %s\t%.1f%%\t%s\t(%s)\n",
			r.Path, r.Format, r.Model, tokens.Thousands(r.Tokens), tokens.Thousands(r.ContextWindow), 100*r.Ratio, r.Level, strings.Join(notes, ", "))
		if detail {
			tw.Flush()
			printBreakdown(w, figs[i])
		}
	}
	tw.Flush()
}

// markNote is the agent's compaction point in a gauge line's notes:
// "auto-compacts at 140k (env), 16k left".
func markNote(m *gauge.Mark) string {
	switch {
	case m.Disabled || m.At == 0:
		return m.Text
	case m.Buffer > 0:
		return m.Text + ", " + shortTokens(m.Buffer) + " left"
	}
	return m.Text + ", due now"
}
