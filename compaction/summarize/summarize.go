// Package summarize turns archived spans of a conversation into summaries:
// the Summarizer interface the compaction pipeline calls, the default prompt,
// secret redaction, and the offline summarizers (extractive, notes). Model
// providers implement Summarizer in daemon/llm; this package opens no
// network connection.
//
// It must not import daemon/, lsp/, cmd/, compaction/strategy (strategy
// imports this package) nor anything doing I/O: callers hand it messages and
// bytes, and a Model when a language model is configured.
package summarize

import (
	"context"
	"errors"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
)

// A Request asks for a summary of an archived span.
type Request struct {
	// Messages are the archived messages, in order.
	Messages []transcript.Message
	// FromTurn and ToTurn locate the span in the source, [FromTurn, ToTurn).
	FromTurn, ToTurn int
	// Budget is the most tokens the summary may take (0 = summarizer default).
	Budget int
	// Merge says the messages are earlier summaries (Origin compact-summary)
	// to be folded into one: recursive summarization.
	Merge bool
	// Following are the messages that stay verbatim after the summary: a
	// summary need not repeat what they name, and what was said last
	// counts from their end.
	Following []transcript.Message
	// Cwd is the conversation's working folder: paths under it are
	// written relative to it.
	Cwd string
	// Fill says Budget is room the caller wants used (a compaction to a
	// budget), not only a cap: what the frontier leaves is filled with the
	// latest exchanges, verbatim.
	Fill bool
	// Recall, when set, names a content the summary leaves out (a file's
	// last content too long to quote) by a recall handle the agent can ask
	// compactd's recall tool for; nil writes no handles.
	Recall func(content string) string `json:"-"`
}

// A Summary is one archived span's summary with its metadata.
type Summary struct {
	Text             string
	FromTurn, ToTurn int
	Tokens           int
	// Model is the model that wrote it, or the offline summarizer's name.
	Model   string
	Created time.Time
	// Redacted counts secrets removed from the text before it left the process.
	Redacted int
	// Level is 0 for a summary of transcript turns and n+1 for a summary
	// that folds summaries of level ≤ n (recursive summarization).
	Level int
}

// A Summarizer writes summaries. Implementations must never return a blank
// summary: they return an error instead, and the pipeline carries on with
// mechanical steps only.
type Summarizer interface {
	Name() string
	Summarize(ctx context.Context, req Request) (Summary, error)
}

var (
	// ErrBlank is returned when a summarizer produced nothing usable; the
	// pipeline reports it and keeps the history.
	ErrBlank = errors.New("the summarizer returned an empty summary")
	// ErrNoNotes is returned by Notes when the notes file is empty or
	// missing: summarizing is skipped rather than producing an empty summary.
	ErrNoNotes = errors.New("the notes file is empty or missing, so nothing was summarized")
	// ErrNothingToSummarize is returned for a request with no messages.
	ErrNothingToSummarize = errors.New("there is nothing to summarize in the archived span")
)
