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
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/sourcefile"
	"github.com/compactd/compactd/daemon/store"
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
	Path           string   `json:"path"`
	Format         string   `json:"format"`
	Model          string   `json:"model"`
	ContextWindow  int      `json:"contextWindow"`
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
	// Overhead is, for a fork compactd wrote, what its source's gauge held
	// beyond the transcript; Tokens includes it (the figure is an estimate).
	Overhead int `json:"overhead,omitempty"`
}

func runGauge(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("gauge", e)
	asJSON := fs.Bool("json", false, "print a JSON array instead of one line per transcript")
	model := fs.String("model", "", "count for this model instead of the transcript's")
	window := fs.Int("window", 0, "context window in tokens (overrides the model's)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("usage: compactd gauge [--json] [--model M] [--window N] PATH...")
	}
	if *window < 0 {
		return usagef("--window must be a positive number of tokens, not %d", *window)
	}
	opts := gauge.Options{Model: *model, ContextWindow: *window, Registry: tokens.NewRegistry()}
	// Files of one model share a counter (and its cache).
	counters := tokens.NewCounterSet(tokens.WithCache(tokens.NewMemoryCache(0)))
	var rows []gaugeRow
	var errs []error
	// An agent's session database (opencode.db, kilo.db) stands for its
	// sessions, rendered read-only where the daemon renders them.
	var paths []string
	for _, path := range pos {
		if !daemon.IsAgentDatabase(path) {
			paths = append(paths, path)
			continue
		}
		rendered, err := daemon.RenderDatabase(ctx, daemon.EnvFromOS(e.getenv), path, nil)
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
		opts := opts
		if abs, err := filepath.Abs(path); err == nil {
			opts.Overhead, _ = overhead(abs)
		}
		row, err := gaugeFile(ctx, path, opts, counters)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		rows = append(rows, row)
	}
	if *asJSON {
		if rows == nil {
			rows = []gaugeRow{}
		}
		if err := writeJSON(e.stdout, rows); err != nil {
			return err
		}
	} else {
		printGauges(e.stdout, rows)
	}
	return errors.Join(errs...)
}

// gaugeFile reads, detects, parses and counts one transcript.
func gaugeFile(ctx context.Context, path string, opts gauge.Options, counters *tokens.CounterSet) (gaugeRow, error) {
	// Detected from the head alone: a large file that is no transcript
	// (2 GiB of zeros) is refused after one small read.
	src, codec, err := sourcefile.ReadTranscript(path)
	if err != nil {
		var unrecognized *format.ErrUnrecognized
		var notRegular *sourcefile.NotRegularError
		switch {
		case errors.As(err, &unrecognized):
			return gaugeRow{}, &usageError{err.Error()}
		case errors.As(err, &notRegular), errors.Is(err, sourcefile.ErrTooLarge), errors.Is(err, sourcefile.ErrTruncated):
			return gaugeRow{}, err
		}
		return gaugeRow{}, fmt.Errorf("read %s: %w", path, err)
	}
	t, err := codec.Parse(src)
	if err != nil {
		return gaugeRow{}, fmt.Errorf("parse %s as %s: %w", path, codec.Format(), err)
	}
	resolved := gauge.Resolve(t, opts)
	counter, err := counters.For(resolved.Info)
	if err != nil {
		return gaugeRow{}, err
	}
	counts, err := counter.CountMessages(ctx, t.Messages)
	if err != nil {
		return gaugeRow{}, err
	}
	g := gauge.Compute(t, counts, opts)
	return gaugeRow{
		Path:           path,
		Format:         string(g.Format),
		Model:          g.Model,
		ContextWindow:  g.ContextWindow,
		Tokens:         g.Tokens,
		Ratio:          g.Ratio,
		Level:          string(g.Level),
		Source:         string(g.Source),
		Turns:          g.Turns,
		Messages:       g.Messages,
		ToolCalls:      g.ToolCalls,
		SkippedRecords: g.SkippedRecords,
		EstimateError:  g.EstimateError,
		Approx:         g.Approx,
		Overhead:       g.Overhead,
	}, nil
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

// printGauges writes one aligned line per transcript:
//
//	session.jsonl  claude-code  claude-sonnet-4-5  156,234 / 200,000  78.1%  warn  (reported+estimate, est. error -3.2%)
func printGauges(w io.Writer, rows []gaugeRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s / %s\t%.1f%%\t%s\t(%s)\n",
			r.Path, r.Format, r.Model, tokens.Thousands(r.Tokens), tokens.Thousands(r.ContextWindow), 100*r.Ratio, r.Level, strings.Join(notes, ", "))
	}
	tw.Flush()
}
