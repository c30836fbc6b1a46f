// Package config loads compactd's settings: defaults, then the user file
// ($XDG_CONFIG_HOME/compactd/config.toml, else ~/.config/compactd/config.toml),
// then the workspace's .compactd.toml, then the editor's LSP settings
// (initializationOptions, didChangeConfiguration: the same structure with
// camelCase keys). Each layer sets only the keys it names.
//
// It imports the compaction domain to validate strategy names and to build
// strategy.Options; it must not import lsp or cmd.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/platform"
)

// WorkspaceFile is the workspace config's name, at the workspace root.
const WorkspaceFile = ".compactd.toml"

// Config is the whole configuration.
type Config struct {
	Gauge       Gauge                        `toml:"gauge" json:"gauge"`
	Models      map[string]Model             `toml:"models" json:"models"`
	Prices      map[string]Price             `toml:"prices" json:"prices"`
	Compact     Compact                      `toml:"compact" json:"compact"`
	Tools       map[string]strategy.ToolHint `toml:"tools" json:"tools"`
	Watch       Watch                        `toml:"watch" json:"watch"`
	Summarize   Summarize                    `toml:"summarize" json:"summarize"`
	AutoCompact AutoCompact                  `toml:"auto_compact" json:"autoCompact"`
	Log         Log                          `toml:"log" json:"log"`
	Store       Store                        `toml:"store" json:"store"`
	Search      Search                       `toml:"search" json:"search"`

	// Sources lists the files (and "LSP settings") applied, in order.
	Sources []string `toml:"-" json:"-"`
}

// Gauge sets the status-bar levels and the model when the transcript does not say.
type Gauge struct {
	Warn          float64 `toml:"warn" json:"warn"`
	Critical      float64 `toml:"critical" json:"critical"`
	Model         string  `toml:"model" json:"model"`
	ContextWindow int     `toml:"context_window" json:"contextWindow"`
}

// Model overrides the tokens registry for one model name.
type Model struct {
	ContextWindow int    `toml:"context_window" json:"contextWindow,omitempty"`
	Encoding      string `toml:"encoding" json:"encoding,omitempty"`
}

// Price sets or corrects what one model costs, in dollars per million
// tokens; the key is a model name prefix ("claude-sonnet-4-5", "gpt-5").
// Unset cached_input and cache_write are the input price.
type Price struct {
	Input       float64        `toml:"input" json:"input,omitempty"`
	CachedInput float64        `toml:"cached_input" json:"cachedInput,omitempty"`
	CacheWrite  float64        `toml:"cache_write" json:"cacheWrite,omitempty"`
	Output      float64        `toml:"output" json:"output,omitempty"`
	Tiers       []pricing.Tier `toml:"tiers" json:"tiers,omitempty"`
}

// Clone returns a copy of c sharing no map or slice with it: a layer
// applied to the copy changes nothing of c.
func (c *Config) Clone() *Config {
	out := *c
	out.Models = maps.Clone(c.Models)
	out.Prices = maps.Clone(c.Prices)
	for k, p := range out.Prices {
		p.Tiers = slices.Clone(p.Tiers)
		out.Prices[k] = p
	}
	out.Tools = maps.Clone(c.Tools)
	out.Compact.Strategies = slices.Clone(c.Compact.Strategies)
	out.Watch = c.Watch.clone()
	out.Sources = slices.Clone(c.Sources)
	return &out
}

// PriceTable is the bundled price table with the settings' prices on top.
func (c *Config) PriceTable() *pricing.Table {
	t := pricing.Builtin()
	for _, k := range sortedKeys(c.Prices) {
		p := c.Prices[k]
		// validate accepted every entry.
		_ = t.Set(k, pricing.Rates{Input: p.Input, CachedInput: p.CachedInput, CacheWrite: p.CacheWrite, Output: p.Output}, p.Tiers)
	}
	return t
}

