package llm

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/compactd/compactd/compaction/summarize"
)

// OpenAI speaks the OpenAI-compatible Chat Completions API: POST
// {base}/chat/completions with a bearer key. OpenAI, Ollama, llama.cpp
// server, vLLM and LM Studio all serve it.
type OpenAI struct{ c client }

// Name implements summarize.Model.
func (o *OpenAI) Name() string { return o.c.cfg.Model }

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatReply struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// Complete implements summarize.Model.
func (o *OpenAI) Complete(ctx context.Context, p summarize.Prompt) (summarize.Completion, error) {
	maxTokens := p.MaxTokens
	if maxTokens <= 0 {
		maxTokens = o.c.cfg.MaxTokens
	}
	field := o.c.cfg.MaxTokensField
	if field == "" {
		field = "max_tokens"
	}
	body := map[string]any{
		"model": o.c.cfg.Model,
		"messages": []chatMessage{
			{Role: "system", Content: p.System},
			{Role: "user", Content: p.User},
		},
		field:         maxTokens,
		"temperature": 0,
	}
	headers := map[string]string{}
	if o.c.key != "" {
		headers["Authorization"] = "Bearer " + o.c.key
	}
	var r chatReply
	if err := o.c.post(ctx, "OpenAI-compatible", o.c.cfg.BaseURL+"/chat/completions", headers, body, &r, openAIError); err != nil {
		return summarize.Completion{}, err
	}
	if len(r.Choices) == 0 {
		return summarize.Completion{}, blankReply("OpenAI-compatible", o.c.cfg.Model, "no choices")
	}
	ch := r.Choices[0]
	text := ""
	if ch.Message.Content != nil {
		text = *ch.Message.Content
	}
	if strings.TrimSpace(text) == "" {
		stop := ch.FinishReason
		if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
			stop = "refusal: " + summarize.Truncate(*ch.Message.Refusal, 160)
		}
		return summarize.Completion{}, blankReply("OpenAI-compatible", o.c.cfg.Model, stop)
	}
	return summarize.Completion{
		Text:         text,
		Model:        r.Model,
		StopReason:   ch.FinishReason,
		InputTokens:  r.Usage.PromptTokens,
		OutputTokens: r.Usage.CompletionTokens,
	}, nil
}

// openAIError reads {"error": {"message", "type", "code"}}; some servers
// (older Ollama, llama.cpp) send {"error": "message"}.
func openAIError(data []byte) (typ, msg string) {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &e) != nil || len(e.Error) == 0 {
		return "", ""
	}
	var obj struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(e.Error, &obj) == nil {
		return obj.Type, obj.Message
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return "", s
	}
	return "", ""
}
