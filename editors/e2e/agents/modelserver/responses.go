package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

type respRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        json.RawMessage   `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	Stream       bool              `json:"stream"`
	Reasoning    *struct {
		Effort  string `json:"effort"`
		Summary string `json:"summary"`
	} `json:"reasoning"`
	Include            []string `json:"include"`
	PreviousResponseID string   `json:"previous_response_id"`
}

type respItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        *string         `json:"arguments"`
	Input            *string         `json:"input"`
	Output           json.RawMessage `json:"output"`
	Namespace        string          `json:"namespace"`
	Summary          []respPart      `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
}

type respPart struct {
	Type     string  `json:"type"`
	Text     string  `json:"text"`
	ImageURL *string `json:"image_url"`
	FileID   string  `json:"file_id"`
}

type respTool struct {
	Type string `json:"type"`
	Name string `json:"name"`
	// Tools are a namespace's own tools.
	Tools      []respTool `json:"tools"`
	Parameters struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	} `json:"parameters"`
}

func openAIError(e *apiError, param string) map[string]any {
	typ := "invalid_request_error"
	if e.Status >= 500 {
		typ = "server_error"
	}
	var p any
	if param != "" {
		p = param
	}
	return map[string]any{"error": map[string]any{"message": e.Message, "type": typ, "param": p, "code": nil}}
}

// ValidateResponses checks a Responses API request body as the API does.
func ValidateResponses(body []byte) (*Conversation, error) {
	c, _, err, _ := parseResponses(body)
	if err != nil {
		return c, err
	}
	return c, nil
}

// followsReasoning are the items a reasoning item may precede: what the
// model produced after reasoning.
var followsReasoning = map[string]bool{"function_call": true, "custom_tool_call": true, "local_shell_call": true,
	"web_search_call": true, "reasoning": true, "image_generation_call": true, "code_interpreter_call": true, "mcp_call": true}