// Compact sets the default pipeline.
type Compact struct {
	Strategies []string `toml:"strategies" json:"strategies"`
	KeepLast   int      `toml:"keep_last" json:"keepLast"`
	// Turns is how many trailing turns turn-window keeps (0: its default, 10).
	Turns              int     `toml:"turns" json:"turns"`
	Budget             int     `toml:"budget" json:"budget"`
	SummarizeThreshold float64 `toml:"summarize_threshold" json:"summarizeThreshold"`
	BufferTurns        int     `toml:"buffer_turns" json:"bufferTurns"`
}

// Summarize configures the summarizer.
type Summarize struct {
	Provider     string   `toml:"provider" json:"provider"`
	BaseURL      string   `toml:"base_url" json:"baseUrl"`
	Model        string   `toml:"model" json:"model"`
	APIKeyEnv    string   `toml:"api_key_env" json:"apiKeyEnv"`
	MaxTokens    int      `toml:"max_tokens" json:"maxTokens"`
	Timeout      Duration `toml:"timeout" json:"timeout"`
	Instructions string   `toml:"instructions" json:"instructions"`
	NotesFile    string   `toml:"notes_file" json:"notesFile"`
}

// AutoCompact is the opt-in automatic compaction trigger.
type AutoCompact struct {
	Enabled  bool    `toml:"enabled" json:"enabled"`
	Ratio    float64 `toml:"ratio" json:"ratio"`
	Tokens   int     `toml:"tokens" json:"tokens"`
	Turns    int     `toml:"turns" json:"turns"`
	MinTurns int     `toml:"min_turns" json:"minTurns"`
}

// Log configures logging.
type Log struct {
	Level string `toml:"level" json:"level"`
	File  string `toml:"file" json:"file"`
}

// Store locates the SQLite store ("" = the XDG state default).
type Store struct {
	Path string `toml:"path" json:"path"`
}

// Search configures the full-text index of every session on the machine
// (`compactd search`).
type Search struct {
	// MaxIndexMB bounds the index in the store, in MiB: past it the
	// sessions least recently active leave it (the user's setting: the
	// index is the machine's, whatever the workspace).
	MaxIndexMB int `toml:"max_index_mb" json:"maxIndexMb"`
}

// MaxIndexBytes is search.max_index_mb in bytes.
func (s Search) MaxIndexBytes() int64 { return int64(s.MaxIndexMB) << 20 }

// Duration is a time.Duration written as "60s" in TOML and JSON.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration like \"60s\"", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }

// Providers lists the valid summarize.provider values.
var Providers = []string{"", "extractive", "notes", "openai", "anthropic"}

// LogLevels lists the valid log.level values.
var LogLevels = []string{"debug", "info", "warn", "error"}

// Default returns the built-in configuration.
func Default() *Config {
	return &Config{
		Gauge: Gauge{Warn: 0.75, Critical: 0.90},
		Compact: Compact{Strategies: []string{strategy.StrategyAuto}, KeepLast: strategy.DefaultKeepLast,
			SummarizeThreshold: strategy.DefaultSummarizeThreshold, BufferTurns: strategy.DefaultBufferTurns},
		Watch:       Watch{Workspace: true},
		Summarize:   Summarize{Timeout: Duration{60 * time.Second}},
		AutoCompact: AutoCompact{Ratio: 0.85, MinTurns: 4},
		Log:         Log{Level: "info"},
		// Half a GiB holds the index of some 10 GB of sessions (about a
		// sixth of their text, which is about a third of them).
		Search: Search{MaxIndexMB: 512},
	}
}

// UserFile returns the user config path: $XDG_CONFIG_HOME/compactd/config.toml,
// else on Windows %APPDATA%\compactd\config.toml, else ~/.config/compactd/config.toml.
func UserFile() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" && runtime.GOOS == "windows" {
		d, err := os.UserConfigDir() // %APPDATA%
		if err != nil {
			return "", fmt.Errorf("find the user config: %w", err)
		}
		dir = d
	}
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the user config: %w", err)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "compactd", "config.toml"), nil
}

