package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// figures are what gauge, compact and statusline show of one transcript:
// its gauge, what fills the window, and what it costs. They are computed
// the way the daemon computes them, from the same gauge.Tally.
type figures struct {
	gauge     gauge.Gauge
	breakdown gauge.Breakdown
	// cost is nil when the model has no price.
	cost  *pricing.Figures
	price *pricing.Price
	// lastResponse is when the last response the gauge counts from came
	// (zero when unknown): the provider's cache was last warmed then.
	lastResponse time.Time
}

// economics prices compacting saved tokens out of the window now; nil
// without a price.
func (f *figures) economics(saved int, now time.Time) *pricing.Economics {
	if f == nil || f.price == nil {
		return nil
	}
	idle := time.Duration(-1)
	if !f.lastResponse.IsZero() {
		idle = max(now.Sub(f.lastResponse), 0)
	}
	e := f.price.Economics(f.gauge.Tokens, saved, idle)
	return &e
}

// measureOptions say how figures are computed.
type measureOptions struct {
	gauge    gauge.Options
	counters *tokens.CounterSet
	prices   *pricing.Table
	// keepLast is the turns compaction keeps (strategy.Options.KeepLast).
	keepLast int
	// counted are counts a job already made; used when they were made
	// with the counter the figures need.
	counted jobs.Counted
	// path is the transcript's file; agentWindow the window the agent
	// reports it runs with, 0 when it does not say.
	path        string
	agentWindow int
	// agent, when set, reads the agent's own settings for where it
	// compacts by itself; nil leaves the gauge its typical figure.
	agent *agentSettings
}

// agentSettings are where the agents' settings are read from: their homes
// and the environment they run with (this process's: compactd statusline
// runs as Claude Code's child, compactd gauge from the user's shell).
type agentSettings struct {
	env    agents.Env
	getenv func(string) string
	// running: the environment of the agent's process running in the
	// session's folder, where the OS lets compactd read it, beats getenv
	// (compactd gauge runs beside the agent, not under it).
	running bool
	// args is the agent's command line when compactd runs as its child
	// (the status line: its parent's); running finds the process's own.
	args []string
}

func agentSettingsOf(e *env) *agentSettings {
	return &agentSettings{env: agents.EnvFromOS(e.getenv), getenv: e.getenv, args: agents.ParentArgs()}
}

// threshold is the agent's own compaction point for the session at path,
// t resolved as r.
func (a *agentSettings) threshold(path string, t *transcript.Transcript, r gauge.Resolved) *gauge.AutoCompact {
	if a == nil {
		return nil
	}
	agent := agents.ByFormat(t.Format)
	abs, _ := filepath.Abs(path)
	cwd := agent.SessionCwd(a.env, abs, t.Meta.Cwd)
	if cwd == "" {
		cwd = workingDir()
	}
	getenv, args := a.getenv, a.args
	if a.running && agent != nil {
		// One scan, bounded: /proc may hold a read of a stalled process.
		envs := &agents.ProcessEnvs{Commands: []string{agent.Command}}
		envs.Wait(time.Second)
		if env, ok := envs.Lookup(agent.Command, cwd); ok {
			getenv = func(k string) string { return env[k] }
			args, _ = envs.Args(agent.Command, cwd)
		}
	}
	return agent.AutoCompact(agents.Query{Env: a.env, Getenv: getenv, Args: args, Cwd: cwd,
		Model: r.Model, Window: r.ContextWindow, WindowSource: r.WindowSource, AgentVersion: t.Meta.AgentVersion})
}

// readTranscript reads, detects and parses one transcript. A file no codec
// recognizes is a usage error (exit 2).
func readTranscript(path string) (*transcript.Transcript, error) {
	// Detected from the head alone: a large file that is no transcript
	// (2 GiB of zeros) is refused after one small read.
	src, codec, err := sourcefile.ReadTranscript(path)
	if err != nil {
		return nil, refusal(path, err)
	}
	t, err := codec.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("parse %s as %s: %w", path, codec.Format(), err)
	}
	return t, nil
}