func parseResponses(body []byte) (*Conversation, *respRequest, *apiError, string) {
	var req respRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, invalid("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON."), ""
	}
	c := &Conversation{API: APIResponses, Model: req.Model, Stream: req.Stream, System: req.Instructions}
	c.Thinking = req.Reasoning != nil
	if req.Model == "" {
		return c, &req, invalid("Missing required parameter: 'model'."), "model"
	}
	for i, raw := range req.Tools {
		var t respTool
		if err := json.Unmarshal(raw, &t); err != nil {
			return c, &req, invalid("Invalid type for 'tools[%d]': expected an object.", i), fmt.Sprintf("tools[%d]", i)
		}
		switch t.Type {
		case "function":
			c.Tools = append(c.Tools, Tool{Name: t.Name, Params: t.Parameters.Properties, Required: t.Parameters.Required})
		case "custom":
			c.Tools = append(c.Tools, Tool{Name: t.Name, Freeform: true})
		case "namespace":
			// A namespace groups function tools (Codex's MCP servers);
			// the model calls one by name with the namespace beside it.
			if t.Name == "" || len(t.Tools) == 0 {
				return c, &req, invalid("Invalid 'tools[%d]': a namespace needs a name and at least one tool.", i), fmt.Sprintf("tools[%d]", i)
			}
			for j, nt := range t.Tools {
				if nt.Type != "function" || nt.Name == "" {
					return c, &req, invalid("Invalid 'tools[%d].tools[%d]': a namespace holds function tools.", i, j), fmt.Sprintf("tools[%d].tools[%d]", i, j)
				}
				c.Tools = append(c.Tools, Tool{Name: nt.Name, Namespace: t.Name, Params: nt.Parameters.Properties, Required: nt.Parameters.Required})
			}
		}
	}
	var items []respItem
	if len(req.Input) > 0 && req.Input[0] == '"' {
		var s string
		json.Unmarshal(req.Input, &s)
		items = []respItem{{Type: "message", Role: "user", Content: req.Input}}
	} else if err := json.Unmarshal(req.Input, &items); err != nil {
		return c, &req, invalid("Invalid type for 'input': expected one of a string or array of input items."), "input"
	}
	calls := map[string]string{}  // call_id -> item type
	answered := map[string]bool{} // call_id answered by an output
	order := []string{}           // call ids in order
	for i, it := range items {
		at := fmt.Sprintf("input[%d]", i)
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch typ {
		case "message":
			switch it.Role {
			case "user", "system", "developer", "assistant":
			default:
				return c, &req, invalid("Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", it.Role), at + ".role"
			}
			texts, errMsg, param := messageTexts(it, at)
			if errMsg != "" {
				return c, &req, invalid("%s", errMsg), param
			}
			for _, t := range texts {
				c.Items = append(c.Items, Item{Role: it.Role, Kind: KindText, Text: t})
			}
		case "function_call", "custom_tool_call", "local_shell_call":
			if it.CallID == "" {
				return c, &req, invalid("Missing required parameter: '%s.call_id'.", at), at + ".call_id"
			}
			if _, dup := calls[it.CallID]; dup {
				return c, &req, invalid("Duplicate value for 'call_id' of %s in 'input'.", it.CallID), at + ".call_id"
			}
			calls[it.CallID] = typ
			order = append(order, it.CallID)
			text := ""
			if it.Arguments != nil {
				text = *it.Arguments
			} else if it.Input != nil {
				text = *it.Input
			} else if typ != "local_shell_call" {
				return c, &req, invalid("Missing required parameter: '%s.arguments'.", at), at
			}
			name := it.Name
			if it.Namespace != "" {
				name = it.Namespace + "__" + it.Name
			}
			c.Items = append(c.Items, Item{Role: "assistant", Kind: KindCall, Name: name, CallID: it.CallID, Text: text})
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			want := strings.TrimSuffix(typ, "_output")
			if calls[it.CallID] != want && !(typ == "function_call_output" && calls[it.CallID] == "local_shell_call") {
				kind := "function call"
				if typ == "custom_tool_call_output" {
					kind = "custom tool call"
				}
				return c, &req, invalid("No tool call found for %s output with call_id %s.", kind, it.CallID), "input"
			}
			if len(it.Output) > 0 && it.Output[0] == '[' {
				var parts []respPart
				if err := json.Unmarshal(it.Output, &parts); err != nil {
					return c, &req, invalid("Invalid type for '%s.output': expected one of a string or array of input content parts.", at), at + ".output"
				}
				for j, p := range parts {
					pat := fmt.Sprintf("%s.output[%d]", at, j)
					switch p.Type {
					case "input_text":
					case "input_image":
						if msg := checkInputImage(p, pat); msg != "" {
							return c, &req, invalid("%s", msg), pat + ".image_url"
						}
					case "input_file":
					default:
						return c, &req, invalid("Invalid value: '%s'. Supported values are: 'input_text', 'input_image', and 'input_file'.", p.Type), pat + ".type"
					}
				}
			}
			answered[it.CallID] = true
			c.Items = append(c.Items, Item{Role: "tool", Kind: KindResult, CallID: it.CallID, Text: outputText(it.Output), Blocks: outputBlocks(it.Output)})
		case "reasoning":
			next := ""
			if i+1 < len(items) {
				next = items[i+1].Type
			}
			if !followsReasoning[next] && !(next == "message" && items[i+1].Role == "assistant") {
				id := it.ID
				if id == "" {
					id = at
				}
				return c, &req, invalid("Item '%s' of type 'reasoning' was provided without its required following item.", id), "input"
			}
			if it.EncryptedContent != nil && !validEncryptedReasoning(*it.EncryptedContent) {
				return c, &req, &apiError{Status: http.StatusBadRequest, Message: fmt.Sprintf("The encrypted content for item %s could not be verified.", orAt(it.ID, at))}, "input"
			}
			var sum []string
			for _, p := range it.Summary {
				sum = append(sum, p.Text)
			}
			c.Items = append(c.Items, Item{Role: "assistant", Kind: KindReasoning, Text: strings.Join(sum, "\n")})
		case "web_search_call", "image_generation_call", "compaction", "compaction_summary", "item_reference":
			// Accepted as the API accepts them; nothing the script reads.
		default:
			return c, &req, invalid("Invalid value: '%s'. Supported values are: 'message', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', …", typ), at + ".type"
		}
	}
	if req.PreviousResponseID == "" {
		for _, id := range order {
			if !answered[id] {
				kind := "function call"
				if calls[id] == "custom_tool_call" {
					kind = "custom tool call"
				}
				return c, &req, invalid("No tool output found for %s %s.", kind, id), "input"
			}
		}
	}
	return c, &req, nil, ""
}

func orAt(id, at string) string {
	if id != "" {
		return id
	}
	return at
}

// messageTexts returns a message item's texts, checking each part's type
// against the role (input_* for user/system/developer, output_text or
// refusal for assistant).
func messageTexts(it respItem, at string) ([]string, string, string) {
	if len(it.Content) > 0 && it.Content[0] == '"' {
		var s string
		json.Unmarshal(it.Content, &s)
		return []string{s}, "", ""
	}
	var parts []respPart
	if err := json.Unmarshal(it.Content, &parts); err != nil {
		return nil, fmt.Sprintf("Invalid type for '%s.content': expected one of a string or array of input content parts.", at), at + ".content"
	}
	var out []string
	for j, p := range parts {
		pat := fmt.Sprintf("%s.content[%d]", at, j)
		if it.Role == "assistant" {
			if p.Type != "output_text" && p.Type != "refusal" {
				return nil, fmt.Sprintf("Invalid value: '%s'. Supported values are: 'output_text' and 'refusal'.", p.Type), pat
			}
		} else if p.Type != "input_text" && p.Type != "input_image" && p.Type != "input_file" {
			return nil, fmt.Sprintf("Invalid value: '%s'. Supported values are: 'input_text', 'input_image', and 'input_file'.", p.Type), pat
		}
		if p.Type == "input_image" {
			if msg := checkInputImage(p, pat); msg != "" {
				return nil, msg, pat + ".image_url"
			}
		}
		if p.Type == "input_text" || p.Type == "output_text" {
			out = append(out, p.Text)
		}
	}
	return out, "", ""
}

