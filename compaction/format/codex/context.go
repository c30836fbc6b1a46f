package codex

import (
	"encoding/json"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// Rules: a reasoning item is sent with the item that followed it.
func (Codec) Rules() format.Rules { return format.Rules{ReasoningBound: true} }

// Outside is what Codex sends beside the transcript.
func (Codec) Outside() string { return "base instructions, tool definitions" }

// ContextRecord: session_meta records carry the base instructions and the
// dynamic tools.
func (Codec) ContextRecord(rec *transcript.Record) bool { return rec.Type == "session_meta" }

// ReadContext reads a session_meta's base instructions (counted once, the
// first found) and dynamic tools (one tool or a list, each maybe a
// namespace of tools).
func (Codec) ReadContext(rec *transcript.Record, facts *format.ContextFacts, countText func(string) int) {
	var l struct {
		Payload struct {
			BaseInstructions *struct {
				Text string `json:"text"`
			} `json:"base_instructions"`
			DynamicTools json.RawMessage `json:"dynamic_tools"`
		} `json:"payload"`
	}
	if json.Unmarshal(rec.Raw, &l) != nil {
		return
	}
	if b := l.Payload.BaseInstructions; b != nil && b.Text != "" && !facts.BaseText {
		facts.BaseText = true
		if countText != nil {
			facts.Base = countText(b.Text)
		} else {
			facts.Base = (len(b.Text) + 3) / 4
		}
	}
	type tool struct {
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	var tools []tool
	if json.Unmarshal(l.Payload.DynamicTools, &tools) != nil {
		var one tool
		if json.Unmarshal(l.Payload.DynamicTools, &one) == nil && one.Name != "" {
			tools = append(tools, tool{Name: one.Name})
		}
	}
	for _, t := range tools {
		if t.Name != "" {
			facts.Dynamic = append(facts.Dynamic, t.Name)
		}
	}
}
