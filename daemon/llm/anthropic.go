package llm

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/compactd/compactd/compaction/summarize"
)

// Anthropic speaks the Anthropic Messages API: POST {base}/v1/messages
// with x-api-key and anthropic-version headers.
type Anthropic struct{ c client }

// Name implements summarize.Model.
func (a *Anthropic) Name() string { return a.c.cfg.Model }

type messagesReply struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Role    string `json:"role"`
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// Complete implements summarize.Model.
func (a *Anthropic) Complete(ctx context.Context, p summarize.Prompt) (summarize.Completion, error) {
	maxTokens := p.MaxTokens
	if maxTokens <= 0 {
		maxTokens = a.c.cfg.MaxTokens
	}
	body := map[string]any{
		"model":      a.c.cfg.Model,
		"max_tokens": maxTokens,
		"system":     p.System,
		"messages": []map[string]string{
			{"role": "user", "content": p.User},
		},
		"temperature": 0,
	}
	headers := map[string]string{"anthropic-version": AnthropicVersion}
	if a.c.key != "" {
		headers["x-api-key"] = a.c.key
	}
	var r messagesReply
	if err := a.c.post(ctx, "Anthropic", a.c.cfg.BaseURL+"/v1/messages", headers, body, &r, anthropicError); err != nil {
		return summarize.Completion{}, err
	}
	var texts []string
	for _, b := range r.Content {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if strings.TrimSpace(text) == "" {
		return summarize.Completion{}, blankReply("Anthropic", a.c.cfg.Model, r.StopReason)
	}
	return summarize.Completion{
		Text:         text,
		Model:        r.Model,
		StopReason:   r.StopReason,
		InputTokens:  r.Usage.InputTokens,
		OutputTokens: r.Usage.OutputTokens,
	}, nil
}

// anthropicError reads {"type": "error", "error": {"type", "message"}}.
func anthropicError(data []byte) (typ, msg string) {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &e) != nil {
		return "", ""
	}
	return e.Error.Type, e.Error.Message
}
