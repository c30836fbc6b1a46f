package modelserver

import (
	"strings"
	"testing"
)

// Every rule of every validator has a request the real API accepts and one
// it rejects; the rejection must carry the real API's words.

type validationCase struct {
	name string
	body string
	// want is a substring of the rejection; "" means the request is valid.
	want string
}

func runValidation(t *testing.T, validate func([]byte) (*Conversation, error), cases []validationCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := validate([]byte(tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid request rejected: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("invalid request accepted; want a rejection containing %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("rejection %q does not contain %q", err.Error(), tc.want)
			}
		})
	}
}

func TestValidateAnthropic(t *testing.T) {
	sig := signThinking("plan")
	runValidation(t, ValidateAnthropic, []validationCase{
		{"a tool loop", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"read it"},
			{"role":"assistant","content":[{"type":"text","text":"reading"},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"},{"type":"text","text":"<system-reminder>r</system-reminder>"}]},
			{"role":"assistant","content":"done"},
			{"role":"user","content":"thanks"}]}`, ""},
		{"first message is assistant", `{"model":"m","max_tokens":10,"messages":[{"role":"assistant","content":"hi"},{"role":"user","content":"x"}]}`,
			`first message must use the "user" role`},
		// The API combines consecutive turns of one role (Claude Code sends
		// two user messages in a row after its own compaction); the rules
		// hold for the combined turn.
		{"two user messages in a row", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, ""},
		{"a tool result after text, in the next user message", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},
			{"role":"user","content":"wait"},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`,
			"`tool_result` blocks must come before any other content"},
		{"unknown role", `{"model":"m","max_tokens":10,"messages":[{"role":"system","content":"a"}]}`, `Input should be 'user' or 'assistant'`},
		{"tool_use without its result", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},
			{"role":"user","content":"next"}]}`, "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{"tool_use last, unanswered", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}]}`,
			"`tool_use` ids were found without `tool_result` blocks immediately after"},
		{"orphan tool_result", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":"ok"},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"x"}]}]}`,
			"unexpected `tool_use_id` found in `tool_result` blocks: toolu_9"},
		{"tool_result after text", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},
			{"role":"user","content":[{"type":"text","text":"hm"},{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`,
			"`tool_result` blocks must come before any other content"},
		{"duplicate tool_use ids", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`, "`tool_use` ids must be unique"},
		{"empty content", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[]},{"role":"user","content":"b"}]}`,
			"all messages must have non-empty content"},
		{"empty text block", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`,
			"text content blocks must be non-empty"},
		{"whitespace text block", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"  \n"}]}]}`,
			"text content blocks must contain non-whitespace text"},
		{"signed thinking", `{"model":"m","max_tokens":10,"thinking":{"type":"enabled","budget_tokens":5},"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"` + sig + `"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`, ""},
		{"thinking without signature", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"plan"},{"type":"text","text":"x"}]},{"role":"user","content":"y"}]}`,
			"signature: Field required"},
		{"thinking edited after signing", `{"model":"m","max_tokens":10,"messages":[
			{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"plan, edited","signature":"` + sig + `"},{"type":"text","text":"x"}]},{"role":"user","content":"y"}]}`,
			"Invalid `signature` in `thinking` block"},
		{"thinking in a user message", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"thinking","thinking":"plan","signature":"` + sig + `"}]}]}`,
			"thinking blocks are only allowed in assistant messages"},
		{"thinking on, tool loop without its thinking", `{"model":"m","max_tokens":10,"thinking":{"type":"enabled","budget_tokens":5},"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`,
			"a final `assistant` message must start with a thinking block"},
		{"five cache_control blocks", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[` +
			strings.Repeat(`{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},`, 4) + `{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]}`,
			"A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{"no max_tokens", `{"model":"m","messages":[{"role":"user","content":"a"}]}`, "max_tokens: Field required"},
		{"no messages", `{"model":"m","max_tokens":10,"messages":[]}`, "at least one message is required"},
		{"tool_use in a user message", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}]}`,
			"Input tag 'tool_use'"},
		{"tool_result in an assistant message", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`,
			"Input tag 'tool_result'"},
		{"tool_use input not an object", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":"ls"}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`, "input: Input should be a valid dictionary"},
		{"redacted thinking without data", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"redacted_thinking"},{"type":"text","text":"x"}]},{"role":"user","content":"y"}]}`,
			"data: Field required"},
		{"unknown block type", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"banana"}]}]}`, "Input tag 'banana'"},
		{"tool name with a space", `{"model":"m","max_tokens":10,"tools":[{"name":"my tool","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"a"}]}`,
			"String should match pattern"},
		{"duplicate tool names", `{"model":"m","max_tokens":10,"tools":[{"name":"Bash","input_schema":{}},{"name":"Bash","input_schema":{}}],"messages":[{"role":"user","content":"a"}]}`,
			"Tool names must be unique"},
		{"system block that is not text", `{"model":"m","max_tokens":10,"system":[{"type":"image"}],"messages":[{"role":"user","content":"a"}]}`,
			"system.0.type: Input should be 'text'"},
	})
}

