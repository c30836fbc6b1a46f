package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/strategy"
)

// Overrides are what one request sets above the configuration: the CLI's
// flags, a command's arguments. A nil field keeps the configuration's
// value; a set one wins, zero included (KeepLast 0 protects no turn).
type Overrides struct {
	Strategies []string
	KeepLast   *int
	Turns      *int
	// Window is the model's context window for this request (the CLI's
	// --window): it wins over gauge.context_window, which wins over the
	// transcript's model's.
	Window *int
	// Budget is the most tokens the result may take ([compact] budget; the
	// CLI's --budget, "Compact to fit…"); 0 asks for none.
	Budget *int
}

// CompactOptions is the pipeline that a compaction, a dry run, an
// automatic compaction and a savings estimate of one transcript all run:
// [compact], [tools] and summarize.max_tokens, with o on top. window is the
// transcript's context window; gauge.context_window wins over it, and
// o.Window over both (a request's value wins, as every override does).
// The caller adds what is not a setting (the summarizer, cached counts).
//
// This is the one place a setting becomes a pipeline option: every
// surface calls it (ARCHITECTURE.md, "one owner per decision").
func (c *Config) CompactOptions(window int, o Overrides) strategy.Options {
	if c.Gauge.ContextWindow > 0 {
		window = c.Gauge.ContextWindow
	}
	if o.Window != nil && *o.Window > 0 {
		window = *o.Window
	}
	opts := strategy.Options{
		Strategies:         slices.Clone(c.Compact.Strategies),
		Turns:              c.Compact.Turns,
		Window:             window,
		Budget:             c.Compact.Budget,
		Hints:              maps.Clone(c.Tools),
		SummarizeThreshold: c.Compact.SummarizeThreshold,
		KeepLast:           new(c.Compact.KeepLast),
		BufferTurns:        new(c.Compact.BufferTurns),
		SummaryBudget:      c.Summarize.MaxTokens,
	}
	if o.Strategies != nil {
		opts.Strategies = slices.Clone(o.Strategies)
	}
	if o.KeepLast != nil {
		opts.KeepLast = new(*o.KeepLast)
	}
	if o.Turns != nil {
		opts.Turns = *o.Turns
	}
	if o.Budget != nil {
		opts.Budget = *o.Budget
	}
	return opts
}

// Check refuses overrides no configuration could hold, in the words of
// the configuration's keys.
func (o Overrides) Check() error {
	switch {
	case o.KeepLast != nil && *o.KeepLast < 0:
		return fmt.Errorf("keep-last must be 0 or more turns, not %d", *o.KeepLast)
	case o.Turns != nil && *o.Turns <= 0:
		return fmt.Errorf("turns must be a positive number of turns, not %d", *o.Turns)
	case o.Window != nil && *o.Window < 0:
		return fmt.Errorf("window must be a positive number of tokens, not %d", *o.Window)
	case o.Budget != nil && *o.Budget < 0:
		return fmt.Errorf("budget must be a positive number of tokens, not %d", *o.Budget)
	}
	return strategy.ValidateStrategies(o.Strategies)
}

// KeepLast is the number of trailing turns compaction leaves untouched.
func (c *Config) KeepLast() int { return c.Compact.KeepLast }

// Windows are the context windows the [models] tables set, by model name
// prefix.
func (c *Config) Windows() map[string]int {
	var out map[string]int
	for name, m := range c.Models {
		if m.ContextWindow > 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[name] = m.ContextWindow
		}
	}
	return out
}

// Nearest is the workspace file that applies to a transcript: the
// .compactd.toml nearest above it, else the one nearest above fallback
// (the CLI's working folder; the server's workspace folder the transcript
// belongs to); "" when there is none. The CLI and the server both use it.
func Nearest(transcript, fallback string) string {
	var starts []string
	if transcript != "" {
		if abs, err := filepath.Abs(transcript); err == nil {
			starts = append(starts, filepath.Dir(abs))
		}
	}
	if fallback != "" {
		starts = append(starts, fallback)
	}
	for _, dir := range starts {
		for {
			f := filepath.Join(dir, WorkspaceFile)
			if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
				return f
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return ""
}

// Layers are the sources above the files: the editor's settings and the
// server's flags.
type Layers struct {
	// Files says the user file and workspace files are read (servers in
	// tests use the defaults and the editor's settings alone).
	Files bool
	// Client is the editor's settings: initializationOptions, replaced by
	// each workspace/didChangeConfiguration.
	Client json.RawMessage
	// StorePath and LogLevel are the server's flags: they win over every
	// layer.
	StorePath, LogLevel string
}

// Resolve is the configuration under workspace file file ("" none):
// defaults, the user file and file (when l.Files), then the editor's
// settings, then the flags. Each layer is applied to a copy of what the
// ones before it made, and kept only when it validates: a layer left out
// leaves nothing behind. The returned error says which and why, beside a
// configuration made of the others.
func Resolve(file string, l Layers) (*Config, error) {
	c := Default()
	var errs []error
	if l.Files {
		user, err := UserFile()
		if err != nil {
			errs = append(errs, err)
		}
		for _, f := range []string{user, file} {
			if f == "" {
				continue
			}
			b, err := readRegular(f)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("read config %s: %w", f, err))
				continue
			}
			next := c.Clone()
			if err := next.ApplyTOML(f, b); err != nil {
				errs = append(errs, err)
				continue
			}
			c = next
		}
	}
	next := c.Clone()
	if err := next.ApplyJSON(l.Client); err != nil {
		errs = append(errs, err)
	} else {
		c = next
	}
	if l.StorePath != "" {
		c.Store.Path = l.StorePath
	}
	if l.LogLevel != "" {
		c.Log.Level = strings.ToLower(l.LogLevel)
	}
	return c, errors.Join(errs...)
}
