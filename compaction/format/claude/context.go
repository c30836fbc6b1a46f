package claude

import (
	"encoding/json"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// Rules: a tool_result goes in the message right after its tool_use.
func (Codec) Rules() format.Rules { return format.Rules{AdjacentResults: true} }

// Outside is what Claude Code sends beside the transcript.
func (Codec) Outside() string {
	return "system prompt, tool and MCP definitions, memory files (CLAUDE.md)"
}

// ContextRecord: attachment records carry the deferred tools and the MCP
// servers whose instructions are sent.
func (Codec) ContextRecord(rec *transcript.Record) bool { return rec.Type == "attachment" }

// ReadContext reads a deferred_tools_delta or mcp_instructions_delta
// attachment: names added, re-added and removed.
func (Codec) ReadContext(rec *transcript.Record, facts *format.ContextFacts, _ func(string) int) {
	var l struct {
		Attachment struct {
			Type         string   `json:"type"`
			AddedNames   []string `json:"addedNames"`
			RemovedNames []string `json:"removedNames"`
			ReaddedNames []string `json:"readdedNames"`
		} `json:"attachment"`
	}
	if json.Unmarshal(rec.Raw, &l) != nil {
		return
	}
	a := l.Attachment
	var set *map[string]bool
	switch a.Type {
	case "deferred_tools_delta":
		set = &facts.Deferred
	case "mcp_instructions_delta":
		set = &facts.Instructions
	default:
		return
	}
	if *set == nil {
		*set = map[string]bool{}
	}
	for _, n := range append(a.AddedNames, a.ReaddedNames...) {
		(*set)[n] = true
	}
	for _, n := range a.RemovedNames {
		delete(*set, n)
	}
}
