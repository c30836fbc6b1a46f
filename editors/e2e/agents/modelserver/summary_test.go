package modelserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// The agents' own compactions ask the model to summarize the conversation;
// the server answers each in the shape its agent asks for, with a summary
// that keeps the user's requests and the files changed but not the
// commands run, and validates the request like any other.
func TestSummaryRequests(t *testing.T) {
	srv := startTest(t)
	history := func(last string) string {
		return `[
		{"role":"user","content":"[task:fix] Fix the off-by-one in a.go."},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./..."}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"FAIL a_test.go:3"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Edit","input":{"file_path":"/w/a.go","old_string":"x := 1","new_string":"x := 2"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"ok"}]},
		{"role":"assistant","content":"Fixed."},
		{"role":"user","content":` + last + `}]`
	}
	claude := `"CRITICAL: Respond with TEXT ONLY.\n\nYour task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests.\n\n<summary>\n1. Primary Request and Intent:\n</summary>"`
	status, out, _ := post(t, srv.URL()+"/v1/messages", `{"model":"claude-sonnet-4-6","max_tokens":100,`+anthropicTools+`,"messages":`+history(claude)+`}`)
	if status != 200 {
		t.Fatalf("%d %s", status, out)
	}
	var msg struct {
		Content []struct{ Type, Text string } `json:"content"`
	}
	if err := json.Unmarshal([]byte(out), &msg); err != nil || len(msg.Content) != 1 || msg.Content[0].Type != "text" {
		t.Fatalf("the summary is one text block: %v %s", err, out)
	}
	text := msg.Content[0].Text
	for _, want := range []string{"<analysis>", "<summary>", SummaryHeading, "Fix the off-by-one in a.go.", "/w/a.go"} {
		if !strings.Contains(text, want) {
			t.Errorf("Claude's summary lacks %q:\n%s", want, text)
		}
	}
	for _, lost := range []string{"go test ./...", "[task:fix]", "FAIL a_test.go"} {
		if strings.Contains(text, lost) {
			t.Errorf("the summary keeps %q; it keeps only the requests and the files changed:\n%s", lost, text)
		}
	}
	ex := srv.Exchanges()
	if last := ex[len(ex)-1]; !last.Summary || last.Task != "" || last.Scripted {
		t.Fatalf("the exchange is not marked a summary: summary=%v task=%q", last.Summary, last.Task)
	}

	// Codex's compaction asks in the Responses API, for plain text.
	codex := `{"model":"gpt-5.5","stream":false,"input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"[task:fix] Fix a.go"}]},
		{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** Update File: /w/a.go\n@@\n-x := 1\n+x := 2\n*** End Patch\n"},
		{"type":"custom_tool_call_output","call_id":"c1","output":"ok"},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task."}]}]}`
	status, out, _ = post(t, srv.URL()+"/v1/responses", codex)
	if status != 200 || !strings.Contains(out, SummaryHeading) || !strings.Contains(out, "/w/a.go") || strings.Contains(out, "<summary>") {
		t.Fatalf("Codex's summary: %d %s", status, out)
	}

	// Gemini CLI's and Qwen Code's compression ask for a state snapshot.
	gemini := `{"systemInstruction":{"parts":[{"text":"You are the component that summarizes internal chat history into a given structure: <state_snapshot>."}]},
		"contents":[{"role":"user","parts":[{"text":"[task:fix] Fix a.go"}]},{"role":"model","parts":[{"text":"Done."}]},
		{"role":"user","parts":[{"text":"First, reason in your scratchpad. Then, generate the <state_snapshot>."}]}]}`
	status, out, _ = post(t, srv.URL()+"/v1beta/models/gemini-3.1-pro-preview:generateContent", gemini)
	if status != 200 || !strings.Contains(out, `\u003cstate_snapshot\u003e`) && !strings.Contains(out, "<state_snapshot>") || !strings.Contains(out, "Fix a.go") {
		t.Fatalf("Gemini's snapshot: %d %s", status, out)
	}

	// A summary request the real API would refuse is refused.
	status, out, _ = post(t, srv.URL()+"/v1/messages", `{"model":"claude-sonnet-4-6","max_tokens":100,"messages":[
		{"role":"assistant","content":"x"},{"role":"user","content":`+claude+`}]}`)
	if status != 400 {
		t.Fatalf("an invalid summary request got %d %s", status, out)
	}
}
