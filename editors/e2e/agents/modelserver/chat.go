package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

type chatRequest struct {
	Model         string            `json:"model"`
	Messages      []chatMessage     `json:"messages"`
	Tools         []json.RawMessage `json:"tools"`
	Stream        bool              `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ReasoningEffort string `json:"reasoning_effort"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []chatToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
	Reasoning  *string         `json:"reasoning_content"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name       string `json:"name"`
		Parameters struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		} `json:"parameters"`
	} `json:"function"`
}

// ValidateChat checks a Chat Completions request body as the API does.
func ValidateChat(body []byte) (*Conversation, error) {
	c, _, err, _ := parseChat(body)
	if err != nil {
		return c, err
	}
	return c, nil
}

// chatBlocks are a message's text parts one by one, nil for a string.
func chatBlocks(raw json.RawMessage) []string {
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return out
}

// checkChatImages checks the image parts of message i: only a user
// message carries them, each a URL the API takes. It returns the API's
// message and the parameter, "" for none.
func checkChatImages(m chatMessage, i int) (string, string) {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if len(m.Content) == 0 || m.Content[0] != '[' || json.Unmarshal(m.Content, &parts) != nil {
		return "", ""
	}
	for j, p := range parts {
		if p.Type != "image_url" {
			continue
		}
		if m.Role != "user" {
			return fmt.Sprintf("Invalid 'messages[%d]'. Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL.", i, m.Role), fmt.Sprintf("messages.[%d]", i)
		}
		param := fmt.Sprintf("messages[%d].content[%d].image_url.url", i, j)
		if p.ImageURL == nil {
			return fmt.Sprintf("Missing required parameter: '%s'.", param), param
		}
		if end := checkDataURL(p.ImageURL.URL); end != "" {
			return "Invalid image URL: '" + param + "'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), " + end, param
		}
	}
	return "", ""
}

// chatText flattens a message's content (a string, null or text parts).
func chatText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			if p.Type == "text" {
				out = append(out, p.Text)
			}
		}
		return strings.Join(out, "\n"), true
	}
	return "", false
}

func parseChat(body []byte) (*Conversation, *chatRequest, *apiError, string) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, invalid("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON."), ""
	}
	c := &Conversation{API: APIChat, Model: req.Model, Stream: req.Stream, Thinking: req.ReasoningEffort != ""}
	if req.Model == "" {
		return c, &req, invalid("you must provide a model parameter"), ""
	}
	for _, raw := range req.Tools {
		var t chatTool
		if json.Unmarshal(raw, &t) == nil && t.Type == "function" {
			c.Tools = append(c.Tools, Tool{Name: t.Function.Name, Params: t.Function.Parameters.Properties, Required: t.Function.Parameters.Required})
		}
	}
	if len(req.Messages) == 0 {
		return c, &req, invalid("[] is too short - 'messages'"), "messages"
	}
	// pending are the tool_call ids of the latest assistant message not
	// answered yet; tool messages must follow it, one per id.
	var pending map[string]bool
	var pendingAt int
	for i, m := range req.Messages {
		at := fmt.Sprintf("messages.[%d]", i)
		if m.Role != "tool" && len(pending) > 0 {
			return c, &req, invalid("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(keys(pending), ", ")), fmt.Sprintf("messages.[%d].role", pendingAt)
		}
		text, hasText := chatText(m.Content)
		if msg, param := checkChatImages(m, i); msg != "" {
			return c, &req, invalid("%s", msg), param
		}
		switch m.Role {
		case "system", "developer":
			c.System += text
		case "user":
			if !hasText && len(m.Content) > 0 && string(m.Content) != "null" {
				// image-only content: fine
			} else if !hasText {
				return c, &req, invalid("Invalid value for 'content': expected a string, got null."), at + ".content"
			}
			c.Items = append(c.Items, Item{Role: "user", Kind: KindText, Text: text})
		case "assistant":
			if m.Reasoning != nil && *m.Reasoning != "" {
				c.Items = append(c.Items, Item{Role: "assistant", Kind: KindReasoning, Text: *m.Reasoning})
			}
			if !hasText && len(m.ToolCalls) == 0 {
				return c, &req, invalid("Invalid value for 'content': expected a string, got null."), at + ".content"
			}
			if hasText && text != "" {
				c.Items = append(c.Items, Item{Role: "assistant", Kind: KindText, Text: text})
			}
			pending, pendingAt = map[string]bool{}, i
			for j, tc := range m.ToolCalls {
				if tc.ID == "" {
					return c, &req, invalid("Missing required parameter: 'messages[%d].tool_calls[%d].id'.", i, j), fmt.Sprintf("messages.[%d].tool_calls.[%d].id", i, j)
				}
				pending[tc.ID] = true
				c.Items = append(c.Items, Item{Role: "assistant", Kind: KindCall, Name: tc.Function.Name, CallID: tc.ID, Text: tc.Function.Arguments})
			}
		case "tool":
			if !pending[m.ToolCallID] {
				return c, &req, invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."), at + ".role"
			}
			delete(pending, m.ToolCallID)
			c.Items = append(c.Items, Item{Role: "tool", Kind: KindResult, CallID: m.ToolCallID, Text: text, Blocks: chatBlocks(m.Content)})
		default:
			return c, &req, invalid("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role), at + ".role"
		}
	}
	if len(pending) > 0 {
		return c, &req, invalid("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(keys(pending), ", ")), fmt.Sprintf("messages.[%d].role", pendingAt)
	}
	return c, &req, nil, ""
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func (s *Server) chat(w *recorder, ex *Exchange, body []byte) {
	c, req, apiErr, param := parseChat(body)
	if apiErr != nil {
		s.reject(w, ex, c, apiErr.Status, apiErr.Message, openAIError(apiErr, param))
		return
	}
	p, err := s.opts.Script.decide(c)
	if err != nil {
		e := &apiError{Status: 500, Message: "script: " + err.Error()}
		s.reject(w, ex, c, 500, e.Message, openAIError(e, ""))
		return
	}
	if !c.Thinking {
		p.Reply.Thinking = ""
	}
	for i := range p.Reply.Calls {
		p.Reply.Calls[i].ID = s.nextID("call_")
	}
	var system []any
	var rest []any
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, decoded(mustJSON(m))...)
		} else {
			rest = append(rest, decoded(mustJSON(m))...)
		}
	}
	u := s.usage(append(system, decoded(mustJSON(req.Tools))...), rest, p.Reply)
	s.finish(ex, c, p, u)
	s.wait()
	id := s.nextID("chatcmpl-")
	created := time.Now().Unix()
	usage := map[string]any{"prompt_tokens": u.Prompt, "completion_tokens": u.Output, "total_tokens": u.Prompt + u.Output,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.Cached},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning}}
	finish := "stop"
	if len(p.Reply.Calls) > 0 {
		finish = "tool_calls"
	}
	var calls []map[string]any
	for i, call := range p.Reply.Calls {
		args, _ := json.Marshal(call.Args)
		calls = append(calls, map[string]any{"index": i, "id": call.ID, "type": "function", "function": map[string]any{"name": call.Name, "arguments": string(args)}})
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nilIfEmpty(p.Reply.Text)}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		if p.Reply.Thinking != "" {
			msg["reasoning_content"] = p.Reply.Thinking
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	ev := startSSE(w)
	chunk := func(delta map[string]any, finish any) {
		ev.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, piece := range chunks(p.Reply.Thinking) {
		chunk(map[string]any{"reasoning_content": piece}, nil)
	}
	for _, piece := range chunks(p.Reply.Text) {
		chunk(map[string]any{"content": piece}, nil)
	}
	for i, call := range calls {
		fn := call["function"].(map[string]any)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": call["id"], "type": "function", "function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": fn["arguments"]}}}}, nil)
	}
	chunk(map[string]any{}, finish)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		ev.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": []any{}, "usage": usage})
	}
	ev.event("", "[DONE]")
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