// checkInputImage checks an input_image part at pat: an image_url the API
// takes, or a file_id; "" when it is good, else the API's message.
func checkInputImage(p respPart, pat string) string {
	if p.ImageURL == nil {
		if p.FileID != "" {
			return ""
		}
		return fmt.Sprintf("Missing required parameter: '%s.image_url'.", pat)
	}
	if end := checkDataURL(*p.ImageURL); end != "" {
		return dataURLError(pat+".image_url", end)
	}
	return ""
}

// outputBlocks are a function_call_output's content items, nil for a string.
func outputBlocks(raw json.RawMessage) []string {
	var parts []respPart
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Text
	}
	return out
}

func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []respPart
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return strings.Join(out, "\n")
	}
	return string(raw)
}

func (s *Server) responses(w *recorder, ex *Exchange, body []byte) {
	c, req, apiErr, param := parseResponses(body)
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
	encrypted := false
	for _, inc := range req.Include {
		encrypted = encrypted || inc == "reasoning.encrypted_content"
	}
	if req.Reasoning == nil {
		p.Reply.Thinking = ""
	}
	for i := range p.Reply.Calls {
		p.Reply.Calls[i].ID = s.nextID("call_")
	}
	var tools []json.RawMessage
	for _, t := range req.Tools {
		tools = append(tools, t)
	}
	toolsRaw, _ := json.Marshal(tools)
	u := s.usage(decoded(json.RawMessage(mustJSON(req.Instructions)), toolsRaw), decoded(req.Input), p.Reply)
	s.finish(ex, c, p, u)
	s.wait()
	var output []map[string]any
	if p.Reply.Thinking != "" {
		item := map[string]any{"type": "reasoning", "id": s.nextID("rs_"), "summary": []any{map[string]any{"type": "summary_text", "text": p.Reply.Thinking}}}
		if encrypted {
			item["encrypted_content"] = encryptReasoning(p.Reply.Thinking)
		}
		output = append(output, item)
	}
	if p.Reply.Text != "" {
		output = append(output, map[string]any{"type": "message", "id": s.nextID("msg_"), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": p.Reply.Text, "annotations": []any{}}}})
	}
	for _, call := range p.Reply.Calls {
		if call.Freeform {
			output = append(output, map[string]any{"type": "custom_tool_call", "id": s.nextID("ctc_"), "status": "completed", "call_id": call.ID, "name": call.Name, "input": call.Input})
		} else {
			args, _ := json.Marshal(call.Args)
			item := map[string]any{"type": "function_call", "id": s.nextID("fc_"), "status": "completed", "call_id": call.ID, "name": call.Name, "arguments": string(args)}
			if call.Namespace != "" {
				item["namespace"] = call.Namespace
			}
			output = append(output, item)
		}
	}
	respID := s.nextID("resp_")
	usage := map[string]any{
		"input_tokens": u.Prompt, "input_tokens_details": map[string]any{"cached_tokens": u.Cached},
		"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens": u.Prompt + u.Output,
	}
	now := time.Now().Unix()
	response := func(status string, out []map[string]any, usage any) map[string]any {
		return map[string]any{"id": respID, "object": "response", "created_at": now, "status": status, "model": req.Model,
			"output": out, "usage": usage, "parallel_tool_calls": true, "store": false}
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, response("completed", output, usage))
		return
	}
	ev := startSSE(w)
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		ev.event(typ, fields)
	}
	send("response.created", map[string]any{"response": response("in_progress", []map[string]any{}, nil)})
	send("response.in_progress", map[string]any{"response": response("in_progress", []map[string]any{}, nil)})
	for i, item := range output {
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		switch item["type"] {
		case "message":
			added["content"] = []any{}
			added["status"] = "in_progress"
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			send("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, piece := range chunks(p.Reply.Text) {
				send("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "delta": piece})
			}
			send("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "text": p.Reply.Text})
			send("response.content_part.done", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": p.Reply.Text, "annotations": []any{}}})
		case "reasoning":
			added["summary"] = []any{}
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			send("response.reasoning_summary_part.added", map[string]any{"item_id": item["id"], "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
			for _, piece := range chunks(p.Reply.Thinking) {
				send("response.reasoning_summary_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "summary_index": 0, "delta": piece})
			}
			send("response.reasoning_summary_text.done", map[string]any{"item_id": item["id"], "output_index": i, "summary_index": 0, "text": p.Reply.Thinking})
		case "function_call":
			added["arguments"] = ""
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			send("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": i, "delta": item["arguments"]})
			send("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": i, "arguments": item["arguments"]})
		case "custom_tool_call":
			added["input"] = ""
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			send("response.custom_tool_call_input.delta", map[string]any{"item_id": item["id"], "output_index": i, "delta": item["input"]})
			send("response.custom_tool_call_input.done", map[string]any{"item_id": item["id"], "output_index": i, "input": item["input"]})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	send("response.completed", map[string]any{"response": response("completed", output, usage)})
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
