package summarize

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Notes uses a notes file the agent or the user keeps as the summary
// (Nominal Code's notes-based compaction): no model call, the notes are
// the signal. The daemon reads the file and hands its bytes here; a nil
// Content means the file was missing.
type Notes struct {
	// Content is the notes file's bytes.
	Content []byte
	// Source names the notes file in the summary's metadata and errors.
	Source string
	// Counter measures the summary; nil estimates.
	Counter TokenCounter
	// Now stamps summaries (nil = time.Now).
	Now func() time.Time
}

// Name reports the summarizer's name in pipelines and reports.
func (n *Notes) Name() string { return "notes" }

// Summarize returns the notes as the span's summary. Empty, blank or
// missing notes return ErrNoNotes: summarizing is skipped, never turned
// into an empty summary. Secrets in the notes are redacted too, since the
// summary lands in a fork the agent sends to its model.
func (n *Notes) Summarize(ctx context.Context, req Request) (Summary, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	content := bytes.TrimPrefix(n.Content, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(content)) == 0 {
		if n.Source != "" {
			return Summary{}, fmt.Errorf("notes %s: %w", n.Source, ErrNoNotes)
		}
		return Summary{}, ErrNoNotes
	}
	text := strings.TrimSpace(strings.ToValidUTF8(string(content), string(utf8.RuneError)))
	text, redacted := Redact(text)
	header := "The conversation's earlier part was compacted; these notes, kept during the work, stand for it."
	full := header + "\n\n" + text
	return Summary{
		Text:     full,
		FromTurn: req.FromTurn,
		ToTurn:   req.ToTurn,
		Tokens:   countTokens(n.Counter, full),
		Model:    "notes",
		Created:  now(n.Now),
		Redacted: redacted,
		Level:    mergeLevel(req),
	}, nil
}