// Load reads defaults, the user file and the workspace file file (a
// .compactd.toml, see Nearest; either may be absent, "" skips it) and
// validates the result: unlike Resolve, a file that does not validate is
// an error (the CLI's: it stops rather than run with other settings).
func Load(file string) (*Config, error) {
	c, err := Resolve(file, Layers{Files: true})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ApplyTOML overlays one TOML layer named name (for errors) and validates.
func (c *Config) ApplyTOML(name string, b []byte) error {
	models, tools, prices := c.Models, c.Tools, c.Prices
	c.Models, c.Tools, c.Prices = nil, nil, nil
	err := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields().EnableUnmarshalerInterface().Decode(c)
	c.mergeMaps(models, tools)
	c.mergePrices(prices)
	var unknown *toml.StrictMissingError
	if errors.As(err, &unknown) {
		keys := make([]string, len(unknown.Errors))
		for i, e := range unknown.Errors {
			keys[i] = strings.Join(e.Key(), ".")
		}
		return fmt.Errorf("config %s: unknown key %s", name, strings.Join(keys, ", "))
	}
	if err != nil {
		return fmt.Errorf("config %s: %w", name, err)
	}
	c.Sources = append(c.Sources, name)
	return c.validate(name)
}

// ApplyJSON overlays LSP settings (camelCase keys) and validates. Empty or
// null settings change nothing.
func (c *Config) ApplyJSON(settings json.RawMessage) error {
	const name = "LSP settings"
	if t := bytes.TrimSpace(settings); len(t) == 0 || string(t) == "null" {
		return nil
	}
	// A settings object may nest ours under "compactd" (VS Code sections).
	var wrapped map[string]json.RawMessage
	if json.Unmarshal(settings, &wrapped) == nil {
		if inner, ok := wrapped["compactd"]; ok && len(wrapped) == 1 {
			settings = inner
		}
	}
	models, tools, prices := c.Models, c.Tools, c.Prices
	c.Models, c.Tools, c.Prices = nil, nil, nil
	dec := json.NewDecoder(bytes.NewReader(settings))
	dec.DisallowUnknownFields()
	err := dec.Decode(c)
	c.mergeMaps(models, tools)
	c.mergePrices(prices)
	if err != nil {
		return fmt.Errorf("config %s: %w", name, err)
	}
	c.Sources = append(c.Sources, name)
	return c.validate(name)
}

// mergeMaps puts back the maps of earlier layers under the ones just
// decoded, field by field: a layer that sets only tools."Read".response
// keeps the rest of Read's hint.
func (c *Config) mergeMaps(models map[string]Model, tools map[string]strategy.ToolHint) {
	for k, over := range c.Models {
		base := models[k]
		if over.ContextWindow != 0 {
			base.ContextWindow = over.ContextWindow
		}
		if over.Encoding != "" {
			base.Encoding = over.Encoding
		}
		if models == nil {
			models = map[string]Model{}
		}
		models[k] = base
	}
	c.Models = models
	for k, over := range c.Tools {
		base := tools[k]
		if over.Request != "" {
			base.Request = over.Request
		}
		if over.Response != "" {
			base.Response = over.Response
		}
		if over.Dedup != nil {
			base.Dedup = over.Dedup
		}
		if over.Subsumes != nil {
			base.Subsumes = over.Subsumes
		}
		if tools == nil {
			tools = map[string]strategy.ToolHint{}
		}
		tools[k] = base
	}
	c.Tools = tools
}

// mergePrices puts back the earlier layers' prices under the ones just
// decoded: a layer's price of a model replaces that model's whole price.
func (c *Config) mergePrices(prices map[string]Price) {
	for k, v := range c.Prices {
		if prices == nil {
			prices = map[string]Price{}
		}
		prices[k] = v
	}
	c.Prices = prices
}

// validate returns the first problem as one sentence naming the source,
// the key and the valid values.
func (c *Config) validate(name string) error {
	bad := func(key string, format string, args ...any) error {
		return fmt.Errorf("config %s: %s %s", name, key, fmt.Sprintf(format, args...))
	}
	fraction := func(key string, v float64) error {
		if v <= 0 || v > 1 {
			return bad(key, "= %g must be above 0 and at most 1", v)
		}
		return nil
	}
	nonNeg := func(key string, v int) error {
		if v < 0 {
			return bad(key, "= %d must be 0 or more", v)
		}
		return nil
	}
	checks := []error{
		fraction("gauge.warn", c.Gauge.Warn),
		fraction("gauge.critical", c.Gauge.Critical),
		nonNeg("gauge.context_window", c.Gauge.ContextWindow),
		nonNeg("compact.keep_last", c.Compact.KeepLast),
		nonNeg("compact.turns", c.Compact.Turns),
		nonNeg("compact.budget", c.Compact.Budget),
		nonNeg("compact.buffer_turns", c.Compact.BufferTurns),
		fraction("compact.summarize_threshold", c.Compact.SummarizeThreshold),
		nonNeg("summarize.max_tokens", c.Summarize.MaxTokens),
		fraction("auto_compact.ratio", c.AutoCompact.Ratio),
		nonNeg("auto_compact.tokens", c.AutoCompact.Tokens),
		nonNeg("auto_compact.turns", c.AutoCompact.Turns),
		nonNeg("auto_compact.min_turns", c.AutoCompact.MinTurns),
	}
	if c.Search.MaxIndexMB < 1 {
		checks = append(checks, bad("search.max_index_mb", "= %d must be 1 or more", c.Search.MaxIndexMB))
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if c.Gauge.Warn >= c.Gauge.Critical {
		return bad("gauge.warn", "= %g must be below gauge.critical = %g", c.Gauge.Warn, c.Gauge.Critical)
	}
	if err := strategy.ValidateStrategies(c.Compact.Strategies); err != nil {
		return fmt.Errorf("config %s: compact.strategies: %w", name, err)
	}
	for _, k := range sortedKeys(c.Tools) {
		if err := c.Tools[k].Validate(); err != nil {
			return fmt.Errorf("config %s: tools.%q: %w", name, k, err)
		}
	}
	if err := strategy.ValidateHints(c.Tools); err != nil {
		return fmt.Errorf("config %s: %w", name, err)
	}
	for _, k := range sortedKeys(c.Models) {
		m := c.Models[k]
		if m.ContextWindow < 0 {
			return bad(fmt.Sprintf("models.%q.context_window", k), "= %d must be 0 or more", m.ContextWindow)
		}
		switch m.Encoding {
		case "", "o200k_base", "cl100k_base":
		default:
			return bad(fmt.Sprintf("models.%q.encoding", k), "= %q is not valid (valid: o200k_base, cl100k_base)", m.Encoding)
		}
	}
	for _, k := range sortedKeys(c.Prices) {
		p := c.Prices[k]
		if err := pricing.Builtin().Set(k, pricing.Rates{Input: p.Input, CachedInput: p.CachedInput, CacheWrite: p.CacheWrite, Output: p.Output}, p.Tiers); err != nil {
			return fmt.Errorf("config %s: prices.%q: %w", name, k, err)
		}
	}
	if !contains(Providers, c.Summarize.Provider) {
		return bad("summarize.provider", "= %q is not valid (valid: \"\", extractive, notes, openai, anthropic)", c.Summarize.Provider)
	}
	if c.Summarize.Timeout.Duration <= 0 {
		return bad("summarize.timeout", "= %s must be positive", c.Summarize.Timeout.Duration)
	}
	if c.Summarize.Provider == "notes" && c.Summarize.NotesFile == "" {
		return bad("summarize.notes_file", "must be set when summarize.provider = \"notes\"")
	}
	if !contains(LogLevels, c.Log.Level) {
		return bad("log.level", "= %q is not valid (valid: %s)", c.Log.Level, strings.Join(LogLevels, ", "))
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Trigger returns the auto-compaction trigger, and whether it is enabled.
func (c *Config) Trigger() (strategy.Trigger, bool) {
	a := c.AutoCompact
	return strategy.Trigger{Ratio: a.Ratio, Tokens: a.Tokens, Turns: a.Turns, MinTurns: a.MinTurns}, a.Enabled
}

// readRegular reads a configuration file, refusing anything but a regular
// file without blocking on it (a named pipe would wait for a writer).
func readRegular(path string) ([]byte, error) {
	f, err := platform.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("it is not a regular file (%s); make it a file or remove it", fi.Mode().Type())
	}
	return io.ReadAll(f)
}