func TestValidateResponses(t *testing.T) {
	enc := encryptReasoning("plan")
	runValidation(t, ValidateResponses, []validationCase{
		{"a tool loop", `{"model":"gpt-5.5","input":[
			{"type":"message","role":"developer","content":[{"type":"input_text","text":"be good"}]},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><cwd>/w</cwd></environment_context>"}]},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},
			{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"` + enc + `"},
			{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"call_1"},
			{"type":"function_call_output","call_id":"call_1","output":"a.txt"},
			{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n","call_id":"call_2"},
			{"type":"custom_tool_call_output","call_id":"call_2","output":"ok"},
			{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"thanks"}]}]}`, ""},
		{"output without its call", `{"model":"m","input":[{"type":"message","role":"user","content":"go"},{"type":"function_call_output","call_id":"call_7","output":"x"}]}`,
			"No tool call found for function call output with call_id call_7."},
		{"custom output without its call", `{"model":"m","input":[{"type":"message","role":"user","content":"go"},{"type":"custom_tool_call_output","call_id":"call_7","output":"x"}]}`,
			"No tool call found for custom tool call output with call_id call_7."},
		{"call without its output", `{"model":"m","input":[{"type":"message","role":"user","content":"go"},{"type":"function_call","name":"f","arguments":"{}","call_id":"call_3"},{"type":"message","role":"user","content":"next"}]}`,
			"No tool output found for function call call_3."},
		{"reasoning without its following item", `{"model":"m","input":[{"type":"message","role":"user","content":"go"},{"type":"reasoning","id":"rs_5","summary":[]},{"type":"message","role":"user","content":"next"}]}`,
			"Item 'rs_5' of type 'reasoning' was provided without its required following item."},
		{"reasoning last", `{"model":"m","input":[{"type":"message","role":"user","content":"go"},{"type":"reasoning","id":"rs_6","summary":[]}]}`,
			"Item 'rs_6' of type 'reasoning' was provided without its required following item."},
		{"reasoning content not ours", `{"model":"m","input":[{"type":"message","role":"user","content":"go"},{"type":"reasoning","id":"rs_7","summary":[],"encrypted_content":"gAAAAAforged"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}]}`,
			"The encrypted content for item rs_7 could not be verified."},
		{"assistant with input_text", `{"model":"m","input":[{"type":"message","role":"assistant","content":[{"type":"input_text","text":"x"}]}]}`,
			"Supported values are: 'output_text' and 'refusal'."},
		{"user with output_text", `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"output_text","text":"x"}]}]}`,
			"Supported values are: 'input_text', 'input_image', and 'input_file'."},
		{"unknown role", `{"model":"m","input":[{"type":"message","role":"tool","content":"x"}]}`, "Invalid value: 'tool'."},
		{"unknown item type", `{"model":"m","input":[{"type":"whatever"}]}`, "Invalid value: 'whatever'."},
		{"duplicate call ids", `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}","call_id":"c"},{"type":"function_call","name":"f","arguments":"{}","call_id":"c"},{"type":"function_call_output","call_id":"c","output":"x"}]}`,
			"Duplicate value for 'call_id'"},
		{"no model", `{"input":"hi"}`, "Missing required parameter: 'model'."},
		{"custom call without its output", `{"model":"m","input":[{"type":"message","role":"user","content":"go"},{"type":"custom_tool_call","name":"apply_patch","input":"x","call_id":"call_4"}]}`,
			"No tool output found for custom tool call call_4."},
		{"call without a call_id", `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]}`, "Missing required parameter: 'input[0].call_id'."},
		{"message content of the wrong type", `{"model":"m","input":[{"type":"message","role":"user","content":42}]}`, "Invalid type for 'input[0].content'"},
	})
}

