package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

type anthRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []anthMessage   `json:"messages"`
	Tools     json.RawMessage `json:"tools"`
	Stream    bool            `json:"stream"`
	Thinking  *struct {
		Type string `json:"type"`
	} `json:"thinking"`
}

type anthMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthBlock struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	Thinking     *string         `json:"thinking"`
	Signature    *string         `json:"signature"`
	Data         *string         `json:"data"`
	CacheControl json.RawMessage `json:"cache_control"`
	Source       *anthSource     `json:"source"`
	IsError      bool            `json:"is_error"`
}

type anthTool struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	InputSchema struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	} `json:"input_schema"`
}

// An apiError is a rejection in a real API's words.
type apiError struct {
	Status  int
	Message string
}

func (e *apiError) Error() string { return e.Message }

func invalid(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func anthropicError(e *apiError) map[string]any {
	typ := "invalid_request_error"
	if e.Status == http.StatusNotFound {
		typ = "not_found_error"
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": e.Message}, "request_id": "req_e2e"}
}

// blocks returns a message's content as blocks (a string is one text block).
func (m anthMessage) blocks() ([]anthBlock, error) {
	if len(m.Content) > 0 && m.Content[0] == '"' {
		var s string
		if err := json.Unmarshal(m.Content, &s); err != nil {
			return nil, err
		}
		return []anthBlock{{Type: "text", Text: &s}}, nil
	}
	var bs []anthBlock
	if err := json.Unmarshal(m.Content, &bs); err != nil {
		return nil, err
	}
	return bs, nil
}

var (
	toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
	toolIDRE   = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
)

// ValidateAnthropic checks a Messages API request body as the API does and
// returns its view; the error is the API's message for a 400.
func ValidateAnthropic(body []byte) (*Conversation, error) {
	c, _, err := parseAnthropic(body, false)
	if err != nil {
		return c, err
	}
	return c, nil
}

func parseAnthropic(body []byte, countOnly bool) (*Conversation, *anthRequest, *apiError) {
	var req anthRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, invalid("The request body is not valid JSON: %v", err)
	}
	c := &Conversation{API: APIAnthropic, Model: req.Model, Stream: req.Stream}
	c.Thinking = req.Thinking != nil && (req.Thinking.Type == "enabled" || req.Thinking.Type == "adaptive")
	if req.Model == "" {
		return c, &req, invalid("model: Field required")
	}
	// System: a string or text blocks.
	if len(req.System) > 0 {
		var s string
		if json.Unmarshal(req.System, &s) == nil {
			c.System = s
		} else {
			var bs []anthBlock
			if err := json.Unmarshal(req.System, &bs); err != nil {
				return c, &req, invalid("system: Input should be a valid list")
			}
			var parts []string
			for i, b := range bs {
				if b.Type != "text" || b.Text == nil {
					return c, &req, invalid("system.%d.type: Input should be 'text'", i)
				}
				parts = append(parts, *b.Text)
			}
			c.System = strings.Join(parts, "\n")
		}
	}
	if len(req.Tools) > 0 {
		var tools []anthTool
		if err := json.Unmarshal(req.Tools, &tools); err != nil {
			return c, &req, invalid("tools: Input should be a valid list")
		}
		seen := map[string]bool{}
		for i, t := range tools {
			if !toolNameRE.MatchString(t.Name) {
				return c, &req, invalid("tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i)
			}
			if seen[t.Name] {
				return c, &req, invalid("tools: Tool names must be unique.")
			}
			seen[t.Name] = true
			c.Tools = append(c.Tools, Tool{Name: t.Name, Params: t.InputSchema.Properties, Required: t.InputSchema.Required})
		}
	}
	if len(req.Messages) == 0 {
		return c, &req, invalid("messages: at least one message is required")
	}
	all := make([][]anthBlock, len(req.Messages))
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return c, &req, invalid("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		bs, err := m.blocks()
		if err != nil {
			return c, &req, invalid("messages.%d.content: Input should be a valid string or a valid list", i)
		}
		all[i] = bs
	}
	if req.Messages[0].Role != "user" {
		return c, &req, invalid("messages: first message must use the \"user\" role")
	}
	// "Consecutive user or assistant turns in your request will be
	// combined into a single turn" (the Messages API reference): the rules
	// below hold for the combined turns. Claude Code itself sends two user
	// messages in a row after its own compaction.
	type turn struct {
		Role  string
		first int // the index of the turn's first message, for error messages
	}
	var turns []turn
	var merged [][]anthBlock
	for i, m := range req.Messages {
		if len(turns) > 0 && turns[len(turns)-1].Role == m.Role {
			merged[len(merged)-1] = append(merged[len(merged)-1], all[i]...)
			continue
		}
		turns = append(turns, turn{Role: m.Role, first: i})
		merged = append(merged, append([]anthBlock(nil), all[i]...))
	}
	all = merged
	cacheControls := 0
	toolUseIDs := map[string]bool{}
	for i, m := range turns {
		bs := all[i]
		last := i == len(turns)-1
		if len(bs) == 0 && !(last && m.Role == "assistant") {
			return c, &req, invalid("messages.%d: all messages must have non-empty content except for the optional final assistant message", m.first)
		}
		seenOther := false
		results := map[string]bool{} // the turn's tool_result ids
		for j, b := range bs {
			if len(b.CacheControl) > 0 && string(b.CacheControl) != "null" {
				cacheControls++
			}
			at := fmt.Sprintf("messages.%d.content.%d", m.first, j)
			switch b.Type {
			case "text":
				if b.Text == nil {
					return c, &req, invalid("%s.text: Field required", at)
				}
				if *b.Text == "" {
					return c, &req, invalid("messages: text content blocks must be non-empty")
				}
				if strings.TrimSpace(*b.Text) == "" && !(last && m.Role == "assistant") {
					return c, &req, invalid("messages: text content blocks must contain non-whitespace text")
				}
				c.Items = append(c.Items, Item{Role: m.Role, Kind: KindText, Text: *b.Text})
				seenOther = true
			case "image", "document":
				if m.Role != "user" {
					return c, &req, invalid("%s.type: %s blocks are only allowed in user messages", at, b.Type)
				}
				if b.Type == "image" {
					if err := checkAnthImage(b.Source, at); err != nil {
						return c, &req, err
					}
				}
				seenOther = true
			case "tool_use":
				if m.Role != "assistant" {
					return c, &req, invalid("%s.type: Input tag 'tool_use' found using 'type' does not match any of the expected tags for user messages", at)
				}
				if !toolIDRE.MatchString(b.ID) {
					return c, &req, invalid("%s.id: String should match pattern '^[a-zA-Z0-9_-]+$'", at)
				}
				if toolUseIDs[b.ID] {
					return c, &req, invalid("messages.%d.content.%d: `tool_use` ids must be unique", m.first, j)
				}
				toolUseIDs[b.ID] = true
				if len(b.Input) == 0 || b.Input[0] != '{' {
					return c, &req, invalid("%s.input: Input should be a valid dictionary", at)
				}
				c.Items = append(c.Items, Item{Role: m.Role, Kind: KindCall, Name: b.Name, CallID: b.ID, Text: string(b.Input)})
			case "tool_result":
				if m.Role != "user" {
					return c, &req, invalid("%s.type: Input tag 'tool_result' found using 'type' does not match any of the expected tags for assistant messages", at)
				}
				if seenOther {
					// The API wants a user turn's tool results before any other content.
					return c, &req, invalid("messages.%d: `tool_result` blocks must come before any other content in the user message", m.first)
				}
				if results[b.ToolUseID] {
					return c, &req, invalid("%s: each tool_use must have a single result. Found multiple `tool_result` blocks with id: %s", at, b.ToolUseID)
				}
				results[b.ToolUseID] = true
				if err := checkToolResultContent(b.Content, at); err != nil {
					return c, &req, err
				}
				if body := strings.TrimSpace(string(b.Content)); b.IsError && (body == "" || body == "null" || body == `""` || body == "[]") {
					return c, &req, invalid("%s.tool_result: content cannot be empty if `is_error` is true", at)
				}
				c.Items = append(c.Items, Item{Role: m.Role, Kind: KindResult, CallID: b.ToolUseID, Text: resultText(b.Content), Blocks: resultBlocks(b.Content), Images: resultImages(b.Content)})
			case "thinking":
				if m.Role != "assistant" {
					return c, &req, invalid("%s.type: thinking blocks are only allowed in assistant messages", at)
				}
				if b.Thinking == nil {
					return c, &req, invalid("%s.thinking: Field required", at)
				}
				if b.Signature == nil {
					return c, &req, invalid("%s.signature: Field required", at)
				}
				if !validThinkingSignature(*b.Thinking, *b.Signature) {
					return c, &req, invalid("%s: Invalid `signature` in `thinking` block", at)
				}
				c.Items = append(c.Items, Item{Role: m.Role, Kind: KindReasoning, Text: *b.Thinking})
			case "redacted_thinking":
				if m.Role != "assistant" || b.Data == nil || *b.Data == "" {
					return c, &req, invalid("%s.data: Field required", at)
				}
				c.Items = append(c.Items, Item{Role: m.Role, Kind: KindReasoning})
			case "server_tool_use", "web_search_tool_result":
				seenOther = true
			default:
				return c, &req, invalid("%s.type: Input tag '%s' found using 'type' does not match any of the expected tags", at, b.Type)
			}
		}
		// Every tool_use is answered in the next message, and every
		// tool_result answers a tool_use of the previous one.
		if m.Role == "assistant" {
			var want []string
			for _, b := range bs {
				if b.Type == "tool_use" {
					want = append(want, b.ID)
				}
			}
			if len(want) > 0 {
				got := map[string]bool{}
				if i+1 < len(turns) {
					for _, b := range all[i+1] {
						if b.Type == "tool_result" {
							got[b.ToolUseID] = true
						}
					}
				}
				var missing []string
				for _, id := range want {
					if !got[id] {
						missing = append(missing, id)
					}
				}
				if len(missing) > 0 {
					return c, &req, invalid("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", m.first+1, strings.Join(missing, ", "))
				}
			}
		} else {
			prev := map[string]bool{}
			if i > 0 {
				for _, b := range all[i-1] {
					if b.Type == "tool_use" {
						prev[b.ID] = true
					}
				}
			}
			for j, b := range bs {
				if b.Type == "tool_result" && !prev[b.ToolUseID] {
					return c, &req, invalid("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", m.first, j, b.ToolUseID)
				}
			}
		}
	}
	if cacheControls > 4 {
		return c, &req, invalid("A maximum of 4 blocks with cache_control may be provided. Found %d.", cacheControls)
	}
	// With thinking on, the assistant message of an unfinished tool loop
	// (the last assistant message, answered by tool results) starts with
	// its thinking.
	if c.Thinking && len(turns) >= 2 {
		li := len(turns) - 1
		if turns[li].Role == "user" && hasType(all[li], "tool_result") && turns[li-1].Role == "assistant" {
			bs := all[li-1]
			if len(bs) > 0 && bs[0].Type != "thinking" && bs[0].Type != "redacted_thinking" {
				return c, &req, invalid("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", turns[li-1].first, bs[0].Type)
			}
		}
	}
	if req.MaxTokens == nil && !countOnly {
		return c, &req, invalid("max_tokens: Field required")
	}
	return c, &req, nil
}

func hasType(bs []anthBlock, typ string) bool {
	for _, b := range bs {
		if b.Type == typ {
			return true
		}
	}
	return false
}

// resultText flattens a tool_result's content (a string or blocks).
// resultBlocks are a tool_result's text blocks, nil for a string.
func resultBlocks(raw json.RawMessage) []string {
	var bs []anthBlock
	if json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	var out []string
	for _, b := range bs {
		if b.Text != nil {
			out = append(out, *b.Text)
		}
	}
	return out
}

// resultImages counts a tool_result's image blocks.
func resultImages(raw json.RawMessage) int {
	var bs []anthBlock
	if json.Unmarshal(raw, &bs) != nil {
		return 0
	}
	n := 0
	for _, b := range bs {
		if b.Type == "image" {
			n++
		}
	}
	return n
}

func resultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []anthBlock
	if json.Unmarshal(raw, &bs) == nil {
		var parts []string
		for _, b := range bs {
			if b.Text != nil {
				parts = append(parts, *b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

func (s *Server) anthropic(w *recorder, ex *Exchange, body []byte, countOnly bool) {
	c, req, apiErr := parseAnthropic(body, countOnly)
	if apiErr != nil {
		s.reject(w, ex, c, apiErr.Status, apiErr.Message, anthropicError(apiErr))
		return
	}
	var msgs []any
	for _, m := range req.Messages {
		msgs = append(msgs, decoded(m.Content)...)
	}
	prefix := decoded(req.System, req.Tools)
	if countOnly {
		u := s.usage(prefix, msgs, Reply{})
		s.finish(ex, c, plan{}, Usage{Prompt: u.Prompt})
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": u.Prompt})
		return
	}
	p, err := s.opts.Script.decide(c)
	if err != nil {
		s.reject(w, ex, c, http.StatusInternalServerError, err.Error(), map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": "script: " + err.Error()}})
		return
	}
	if !c.Thinking {
		p.Reply.Thinking = ""
	}
	for i := range p.Reply.Calls {
		p.Reply.Calls[i].ID = s.nextID("toolu_01")
	}
	u := s.usage(prefix, msgs, p.Reply)
	s.finish(ex, c, p, u)
	s.wait()
	id := s.nextID("msg_01")
	usage := map[string]any{
		"input_tokens":                u.Prompt - u.Cached - u.CacheCreation,
		"cache_creation_input_tokens": u.CacheCreation,
		"cache_read_input_tokens":     u.Cached,
		"output_tokens":               u.Output,
		"service_tier":                "standard",
	}
	var content []map[string]any
	if p.Reply.Thinking != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": p.Reply.Thinking, "signature": signThinking(p.Reply.Thinking)})
	}
	if p.Reply.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": p.Reply.Text})
	}
	for _, call := range p.Reply.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": call.ID, "name": call.Name, "input": call.Args})
	}
	stop := "end_turn"
	if len(p.Reply.Calls) > 0 {
		stop = "tool_use"
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	ev := startSSE(w)
	startUsage := map[string]any{}
	for k, v := range usage {
		startUsage[k] = v
	}
	startUsage["output_tokens"] = 1
	ev.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant",
		"model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	ev.event("ping", map[string]any{"type": "ping"})
	for i, b := range content {
		switch b["type"] {
		case "thinking":
			ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, piece := range chunks(p.Reply.Thinking) {
				ev.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": piece}})
			}
			ev.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": b["signature"]}})
		case "text":
			ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range chunks(p.Reply.Text) {
				ev.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		case "tool_use":
			ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			args, _ := json.Marshal(b["input"])
			for _, piece := range chunks(string(args)) {
				ev.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		}
		ev.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usage})
	ev.event("message_stop", map[string]any{"type": "message_stop"})
}
