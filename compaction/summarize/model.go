package summarize

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// A Completion is a model's reply.
type Completion struct {
	Text string
	// Model is the model that answered, as the provider named it.
	Model string
	// StopReason is the provider's finish reason ("stop", "end_turn", "length", …).
	StopReason   string
	InputTokens  int
	OutputTokens int
}

// A Model completes prompts. daemon/llm implements it over HTTP for the
// OpenAI-compatible and Anthropic APIs. Implementations return an error —
// never a blank completion — for provider errors, timeouts and empty
// replies, honour ctx cancellation, and keep secrets out of their errors.
type Model interface {
	// Name is the configured model name, for summaries' metadata.
	Name() string
	Complete(ctx context.Context, p Prompt) (Completion, error)
}

// LLM is the Summarizer backed by a language model.
type LLM struct {
	Model Model
	// Instructions are appended to DefaultPrompt (custom, per user).
	Instructions string
	// MaxTokens caps the summary when the request sets no budget (0 = 2048).
	MaxTokens int
	// Counter measures the summary; nil falls back to the provider's count.
	Counter TokenCounter
	// Render controls how the transcript is rendered into the prompt.
	Render RenderOptions
	// Now stamps summaries (nil = time.Now).
	Now func() time.Time
}

// Name reports the summarizer's name in pipelines and reports.
func (l *LLM) Name() string { return "summarize" }

// Summarize asks the model for a summary of req's span. Secrets are
// redacted before the prompt leaves the process; a failed or blank reply
// is an error, never an empty summary.
func (l *LLM) Summarize(ctx context.Context, req Request) (Summary, error) {
	if len(req.Messages) == 0 {
		return Summary{}, ErrNothingToSummarize
	}
	prompt, redacted := BuildPrompt(req, l.Instructions, l.Render)
	prompt.MaxTokens = req.Budget
	if prompt.MaxTokens <= 0 {
		prompt.MaxTokens = l.MaxTokens
	}
	if prompt.MaxTokens <= 0 {
		prompt.MaxTokens = 2048
	}
	span := fmt.Sprintf("turns %d–%d", req.FromTurn, req.ToTurn-1)
	comp, err := l.Model.Complete(ctx, prompt)
	if err != nil {
		return Summary{}, fmt.Errorf("summarize %s with %s: %w", span, l.Model.Name(), err)
	}
	text := strings.TrimSpace(comp.Text)
	if text == "" {
		return Summary{}, fmt.Errorf("summarize %s with %s: %w", span, l.Model.Name(), ErrBlank)
	}
	// The prompt carried no secrets, but the model may echo lookalikes.
	text, echoed := Redact(text)
	model := comp.Model
	if model == "" {
		model = l.Model.Name()
	}
	n := comp.OutputTokens
	if l.Counter != nil {
		n = l.Counter.Text(text)
	} else if n == 0 {
		n = estimateTokens(text)
	}
	return Summary{
		Text:     text,
		FromTurn: req.FromTurn,
		ToTurn:   req.ToTurn,
		Tokens:   n,
		Model:    model,
		Created:  now(l.Now),
		Redacted: redacted + echoed,
		Level:    mergeLevel(req),
	}, nil
}

func now(f func() time.Time) time.Time {
	if f != nil {
		return f()
	}
	return time.Now()
}

// estimateTokens is the fallback when no counter is at hand: bytes/3 errs
// on the high side for transcript text, which is the safe side for budgets.
func estimateTokens(s string) int { return (len(s) + 2) / 3 }

// countTokens measures s with c, or estimates it.
func countTokens(c TokenCounter, s string) int {
	if c != nil {
		return c.Text(s)
	}
	return estimateTokens(s)
}

// A TokenCounter counts the tokens of text; *tokens.Counter is one. It is
// an interface so summaries can be measured with whatever encoding the
// conversation's model uses.
type TokenCounter interface {
	Text(s string) int
}