// refusal is the error a command reports for err, reading path: what the
// file is when compactd does not read it, the path and what failed else.
func refusal(path string, err error) error {
	var unrecognized *format.ErrUnrecognized
	var notRegular *sourcefile.NotRegularError
	switch {
	case errors.As(err, &unrecognized):
		return &usageError{err.Error()}
	case errors.As(err, &notRegular), errors.Is(err, sourcefile.ErrTooLarge), errors.Is(err, sourcefile.ErrTruncated):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", path)
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == path {
		return err // it names the path and what failed
	}
	return fmt.Errorf("read %s: %w", path, err)
}

// measure counts t and computes its figures.
func measure(ctx context.Context, t *transcript.Transcript, o measureOptions) (*figures, error) {
	resolved := gauge.Resolve(t, o.gauge)
	counter, err := o.counters.For(resolved.Info)
	if err != nil {
		return nil, err
	}
	counts := o.counted.For(counter)
	if len(counts) != len(t.Messages) {
		if counts, err = counter.CountMessages(ctx, t.Messages); err != nil {
			return nil, err
		}
	}
	if o.gauge.AutoCompact == nil {
		// The agent computes its point from the model's window as it
		// knows it (Claude Code's status line payload says which), not
		// from a window compactd's settings or flags impose.
		agentView := o.gauge
		agentView.ContextWindow = o.agentWindow
		o.gauge.AutoCompact = o.agent.threshold(o.path, t, gauge.Resolve(t, agentView))
	}
	f := &figures{gauge: gauge.Compute(t, counts, o.gauge)}
	if at := f.gauge.ReportedAt; at >= 0 && at < len(t.Messages) {
		f.lastResponse = t.Messages[at].Timestamp
	}
	topts := gauge.TallyOptions{Images: resolved.Info.Provider.ImagePricing(), CountText: counter.Text}
	if p, ok := o.prices.Lookup(f.gauge.Model); ok {
		f.price = &p
		topts.Price = &p
	}
	tally := gauge.Tally{}.Advance(t, counts, 0, topts)
	f.breakdown = tally.Breakdown(f.gauge, t, counts, gauge.BreakdownOptions{KeepLast: o.keepLast})
	if f.price != nil {
		c := f.price.FiguresOf(tally.Session(), f.gauge.Tokens, f.gauge.Reported)
		f.cost = &c
	}
	return f, nil
}

// loadConfig is the configuration that applies to a transcript: the user
// file and the nearest .compactd.toml above it. A broken file is reported
// on stderr and the defaults used: figures should not fail on it.
func loadConfig(e *env, path string) *config.Config {
	cfg, err := config.Load(config.Nearest(path, workingDir()))
	if err == nil {
		return cfg
	}
	fmt.Fprintf(e.stderr, "compactd: %v; using the default settings\n", err)
	return config.Default()
}

// printBreakdown writes the breakdown and cost under a gauge line:
//
//	outside the transcript   191,537  95.8 %  system prompt, tool and MCP definitions, …
//	                                          MCP servers: github (4 tools), linear (2 tools)
//	tool results               1,437   0.7 %  mcp__github__get_issue 1,437
//	98 % of what the model reads … : compaction can reach at most 48 tokens (<0.1 % of the window)
//	cost (claude-sonnet-4 at built-in prices, checked 2026-11-23): …
func printBreakdown(w io.Writer, f *figures) {
	b := f.breakdown
	for _, p := range b.Parts {
		note := ""
		switch p.Category {
		case gauge.CategoryOutside:
			note = b.Outside.Label
		case gauge.CategoryToolResults:
			var tools []string
			for _, tt := range b.Tools {
				tools = append(tools, tt.Name+" "+tokens.Thousands(tt.Tokens))
			}
			note = strings.Join(tools, ", ")
		}
		line := fmt.Sprintf("  %-24s %9s %6.1f %%  %s", p.Label, tokens.Thousands(p.Tokens), 100*b.Share(p.Tokens), note)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		if p.Category == gauge.CategoryOutside {
			for _, k := range b.Outside.Known {
				detail := k.Detail
				if k.Tokens > 0 {
					detail = strings.TrimSpace(detail + fmt.Sprintf(" (%s tokens)", tokens.Thousands(k.Tokens)))
				}
				fmt.Fprintf(w, "  %-24s %9s %8s  %s: %s\n", "", "", "", k.Name, detail)
			}
		}
	}
	if !b.Outside.Measured {
		fmt.Fprintf(w, "  (no reported usage: what the agent sends beside the transcript — %s — is not in this figure)\n", b.Outside.Label)
	}
	fmt.Fprintf(w, "  %s\n", b.Reach())
	if line := costLine(f, -1); line != "" {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// costLine renders the cost figures in one line; saved >= 0 adds what
// removing that many tokens saves per turn. "" without a price.
func costLine(f *figures, saved int) string {
	if f.cost == nil {
		return fmt.Sprintf("cost: no price known for %s (add [prices.%q] to the settings)", f.gauge.Model, f.gauge.Model)
	}
	c := f.cost
	var parts []string
	if c.Responses > 0 {
		parts = append(parts, fmt.Sprintf("session so far %s (%d %s)", pricing.Dollars(c.Session), c.Responses, plural(c.Responses, "response")))
	}
	parts = append(parts, fmt.Sprintf("next turn %s cached, %s uncached", pricing.Dollars(c.NextTurn.Cached), pricing.Dollars(c.NextTurn.Uncached)))
	if saved >= 0 {
		s := f.price.PerTurnSaving(f.gauge.Tokens, saved)
		parts = append(parts, fmt.Sprintf("this compaction saves %s per turn cached, %s uncached", pricing.Dollars(s.Cached), pricing.Dollars(s.Uncached)))
	}
	return fmt.Sprintf("cost %s: %s", pricesPhrase(c), strings.Join(parts, " · "))
}

// pricesPhrase says which prices a cost is at.
func pricesPhrase(c *pricing.Figures) string {
	if c.Source == "settings" {
		return "at your prices for " + c.Model
	}
	return "at " + c.Model + " list prices of " + pricing.TableDate
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
