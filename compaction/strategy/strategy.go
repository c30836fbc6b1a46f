// Package strategy compacts transcripts: each strategy turns a View into a
// smaller one, the pipeline composes them left to right under keep-last and
// turn-boundary rules, a sanitize pass keeps the API invariants, and a report
// says what was saved and what was lost.
package strategy

import (
	"context"
	"errors"

	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// Options configure one compaction run.
//
// PROVISIONAL CONTRACT: the strategy owner may add fields; callers
// (daemon, CLI) rely on the ones here.
type Options struct {
	// Strategies are applied left to right; empty means ["auto"].
	Strategies []string
	// KeepLast turns at the end are never touched.
	KeepLast int
	// Window is the model's context window in tokens (for ratios and
	// the auto summarize threshold).
	Window int
	// Budget is token-budget's target; 0 derives it from Window.
	Budget int
	// Hints override the shipped per-tool defaults.
	Hints map[string]ToolHint
	// Summarizer, when set, backs the summarizing steps.
	Summarizer summarize.Summarizer
}

// ToolHint says how compaction treats one tool's calls.
type ToolHint struct {
	Request  string `toml:"request" json:"request,omitempty"`   // keep | strip | remove
	Response string `toml:"response" json:"response,omitempty"` // keep | strip | remove
	Dedup    *bool  `toml:"dedup" json:"dedup,omitempty"`
	Subsumes *bool  `toml:"subsumes" json:"subsumes,omitempty"`
}

// Step reports one strategy's effect.
type Step struct {
	Strategy      string `json:"strategy"`
	EventsRemoved int    `json:"eventsRemoved"`
	TokensSaved   int    `json:"tokensSaved"`
}

// Fact is a key fact of the original the retention report looks for.
type Fact struct {
	Kind string `json:"kind"` // path, command, error, identifier, instruction, decision, task
	Text string `json:"text"`
}

// Retention says how many key facts of the original survive.
type Retention struct {
	Score float64 `json:"score"`
	Kept  int     `json:"kept"`
	Total int     `json:"total"`
	Lost  []Fact  `json:"lost"`
}

// Report is what a run did.
type Report struct {
	TokensBefore int       `json:"tokensBefore"`
	TokensAfter  int       `json:"tokensAfter"`
	Steps        []Step    `json:"steps"`
	Retention    Retention `json:"retention"`
	// Notes explain skipped steps (a failed summarizer, an empty notes file).
	Notes []string `json:"notes,omitempty"`
}

// ErrNotImplemented is returned by the provisional Run.
var ErrNotImplemented = errors.New("compaction pipeline not implemented yet")

// Run compacts t. It never modifies t.
func Run(ctx context.Context, t *transcript.Transcript, c *tokens.Counter, opts Options) (*transcript.View, *Report, error) {
	return nil, nil, ErrNotImplemented
}
