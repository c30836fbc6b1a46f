package modelserver

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func startTest(t *testing.T) *Server {
	t.Helper()
	script := &Script{Turns: map[string]Turn{
		"fix": {
			Steps: [][]Action{
				{{Kind: Read, Path: "/w/a.go"}, {Kind: Shell, Command: "go test ./..."}},
				{{Kind: Edit, Path: "/w/a.go", Old: "x := 1", New: "x := 2"}},
				{{Kind: Write, Path: "/w/b.go", Content: "package w\n"}},
			},
			Answer:   "Fixed the off-by-one.",
			Thinking: "Read first.",
		},
	}}
	srv, err := Start(Options{Script: script, LogDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func post(t *testing.T, url, body string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// sseData returns the data payloads of an event stream.
func sseData(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") || line == "data: [DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line[len("data: "):]), &m); err != nil {
			t.Fatalf("event data is not JSON: %s", line)
		}
		out = append(out, m)
	}
	return out
}

func TestStartRefusesNonLoopback(t *testing.T) {
	if _, err := StartAt("0.0.0.0:0", Options{}); err == nil {
		t.Fatal("listening on every interface was allowed")
	}
}

const anthropicTools = `"tools":[
	{"name":"Read","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}},
	{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"}},"required":["command"]}},
	{"name":"Edit","input_schema":{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"}}}},
	{"name":"Write","input_schema":{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}}}}]`

func TestAnthropicScriptedStream(t *testing.T) {
	srv := startTest(t)
	body := `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"thinking":{"type":"enabled","budget_tokens":50},"system":"You are terse.",` + anthropicTools + `,
		"messages":[{"role":"user","content":"Fix it [task:fix]"}]}`
	status, stream, hdr := post(t, srv.URL()+"/v1/messages", body)
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", status, hdr.Get("Content-Type"))
	}
	events := sseData(t, stream)
	var types []string
	var tools []string
	var usage map[string]any
	for _, e := range events {
		types = append(types, e["type"].(string))
		if cb, ok := e["content_block"].(map[string]any); ok && cb["type"] == "tool_use" {
			tools = append(tools, cb["name"].(string))
		}
		if e["type"] == "message_delta" {
			usage = e["usage"].(map[string]any)
		}
	}
	if types[0] != "message_start" || types[len(types)-1] != "message_stop" {
		t.Fatalf("event order: %v", types)
	}
	if strings.Join(tools, ",") != "Read,Bash" {
		t.Fatalf("step 1 should call Read and Bash together, got %v", tools)
	}
	if !strings.Contains(stream, `"signature_delta"`) {
		t.Fatal("thinking was not signed")
	}
	ex := srv.Exchanges()
	if len(ex) != 1 || ex[0].Task != "fix" || ex[0].Step != 0 || !ex[0].Scripted {
		t.Fatalf("exchange: %+v", ex)
	}
	u := ex[0].Usage
	in := int(usage["input_tokens"].(float64)) + int(usage["cache_creation_input_tokens"].(float64)) + int(usage["cache_read_input_tokens"].(float64))
	if in != u.Prompt || int(usage["output_tokens"].(float64)) != u.Output || u.Prompt < 20 {
		t.Fatalf("reported usage %v, recorded %+v", usage, u)
	}

	// The next request answers both calls: the script moves to the edit.
	var thinking, sig string
	var ids []string
	for _, e := range events {
		if d, ok := e["delta"].(map[string]any); ok {
			switch d["type"] {
			case "thinking_delta":
				thinking += d["thinking"].(string)
			case "signature_delta":
				sig = d["signature"].(string)
			}
		}
		if cb, ok := e["content_block"].(map[string]any); ok && cb["type"] == "tool_use" {
			ids = append(ids, cb["id"].(string))
		}
	}
	second := `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"thinking":{"type":"enabled","budget_tokens":50},"system":"You are terse.",` + anthropicTools + `,
		"messages":[{"role":"user","content":"Fix it [task:fix]"},
		{"role":"assistant","content":[{"type":"thinking","thinking":` + string(mustJSON(thinking)) + `,"signature":"` + sig + `"},
			{"type":"tool_use","id":"` + ids[0] + `","name":"Read","input":{"file_path":"/w/a.go"}},{"type":"tool_use","id":"` + ids[1] + `","name":"Bash","input":{"command":"go test ./..."}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + ids[0] + `","content":"x := 1"},{"type":"tool_result","tool_use_id":"` + ids[1] + `","content":"FAIL"}]}]}`
	status, stream, _ = post(t, srv.URL()+"/v1/messages", second)
	ex = srv.Exchanges()
	if status != 200 || len(ex[1].Reply.Calls) != 1 || ex[1].Reply.Calls[0].Name != "Edit" || ex[1].Reply.Calls[0].Args["old_string"] != "x := 1" {
		t.Fatalf("second step: %d %+v %s", status, ex[1].Reply, stream)
	}
	if ex[1].Step != 1 || ex[1].Usage.Cached == 0 {
		t.Fatalf("second exchange: step %d, usage %+v (the system prompt and tools should read as cached)", ex[1].Step, ex[1].Usage)
	}
}

func TestAnthropicRejectionShape(t *testing.T) {
	srv := startTest(t)
	status, body, _ := post(t, srv.URL()+"/v1/messages", `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"assistant","content":"x"}]}`)
	if status != 400 {
		t.Fatalf("status %d", status)
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) != nil || e.Type != "error" || e.Error.Type != "invalid_request_error" || e.Error.Message == "" {
		t.Fatalf("body %s", body)
	}
	if ex := srv.Exchanges(); ex[0].Rejected == "" || ex[0].Status != 400 {
		t.Fatalf("rejection not recorded: %+v", ex[0])
	}
}

func TestAnthropicCountTokens(t *testing.T) {
	srv := startTest(t)
	status, body, _ := post(t, srv.URL()+"/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"hello there, how are you"}]}`)
	if status != 200 || !strings.Contains(body, `"input_tokens":`) {
		t.Fatalf("%d %s", status, body)
	}
}

func TestResponsesScriptedStream(t *testing.T) {
	srv := startTest(t)
	tools := `"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}},
		{"type":"custom","name":"apply_patch","format":{"type":"grammar"}}]`
	body := `{"model":"gpt-5.5","stream":true,"store":false,"include":["reasoning.encrypted_content"],"reasoning":{"effort":"medium"},"instructions":"x",` + tools + `,
		"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix it [task:fix]"}]}]}`
	status, stream, _ := post(t, srv.URL()+"/v1/responses", body)
	if status != 200 {
		t.Fatalf("status %d: %s", status, stream)
	}
	var done []map[string]any
	var completed map[string]any
	for _, e := range sseData(t, stream) {
		switch e["type"] {
		case "response.output_item.done":
			done = append(done, e["item"].(map[string]any))
		case "response.completed":
			completed = e["response"].(map[string]any)
		}
	}
	if len(done) != 3 || done[0]["type"] != "reasoning" || done[1]["name"] != "exec_command" || done[2]["name"] != "exec_command" {
		t.Fatalf("items: %v", done)
	}
	if !strings.Contains(done[1]["arguments"].(string), `cat '/w/a.go'`) {
		t.Fatalf("a read becomes a shell cat for Codex: %v", done[1]["arguments"])
	}
	if completed == nil || completed["usage"].(map[string]any)["total_tokens"].(float64) <= 0 {
		t.Fatalf("response.completed: %v", completed)
	}
	// Answer both; the edit is a freeform apply_patch.
	enc := done[0]["encrypted_content"].(string)
	second := `{"model":"gpt-5.5","stream":true,"reasoning":{"effort":"medium"},` + tools + `,"input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix it [task:fix]"}]},
		{"type":"reasoning","summary":[],"encrypted_content":"` + enc + `"},
		{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"` + done[1]["call_id"].(string) + `"},
		{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"` + done[2]["call_id"].(string) + `"},
		{"type":"function_call_output","call_id":"` + done[1]["call_id"].(string) + `","output":"x"},
		{"type":"function_call_output","call_id":"` + done[2]["call_id"].(string) + `","output":"y"}]}`
	status, stream, _ = post(t, srv.URL()+"/v1/responses", second)
	if status != 200 || !strings.Contains(stream, `"type":"custom_tool_call"`) || !strings.Contains(stream, `*** Update File: /w/a.go`) {
		t.Fatalf("second step: %d %s", status, stream)
	}
	// A rejection in the Responses API's shape.
	status, body, _ = post(t, srv.URL()+"/v1/responses", `{"model":"m","input":[{"type":"function_call_output","call_id":"nope","output":"x"}]}`)
	var e struct {
		Error struct {
			Message, Type string
			Param         *string
		} `json:"error"`
	}
	if status != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, "No tool call found") {
		t.Fatalf("%d %s", status, body)
	}
}

func TestGeminiScriptedStream(t *testing.T) {
	srv := startTest(t)
	tools := `"tools":[{"functionDeclarations":[
		{"name":"read_file","parametersJsonSchema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}},
		{"name":"run_shell_command","parametersJsonSchema":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"}},"required":["command"]}},
		{"name":"replace","parametersJsonSchema":{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"instruction":{"type":"string"}},"required":["file_path","old_string","new_string","instruction"]}}]}]`
	body := `{"contents":[{"role":"user","parts":[{"text":"Fix it [task:fix]"}]}],` + tools + `}`
	status, stream, _ := post(t, srv.URL()+"/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse", body)
	if status != 200 {
		t.Fatalf("%d %s", status, stream)
	}
	events := sseData(t, stream)
	last := events[len(events)-1]
	parts := last["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)
	if len(parts) != 2 || parts[0].(map[string]any)["thoughtSignature"] == nil {
		t.Fatalf("gemini-3 calls come signed, two of them: %v", parts)
	}
	if last["usageMetadata"].(map[string]any)["totalTokenCount"].(float64) <= 0 {
		t.Fatalf("usage: %v", last["usageMetadata"])
	}
	// A structured side request gets a value of its schema.
	status, out, _ := post(t, srv.URL()+"/v1beta/models/gemini-3.5-flash-lite:generateContent", `{"contents":[{"role":"user","parts":[{"text":"route"}]}],
		"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{"reason":{"type":"STRING"},"score":{"type":"INTEGER"}},"required":["reason","score"]}}}`)
	if status != 200 || !strings.Contains(out, `{\"reason\":\"scripted\",\"score\":1}`) {
		t.Fatalf("%d %s", status, out)
	}
	// The rejection shape of the Gemini API.
	status, out, _ = post(t, srv.URL()+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"a","functionResponse":{"name":"f","response":{}}}]}]}`)
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	if status != 400 || json.Unmarshal([]byte(out), &e) != nil || e.Error.Status != "INVALID_ARGUMENT" || e.Error.Code != 400 {
		t.Fatalf("%d %s", status, out)
	}
	status, out, _ = post(t, srv.URL()+"/v1beta/models/gemini-2.5-pro:countTokens", `{"contents":[{"role":"user","parts":[{"text":"hello there"}]}]}`)
	if status != 200 || !strings.Contains(out, `"totalTokens":`) {
		t.Fatalf("%d %s", status, out)
	}
}

func TestChatScriptedStream(t *testing.T) {
	srv := startTest(t)
	tools := `"tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"filePath":{"type":"string"}}}}},
		{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"}}}}}]`
	body := `{"model":"e2e","stream":true,"stream_options":{"include_usage":true},` + tools + `,"messages":[{"role":"system","content":"x"},{"role":"user","content":"Fix it [task:fix]"}]}`
	status, stream, _ := post(t, srv.URL()+"/v1/chat/completions", body)
	if status != 200 || !strings.HasSuffix(strings.TrimSpace(stream), "data: [DONE]") {
		t.Fatalf("%d %s", status, stream)
	}
	events := sseData(t, stream)
	last := events[len(events)-1]
	if last["usage"] == nil || len(last["choices"].([]any)) != 0 {
		t.Fatalf("the last chunk carries the usage: %v", last)
	}
	if !strings.Contains(stream, `"name":"read"`) || !strings.Contains(stream, `\"filePath\":\"/w/a.go\"`) || !strings.Contains(stream, `"finish_reason":"tool_calls"`) {
		t.Fatalf("%s", stream)
	}
	status, out, _ := post(t, srv.URL()+"/v1/chat/completions", `{"model":"e2e","messages":[{"role":"tool","tool_call_id":"x","content":"y"}]}`)
	if status != 400 || !strings.Contains(out, `"param":"messages.[0].role"`) {
		t.Fatalf("%d %s", status, out)
	}
}

func TestUnknownTaskAndToollessRequestsGetText(t *testing.T) {
	srv := startTest(t)
	// A side request without tools (a title, a summary) never gets a call,
	// even when it quotes a tagged prompt.
	status, out, _ := post(t, srv.URL()+"/v1/messages", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Title for: Fix it [task:fix]"}]}`)
	if status != 200 || !strings.Contains(out, `"type":"text"`) || strings.Contains(out, "tool_use") {
		t.Fatalf("%d %s", status, out)
	}
	if ex := srv.Exchanges(); ex[0].Scripted {
		t.Fatal("a toolless request counted as scripted")
	}
}
