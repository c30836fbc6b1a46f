package gemini

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
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

// TestForkKeepsLastTurnWhole: Gemini CLI records each tool response twice
// (in the model message's toolCalls and as a user functionResponse). A
// compaction drops the second copy where it must, without a "[compacted]"
// stand-in when the roles still alternate: the last turn reaches the fork
// as it was (one copy of each response), and no response is left without
// its call turn before it.
func TestForkKeepsLastTurnWhole(t *testing.T) {
	src := formattest.Fixture(t, "v0.61-tool-session.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "v0.61", src)
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	lastTurn := tr.Turns[len(tr.Turns)-1]
	for _, strategies := range [][]string{{"auto"}, {"dedup-tools"}, {"turn-window"}} {
		v, _, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: strategies, Window: 1_048_576, Turns: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", Timestamp: "2026-05-20T11:00:00.000Z"})
		got := back.Messages[back.Turns[len(back.Turns)-1].Start:]
		var want []transcript.Message
		answered := map[string]bool{}
		for _, m := range tr.Messages[lastTurn.Start:lastTurn.End] {
			dup := len(m.Parts) > 0
			for _, p := range m.Parts {
				dup = dup && p.Kind == transcript.PartToolResult && answered[p.ToolCallID]
				if p.Kind == transcript.PartToolResult {
					answered[p.ToolCallID] = true
				}
			}
			if !dup {
				want = append(want, m)
			}
		}
		if i, ok := formattest.SameContent(got, want); !ok {
			t.Fatalf("%v: the last turn differs from the source's at message %d:\n got %+v\nwant %+v", strategies, i, got, want)
		}
		for _, m := range back.Messages {
			for _, p := range m.Parts {
				if p.Kind == transcript.PartToolResult && p.Text == "[compacted]" {
					t.Fatalf("%v: a functionResponse stand-in where roles alternate anyway", strategies)
				}
			}
		}
	}
}

// TestStandInForFunctionResponse: wherever a one-line stand-in takes the
// place of a function response (a message a compaction emptied where the
// roles must alternate), the Part stays a functionResponse with the stand-in
// as its output, never a functionResponse with a "text" beside it.
func TestStandInForFunctionResponse(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "v0.61", formattest.Fixture(t, "v0.61-tool-session.jsonl"))
	v := transcript.NewView(tr)
	replaced := 0
	for i := range v.Messages {
		m := &v.Messages[i]
		if m.Role == transcript.RoleUser && len(m.Parts) > 0 && m.Parts[0].Kind == transcript.PartToolResult && m.Parts[0].Ref.Block < 1<<20 {
			m.Parts = []transcript.Part{{Kind: transcript.PartText, Text: "[compacted]", Ref: m.Parts[0].Ref, Changed: true}}
			replaced++
		}
	}
	if replaced == 0 {
		t.Fatal("fixture: no user functionResponse record")
	}
	out, _ := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"})
	checkParts(t, out)
	if !bytes.Contains(out, []byte(`"response":{"output":"[compacted]"}`)) {
		t.Fatalf("the stand-in is not the response's output:\n%s", out)
	}
}
