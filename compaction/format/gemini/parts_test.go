package gemini

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
)

// dataFields are the members of the Gemini API Part's "data" oneof: a Part
// carrying two of them is rejected with 400 INVALID_ARGUMENT ("oneof field
// 'data' is already set").
var dataFields = []string{"text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode", "codeExecutionResult"}

// checkParts fails when any Part the fork would send (message content,
// tool call results) carries more than one data field.
func checkParts(t *testing.T, fork []byte) {
	t.Helper()
	var check func(where string, v any)
	check = func(where string, v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				check(where, e)
			}
		case map[string]any:
			var set []string
			for _, f := range dataFields {
				if _, ok := v[f]; ok {
					set = append(set, f)
				}
			}
			if len(set) > 1 {
				b, _ := json.Marshal(v)
				t.Errorf("%s: a Part with %d data fields %v: %s", where, len(set), set, b)
			}
		}
	}
	for i, line := range bytes.Split(bytes.TrimSpace(fork), []byte("\n")) {
		var rec struct {
			Type      string           `json:"type"`
			Content   any              `json:"content"`
			ToolCalls []map[string]any `json:"toolCalls"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("fork line %d: %v", i+1, err)
		}
		check("content", rec.Content)
		for _, tc := range rec.ToolCalls {
			check("toolCalls.result", tc["result"])
		}
	}
}

// TestForkPartsHaveOneDataField: compacting a Gemini CLI 0.61 session with
// the default pipeline writes every Part with exactly one data field. A
// function response whose payload is compacted keeps its functionResponse
// (with the stand-in as its output) instead of gaining a "text" beside it.
func TestForkPartsHaveOneDataField(t *testing.T) {
	src := formattest.Fixture(t, "v0.61-tool-session.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "v0.61", src)
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, strategies := range [][]string{{"auto"}, {"dedup-tools"}, {"strip-tool-results"}, {"turn-window"}} {
		v, _, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: strategies, Window: 1_048_576, Turns: 1})
		if err != nil {
			t.Fatal(err)
		}
		out, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", Timestamp: "2026-05-20T11:00:00.000Z"})
		t.Run(strategies[0], func(t *testing.T) {
			checkParts(t, out)
			if len(back.Messages) == 0 {
				t.Fatal("fork has no messages")
			}
		})
	}
}
