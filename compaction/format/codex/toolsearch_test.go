package codex

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestToolSearchOutputIsItsTools: a tool_search_output holds no output,
// only the definitions of the tools it loaded (tools[]), which the model
// reads: they are the result's text, counted like any other; a fork that
// strips tool results keeps it whole, since the calls after it name those
// tools.
func TestToolSearchOutputIsItsTools(t *testing.T) {
	src := formattest.Fixture(t, "v0.169-world-state.jsonl")
	lines := bytes.SplitAfter(src, []byte("\n"))
	tool := map[string]any{"type": "function", "name": "mcp__calendar__create_event", "description": "Create a calendar event with a title, start and end.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"title": map[string]string{"type": "string"}, "start": map[string]string{"type": "string"}}}}
	item := func(payload map[string]any) []byte {
		b, err := json.Marshal(map[string]any{"timestamp": "2026-06-02T14:00:20.000Z", "type": "response_item", "payload": payload})
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	search := item(map[string]any{"type": "tool_search_call", "call_id": "ts_1", "status": "completed", "execution": "client",
		"arguments": map[string]any{"query": "create a calendar event", "limit": 5}})
	found := item(map[string]any{"type": "tool_search_output", "call_id": "ts_1", "status": "completed", "execution": "client", "tools": []any{tool}})
	// After the first turn's first tool output (line 12).
	var withSearch [][]byte
	withSearch = append(withSearch, lines[:12]...)
	withSearch = append(withSearch, search, found)
	withSearch = append(withSearch, lines[12:]...)
	data := bytes.Join(withSearch, nil)

	tr := formattest.RoundTrip(t, Codec{}, "tool search", data)
	var res *transcript.Part
	for i := range tr.Messages {
		for k := range tr.Messages[i].Parts {
			if p := &tr.Messages[i].Parts[k]; p.Kind == transcript.PartToolResult && p.ToolCallID == "ts_1" {
				res = p
			}
		}
	}
	if res == nil || !strings.Contains(res.Text, "mcp__calendar__create_event") || !strings.Contains(res.Text, `"parameters"`) {
		t.Fatalf("the tool search's result does not read its tools: %+v", res)
	}
	if res.ToolName != "tool_search" {
		t.Errorf("the tool search's result is named %q, want tool_search", res.ToolName)
	}

	v := transcript.NewView(tr)
	formattest.StripReasoningAndResults(v)
	out, _ := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "019eba70-0000-7000-8000-000000000002"})
	if !bytes.Contains(out, bytes.TrimSuffix(found[bytes.Index(found, []byte(`"payload"`)):], []byte("}\n"))) {
		t.Fatalf("the fork changed the tool search's output:\n%s", out)
	}
}