func TestValidateGemini(t *testing.T) {
	sig := thoughtSignature("plan")
	runValidation(t, ValidateGemini, []validationCase{
		{"a tool loop", `{"contents":[
			{"role":"user","parts":[{"text":"<session_context>…</session_context>"}]},
			{"role":"user","parts":[{"text":"go"}]},
			{"role":"model","parts":[{"text":"plan","thought":true},{"functionCall":{"id":"c1","name":"read_file","args":{"file_path":"/a"}},"thoughtSignature":"` + sig + `"}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}}]},
			{"role":"model","parts":[{"text":"done"}]},
			{"role":"user","parts":[{"text":"thanks"}]}]}`, ""},
		{"a response sent twice, as Gemini CLI resumes its own sessions", `{"contents":[
			{"role":"user","parts":[{"text":"go"}]},
			{"role":"model","parts":[{"functionCall":{"id":"c1","name":"read_file","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{}}}]},
			{"role":"model","parts":[{"text":"done"}]}]}`, ""},
		{"two data fields in one part", `{"contents":[
			{"role":"user","parts":[{"text":"go"}]},
			{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}},"text":"[compacted]"}]}]}`,
			"oneof field 'data' is already set"},
		{"a part without data", `{"contents":[{"role":"user","parts":[{"thought":true}]}]}`,
			"required oneof field 'data' must have one initialized field"},
		{"unknown role", `{"contents":[{"role":"assistant","parts":[{"text":"x"}]}]}`, "Please use a valid role: user, model."},
		{"response without its call", `{"contents":[
			{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"ok"}]},
			{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`,
			"function response turn comes immediately after a function call turn"},
		{"response naming another call", `{"contents":[
			{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"id":"a","name":"f","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"b","name":"f","response":{}}}]}]}`,
			"function response turn comes immediately after a function call turn"},
		{"call without its response", `{"contents":[
			{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},
			{"role":"user","parts":[{"text":"next"}]}]}`,
			"function response turn comes immediately after a function call turn"},
		{"two calls, one response", `{"contents":[
			{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"id":"a","name":"f","args":{}}},{"functionCall":{"id":"b","name":"g","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"a","name":"f","response":{}}}]}]}`,
			"the number of function response parts is equal to the number of function call parts"},
		{"a call in a user turn", `{"contents":[{"role":"user","parts":[{"functionCall":{"name":"f","args":{}}}]}]}`,
			"function call turn comes immediately after a user turn"},
		{"forged thought signature", `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"x","thoughtSignature":"AAAA"}]},{"role":"user","parts":[{"text":"y"}]}]}`,
			"Thought signature is not valid"},
		{"no contents", `{"contents":[]}`, "contents is not specified"},
		{"empty parts", `{"contents":[{"role":"user","parts":[]}]}`, "contents.parts must not be empty"},
	})
}

func TestValidateGemini3NeedsSignedCalls(t *testing.T) {
	body := `{"contents":[{"role":"user","parts":[{"text":"go"}]},
		{"role":"model","parts":[{"functionCall":{"id":"a","name":"read_file","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"a","name":"read_file","response":{}}}]}]}`
	if _, _, err := parseGemini([]byte(body), "gemini-2.5-pro"); err != nil {
		t.Fatalf("gemini-2.5 needs no signature, got %v", err)
	}
	_, _, err := parseGemini([]byte(body), "gemini-3.1-pro-preview")
	if err == nil || !strings.Contains(err.Message, "Function call is missing a thought_signature") {
		t.Fatalf("gemini-3 unsigned call in the current turn: got %v", err)
	}
	// An earlier turn's calls need none.
	earlier := strings.Replace(body, `]}]}`, `]},{"role":"model","parts":[{"text":"ok"}]},{"role":"user","parts":[{"text":"next"}]}]}`, 1)
	if _, _, err := parseGemini([]byte(earlier), "gemini-3.1-pro-preview"); err != nil {
		t.Fatalf("gemini-3, unsigned call of an earlier turn: %v", err)
	}
}

func TestValidateChat(t *testing.T) {
	runValidation(t, ValidateChat, []validationCase{
		{"a tool loop", `{"model":"m","messages":[
			{"role":"system","content":"be good"},
			{"role":"user","content":"go"},
			{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"bash","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"call_1","content":"x"},
			{"role":"tool","tool_call_id":"call_2","content":"y"},
			{"role":"assistant","content":"done"},
			{"role":"user","content":[{"type":"text","text":"thanks"}]}]}`, ""},
		{"tool message without its call", `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"tool","tool_call_id":"call_1","content":"x"}]}`,
			"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"},
		{"tool message naming another call", `{"model":"m","messages":[{"role":"user","content":"go"},
			{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"call_9","content":"x"}]}`,
			"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"},
		{"call without its tool message", `{"model":"m","messages":[{"role":"user","content":"go"},
			{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{}"}}]},
			{"role":"user","content":"next"}]}`,
			"The following tool_call_ids did not have response messages: call_1"},
		{"assistant with nothing", `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":null}]}`,
			"expected a string, got null"},
		{"unknown role", `{"model":"m","messages":[{"role":"model","content":"x"}]}`, "Invalid value: 'model'."},
		{"no messages", `{"model":"m","messages":[]}`, "[] is too short - 'messages'"},
		{"tool call without an id", `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"read","arguments":"{}"}}]}]}`,
			"Missing required parameter: 'messages[1].tool_calls[0].id'."},
	})
}
