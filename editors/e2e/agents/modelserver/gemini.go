package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

type gemRequest struct {
	Contents          []gemContent      `json:"contents"`
	SystemInstruction *gemContent       `json:"systemInstruction"`
	Tools             []json.RawMessage `json:"tools"`
	GenerationConfig  *struct {
		ResponseMimeType   string         `json:"responseMimeType"`
		ResponseSchema     map[string]any `json:"responseSchema"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		ThinkingConfig     *struct {
			IncludeThoughts bool `json:"includeThoughts"`
			ThinkingBudget  *int `json:"thinkingBudget"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

type gemContent struct {
	Role  string                       `json:"role"`
	Parts []map[string]json.RawMessage `json:"parts"`
}

// gemDataFields are the members of Part's oneof "data": a Part carries
// exactly one of them (thought and thoughtSignature sit beside it).
var gemDataFields = []string{"text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode", "codeExecutionResult"}

type gemTool struct {
	FunctionDeclarations []struct {
		Name                 string     `json:"name"`
		Parameters           *gemSchema `json:"parameters"`
		ParametersJSONSchema *gemSchema `json:"parametersJsonSchema"`
	} `json:"functionDeclarations"`
}

type gemSchema struct {
	Properties map[string]any `json:"properties"`
	Required   []string       `json:"required"`
}

func geminiError(code int, msg, status string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}
}

// ValidateGemini checks a generateContent request body as the Gemini API does.
func ValidateGemini(body []byte) (*Conversation, error) {
	c, _, err := parseGemini(body, "")
	if err != nil {
		return c, err
	}
	return c, nil
}

func gemInvalid(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func parseGemini(body []byte, model string) (*Conversation, *gemRequest, *apiError) {
	var req gemRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, gemInvalid("Invalid JSON payload received. %v", err)
	}
	c := &Conversation{API: APIGemini, Model: model}
	if g := req.GenerationConfig; g != nil && g.ThinkingConfig != nil {
		c.Thinking = g.ThinkingConfig.IncludeThoughts
	}
	if si := req.SystemInstruction; si != nil {
		for _, p := range si.Parts {
			var t string
			if json.Unmarshal(p["text"], &t) == nil {
				c.System += t
			}
		}
	}
	for _, raw := range req.Tools {
		var t gemTool
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		for _, f := range t.FunctionDeclarations {
			s := f.Parameters
			if s == nil {
				s = f.ParametersJSONSchema
			}
			tool := Tool{Name: f.Name}
			if s != nil {
				tool.Params, tool.Required = s.Properties, s.Required
			}
			c.Tools = append(c.Tools, tool)
		}
	}
	if len(req.Contents) == 0 {
		return c, &req, gemInvalid("* GenerateContentRequest.contents: contents is not specified\n")
	}
	for i, content := range req.Contents {
		if content.Role != "" && content.Role != "user" && content.Role != "model" {
			return c, &req, gemInvalid("Please use a valid role: user, model.")
		}
		role := "user"
		if content.Role == "model" {
			role = "assistant"
		}
		if len(content.Parts) == 0 {
			return c, &req, gemInvalid("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.\n", i)
		}
		for j, part := range content.Parts {
			var set []string
			for _, f := range gemDataFields {
				if v, ok := part[f]; ok && string(v) != "null" {
					set = append(set, f)
				}
			}
			if len(set) == 0 {
				return c, &req, gemInvalid("* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field\n", i, j)
			}
			if len(set) > 1 {
				// The API names the field it met second in its own order;
				// which one is not significant, the rejection is.
				return c, &req, gemInvalid("Invalid value at 'contents[%d].parts[%d]' (oneof), oneof field 'data' is already set. Cannot overwrite with '%s'", i, j, snake(set[1]))
			}
			if sig, ok := part["thoughtSignature"]; ok {
				var s string
				if json.Unmarshal(sig, &s) != nil || !validThoughtSignature(s) {
					return c, &req, gemInvalid("Unable to submit request because Thought signature is not valid.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini")
				}
			}
			switch set[0] {
			case "text":
				var t string
				json.Unmarshal(part["text"], &t)
				var thought bool
				json.Unmarshal(part["thought"], &thought)
				kind := KindText
				if thought {
					kind = KindReasoning
				}
				c.Items = append(c.Items, Item{Role: role, Kind: kind, Text: t})
			case "functionCall":
				if content.Role != "model" {
					return c, &req, gemInvalid("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
				}
				var fc struct {
					Name string          `json:"name"`
					ID   string          `json:"id"`
					Args json.RawMessage `json:"args"`
				}
				json.Unmarshal(part["functionCall"], &fc)
				if fc.Name == "" {
					return c, &req, gemInvalid("* GenerateContentRequest.contents[%d].parts[%d].function_call.name: Name cannot be empty.\n", i, j)
				}
				c.Items = append(c.Items, Item{Role: role, Kind: KindCall, Name: fc.Name, CallID: fc.ID, Text: string(fc.Args)})
			case "functionResponse":
				var fr struct {
					Name     string          `json:"name"`
					ID       string          `json:"id"`
					Response json.RawMessage `json:"response"`
				}
				json.Unmarshal(part["functionResponse"], &fr)
				if fr.Name == "" {
					return c, &req, gemInvalid("* GenerateContentRequest.contents[%d].parts[%d].function_response.name: Name cannot be empty.\n", i, j)
				}
				c.Items = append(c.Items, Item{Role: "tool", Kind: KindResult, Name: fr.Name, CallID: fr.ID, Text: string(fr.Response)})
			case "inlineData":
				if err := checkGeminiBlob(part["inlineData"], i, j); err != nil {
					return c, &req, err
				}
				c.Items = append(c.Items, Item{Role: role, Kind: set[0]})
			default:
				c.Items = append(c.Items, Item{Role: role, Kind: set[0]})
			}
		}
	}
	// Function calls and responses pair turn by turn. The API reads
	// consecutive contents of one role as one turn (Gemini CLI 0.61 sends
	// each function response twice, in two user contents, when it resumes
	// a session it wrote itself). A turn of calls follows a user turn and
	// is answered by the next turn, which holds a response for each call;
	// a turn of responses follows the turn of calls it answers.
	type span struct {
		role      string
		first     int
		calls     []string
		responses []string
		text      bool
	}
	var spans []span
	for i, content := range req.Contents {
		role := content.Role
		if role == "" {
			role = "user"
		}
		if len(spans) == 0 || spans[len(spans)-1].role != role {
			spans = append(spans, span{role: role, first: i})
		}
		sp := &spans[len(spans)-1]
		for _, part := range content.Parts {
			var f struct {
				Name string `json:"name"`
				ID   string `json:"id"`
			}
			if raw, ok := part["functionCall"]; ok && json.Unmarshal(raw, &f) == nil {
				sp.calls = append(sp.calls, f.ID+"/"+f.Name)
			} else if raw, ok := part["functionResponse"]; ok && json.Unmarshal(raw, &f) == nil {
				sp.responses = append(sp.responses, f.ID+"/"+f.Name)
			} else if _, ok := part["text"]; ok {
				sp.text = true
			}
		}
	}
	for k, sp := range spans {
		if len(sp.calls) > 0 && k > 0 && len(spans[k-1].responses) == 0 && !spans[k-1].text {
			return c, &req, gemInvalid("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
		}
		if len(sp.responses) > 0 {
			if k == 0 || len(spans[k-1].calls) == 0 {
				return c, &req, gemInvalid("Please ensure that function response turn comes immediately after a function call turn.")
			}
			calls := map[string]bool{}
			for _, id := range spans[k-1].calls {
				calls[id] = true
			}
			answered := map[string]bool{}
			for _, id := range sp.responses {
				if !calls[id] {
					return c, &req, gemInvalid("Please ensure that function response turn comes immediately after a function call turn.")
				}
				answered[id] = true
			}
			if len(answered) != len(calls) {
				return c, &req, gemInvalid("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
			}
		}
		if len(sp.calls) > 0 && k+1 < len(spans) && len(spans[k+1].responses) == 0 {
			return c, &req, gemInvalid("Please ensure that function response turn comes immediately after a function call turn.")
		}
	}
	// Gemini 3 models: in the current turn (since the last user text),
	// each model step's first function call carries its thought signature.
	if strings.HasPrefix(model, "gemini-3") {
		start := 0
		for k, sp := range spans {
			if sp.role == "user" && sp.text {
				start = k
			}
		}
		for _, sp := range spans[start:] {
			if sp.role != "model" {
				continue
			}
			for i := sp.first; i < len(req.Contents) && req.Contents[i].Role == "model"; i++ {
				for j, part := range req.Contents[i].Parts {
					if raw, ok := part["functionCall"]; ok {
						if _, signed := part["thoughtSignature"]; !signed {
							var f struct {
								Name string `json:"name"`
							}
							json.Unmarshal(raw, &f)
							return c, &req, gemInvalid("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", f.Name, j+1)
						}
						break
					}
				}
			}
		}
	}
	return c, &req, nil
}

// snake turns a proto JSON name into its field name (functionResponse ->
// function_response), as the API's messages spell it.
func snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (s *Server) geminiCount(w *recorder, ex *Exchange, body []byte) {
	// countTokens takes {contents} or {generateContentRequest: {...}}.
	var wrapped struct {
		GenerateContentRequest json.RawMessage `json:"generateContentRequest"`
	}
	if json.Unmarshal(body, &wrapped) == nil && len(wrapped.GenerateContentRequest) > 0 {
		body = wrapped.GenerateContentRequest
	}
	c, req, apiErr := parseGemini(body, "")
	if apiErr != nil {
		s.reject(w, ex, c, apiErr.Status, apiErr.Message, geminiError(apiErr.Status, apiErr.Message, "INVALID_ARGUMENT"))
		return
	}
	var contents []any
	for _, ct := range req.Contents {
		contents = append(contents, decoded(mustJSON(ct))...)
	}
	u := s.usage(nil, contents, Reply{})
	s.finish(ex, c, plan{}, Usage{Prompt: u.Prompt})
	writeJSON(w, http.StatusOK, map[string]any{"totalTokens": u.Prompt})
}

func (s *Server) gemini(w *recorder, ex *Exchange, body []byte, model string, stream, sseAlt bool) {
	c, req, apiErr := parseGemini(body, model)
	if apiErr != nil {
		s.reject(w, ex, c, apiErr.Status, apiErr.Message, geminiError(apiErr.Status, apiErr.Message, "INVALID_ARGUMENT"))
		return
	}
	c.Stream = stream
	var p plan
	if g := req.GenerationConfig; g != nil && g.ResponseMimeType == "application/json" {
		// A structured side request (Gemini CLI's routing classifier, its
		// next-speaker check): the answer is the smallest value the
		// schema accepts.
		schema := g.ResponseJSONSchema
		if schema == nil {
			schema = g.ResponseSchema
		}
		p = plan{Reply: Reply{Text: string(mustJSON(fillSchema(schema)))}}
	} else {
		var err error
		p, err = s.opts.Script.decide(c)
		if err != nil {
			s.reject(w, ex, c, 500, err.Error(), geminiError(500, "script: "+err.Error(), "INTERNAL"))
			return
		}
	}
	if !c.Thinking {
		p.Reply.Thinking = ""
	}
	var contents []any
	for _, ct := range req.Contents {
		contents = append(contents, decoded(mustJSON(ct))...)
	}
	var sys json.RawMessage
	if req.SystemInstruction != nil {
		sys = mustJSON(req.SystemInstruction)
	}
	u := s.usage(decoded(sys, mustJSON(req.Tools)), contents, p.Reply)
	s.finish(ex, c, p, u)
	s.wait()
	var parts []map[string]any
	if p.Reply.Thinking != "" {
		parts = append(parts, map[string]any{"text": p.Reply.Thinking, "thought": true})
	}
	if p.Reply.Text != "" {
		parts = append(parts, map[string]any{"text": p.Reply.Text})
	}
	for _, call := range p.Reply.Calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": call.Name, "args": call.Args}})
	}
	// Gemini 3 signs every step's first function call (and thinking
	// models their first part after the thoughts).
	signed := p.Reply.Thinking != "" || strings.HasPrefix(model, "gemini-3")
	for _, part := range parts {
		if signed && part["thought"] == nil {
			part["thoughtSignature"] = thoughtSignature(p.Reply.Thinking + p.Reply.Text)
			break
		}
	}
	usage := map[string]any{"promptTokenCount": u.Prompt, "candidatesTokenCount": u.Output - u.Reasoning, "totalTokenCount": u.Prompt + u.Output}
	if u.Cached > 0 {
		usage["cachedContentTokenCount"] = u.Cached
	}
	if u.Reasoning > 0 {
		usage["thoughtsTokenCount"] = u.Reasoning
	}
	respID := s.nextID("resp")
	final := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": usage, "modelVersion": model, "responseId": respID,
	}
	if !stream {
		writeJSON(w, http.StatusOK, final)
		return
	}
	if !sseAlt {
		// Without alt=sse the stream is one JSON array of responses.
		writeJSON(w, http.StatusOK, []any{final})
		return
	}
	ev := startSSE(w)
	// Text arrives in pieces; the last chunk carries the calls, the finish
	// reason and the usage, as the API sends them.
	var head []map[string]any
	for _, part := range parts {
		if _, isCall := part["functionCall"]; isCall {
			continue
		}
		t := part["text"].(string)
		for _, piece := range chunks(t) {
			q := map[string]any{"text": piece}
			if part["thought"] == true {
				q["thought"] = true
			}
			head = append(head, q)
		}
	}
	var tail []map[string]any
	for _, part := range parts {
		if _, isCall := part["functionCall"]; isCall {
			tail = append(tail, part)
		}
	}
	if len(tail) == 0 && len(head) > 0 {
		tail, head = head[len(head)-1:], head[:len(head)-1]
	}
	for _, q := range head {
		ev.event("", map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{q}}, "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": u.Prompt, "totalTokenCount": u.Prompt}, "modelVersion": model, "responseId": respID})
	}
	if signed && len(tail) > 0 && tail[0]["thought"] == nil {
		tail[0]["thoughtSignature"] = thoughtSignature(p.Reply.Thinking + p.Reply.Text)
	}
	ev.event("", map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": tail}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": usage, "modelVersion": model, "responseId": respID})
}

// fillSchema returns the smallest value a (Gemini or JSON) schema accepts:
// required properties only, the first enum value, 1 for numbers.
func fillSchema(schema map[string]any) any {
	if schema == nil {
		return map[string]any{}
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	switch strings.ToLower(typ) {
	case "string":
		return "scripted"
	case "integer", "number":
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	out := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	for _, r := range required {
		name, _ := r.(string)
		if sub, ok := props[name].(map[string]any); ok {
			out[name] = fillSchema(sub)
		}
	}
	return out
}
