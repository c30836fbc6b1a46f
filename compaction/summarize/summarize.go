// Package summarize turns archived spans of a conversation into summaries:
// the Summarizer interface the compaction pipeline calls, the default prompt,
// secret redaction, and the offline summarizers (extractive, notes). Model
// providers implement Summarizer in daemon/llm; this package opens no
// network connection.
package summarize

import (
	"context"
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
}

// A Summarizer writes summaries. Implementations must never return a blank
// summary: they return an error instead, and the pipeline carries on with
// mechanical steps only.
type Summarizer interface {
	Name() string
	Summarize(ctx context.Context, req Request) (Summary, error)
}
