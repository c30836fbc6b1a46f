package daemon

import (
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/pricing"
)

// Settings are the user's choices that shape watching, the gauge and
// compaction. They arrive from initializationOptions,
// workspace/didChangeConfiguration and .compactd.toml.
//
// The JSON names are the protocol's setting names (see the README).
type Settings struct {
	// WarnRatio and CriticalRatio are the gauge levels as fractions of the window.
	WarnRatio     float64 `json:"warnRatio,omitempty" toml:"warn_ratio"`
	CriticalRatio float64 `json:"criticalRatio,omitempty" toml:"critical_ratio"`
	// Model overrides the model a transcript names; ContextWindow overrides
	// every window; Windows overrides the window per model name prefix.
	Model         string         `json:"model,omitempty" toml:"model"`
	ContextWindow int            `json:"contextWindow,omitempty" toml:"context_window"`
	Windows       map[string]int `json:"windows,omitempty" toml:"windows"`
	// Strategies are the ones the dry-run savings are computed for, and the
	// default pipeline of "Compact conversation".
	Strategies []string `json:"strategies,omitempty" toml:"strategies"`
	KeepLast   int      `json:"keepLast,omitempty" toml:"keep_last"`
	Watch      Watch    `json:"watch" toml:"watch"`
	LogLevel   string   `json:"logLevel,omitempty" toml:"log_level"`
	// Prices are the bundled price table with the user's prices on top;
	// nil is the bundled table.
	Prices    *pricing.Table `json:"-" toml:"-"`
	StorePath string         `json:"storePath,omitempty" toml:"store_path"`
}

// Watch says which sources are watched. Nil booleans mean on.
type Watch struct {
	Workspace *bool `json:"workspace,omitempty" toml:"workspace"`
	Claude    *bool `json:"claude,omitempty" toml:"claude"`
	Codex     *bool `json:"codex,omitempty" toml:"codex"`
	// Qwen: ~/.qwen/projects/<slug of the folder>/chats. OpenCode, Kilo:
	// the agents' databases, sessions whose directory is in the workspace.
	// CopilotCLI: ~/.copilot/session-state, sessions started in the
	// workspace. Cursor: ~/.cursor/projects/<slug>/agent-transcripts.
	// CopilotChat: VS Code's workspaceStorage of the workspace's folders.
	Qwen        *bool `json:"qwen,omitempty" toml:"qwen"`
	OpenCode    *bool `json:"opencode,omitempty" toml:"opencode"`
	Kilo        *bool `json:"kilo,omitempty" toml:"kilo"`
	CopilotCLI  *bool `json:"copilotCli,omitempty" toml:"copilot_cli"`
	Cursor      *bool `json:"cursor,omitempty" toml:"cursor"`
	CopilotChat *bool `json:"copilotChat,omitempty" toml:"copilot_chat"`
	// Globs are extra files or patterns (filepath.Match syntax, ~ expanded)
	// watched in addition to the above.
	Globs []string `json:"globs,omitempty" toml:"globs"`
}

func on(b *bool) bool { return b == nil || *b }

// Default thresholds, from the design: warn at 75 %, critical at 90 %.
const (
	DefaultWarnRatio     = 0.75
	DefaultCriticalRatio = 0.90
	DefaultKeepLast      = 2
)

// DefaultStrategies are the strategies whose dry-run savings are shown.
var defaultStrategies = []string{"strip-reasoning", "strip-tool-results", "dedup-tools", "strip-attachments", "extractive", "auto"}

// withDefaults fills unset fields.
func (s Settings) withDefaults() Settings {
	if s.WarnRatio <= 0 || s.WarnRatio >= 1 {
		s.WarnRatio = DefaultWarnRatio
	}
	if s.CriticalRatio <= 0 || s.CriticalRatio > 1 || s.CriticalRatio < s.WarnRatio {
		s.CriticalRatio = max(DefaultCriticalRatio, s.WarnRatio)
	}
	if len(s.Strategies) == 0 {
		s.Strategies = []string{"auto"}
	}
	if s.KeepLast <= 0 {
		s.KeepLast = DefaultKeepLast
	}
	s.LogLevel = strings.ToLower(s.LogLevel)
	return s
}

// SavingsStrategies is the list dry-run savings are computed for: the
// common strategies, the configured pipeline's, and always "auto" (the
// gauge notification reports it).
func (s Settings) SavingsStrategies() []string {
	out := append([]string(nil), defaultStrategies...)
	for _, x := range s.Strategies {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
