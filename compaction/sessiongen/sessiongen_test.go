package sessiongen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

func lines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Fatalf("output does not end with a newline")
	}
	var out []map[string]any
	for i, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, l)
		}
		out = append(out, m)
	}
	return out
}

func TestDeterministic(t *testing.T) {
	for _, gen := range []func(Options) []byte{ClaudeCode, Codex, CopilotCLI, CopilotCLIFlat, CopilotCLILegacy} {
		a, b := gen(Options{Seed: 7, Turns: 5}), gen(Options{Seed: 7, Turns: 5})
		if !bytes.Equal(a, b) {
			t.Fatal("same options gave different bytes")
		}
		if c := gen(Options{Seed: 8, Turns: 5}); bytes.Equal(a, c) {
			t.Fatal("different seeds gave equal bytes")
		}
	}
}

func TestClaudeCodeShape(t *testing.T) {
	recs := lines(t, ClaudeCode(Options{Seed: 1, Turns: 20}))
	uuids := map[string]bool{}
	byMsgID := map[string]int{}
	tools := map[string]int{}
	var meta, snapshots, thinking, errors, images, rangeReads int
	toolUses, toolResults := map[string]bool{}, map[string]bool{}
	var parent any
	for i, r := range recs {
		if r["type"] == "file-history-snapshot" {
			snapshots++
			continue
		}
		if r["parentUuid"] != parent {
			t.Fatalf("record %d: parentUuid %v, want %v (linear chain)", i, r["parentUuid"], parent)
		}
		parent = r["uuid"]
		uuids[r["uuid"].(string)] = true
		if r["isMeta"] == true {
			meta++
		}
		msg := r["message"].(map[string]any)
		if r["type"] == "assistant" {
			byMsgID[msg["id"].(string)]++
			if msg["usage"] == nil {
				t.Fatalf("record %d: assistant line without usage", i)
			}
		}
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			blk := b.(map[string]any)
			switch blk["type"] {
			case "thinking":
				thinking++
				if blk["signature"] == "" {
					t.Fatal("thinking without signature")
				}
			case "tool_use":
				toolUses[blk["id"].(string)] = true
				tools[blk["name"].(string)]++
				if in := blk["input"].(map[string]any); in["offset"] != nil {
					rangeReads++
				}
			case "tool_result":
				toolResults[blk["tool_use_id"].(string)] = true
				if r["toolUseResult"] == nil {
					t.Fatalf("record %d: tool_result without toolUseResult", i)
				}
				if blk["is_error"] == true {
					errors++
				}
			case "image":
				images++
			}
		}
	}
	split := 0
	for _, n := range byMsgID {
		if n > 1 {
			split++
		}
	}
	for id := range toolUses {
		if !toolResults[id] {
			t.Errorf("tool_use %s has no result", id)
		}
	}
	for _, name := range []string{"Read", "Grep", "Glob", "Bash", "Edit", "Write", "TodoWrite"} {
		if tools[name] == 0 {
			t.Errorf("no %s call in 20 turns", name)
		}
	}
	if meta == 0 || snapshots == 0 || thinking == 0 || errors == 0 || images == 0 || split == 0 || rangeReads == 0 {
		t.Errorf("missing features: meta=%d snapshots=%d thinking=%d errors=%d images=%d split=%d rangeReads=%d", meta, snapshots, thinking, errors, images, split, rangeReads)
	}
}

func TestCodexShape(t *testing.T) {
	recs := lines(t, Codex(Options{Seed: 3, Turns: 15}))
	if recs[0]["type"] != "session_meta" {
		t.Fatalf("first record is %v", recs[0]["type"])
	}
	seen := map[string]int{}
	calls, outputs := map[string]bool{}, map[string]bool{}
	var sed, cat int
	for _, r := range recs {
		p := r["payload"].(map[string]any)
		typ, _ := p["type"].(string)
		seen[r["type"].(string)+"/"+typ]++
		switch typ {
		case "function_call":
			calls[p["call_id"].(string)] = true
			var args struct{ Command []string }
			if err := json.Unmarshal([]byte(p["arguments"].(string)), &args); err != nil {
				t.Fatalf("arguments are not a JSON string: %v", err)
			}
			cmd := args.Command[2]
			if strings.HasPrefix(cmd, "sed -n '1,200p' ") {
				sed++
			}
			if strings.HasPrefix(cmd, "cat ") {
				cat++
			}
		case "function_call_output":
			outputs[p["call_id"].(string)] = true
		case "token_count":
			info := p["info"].(map[string]any)
			if info["model_context_window"] == nil || info["last_token_usage"] == nil {
				t.Fatal("token_count without window or last usage")
			}
		case "reasoning":
			if p["encrypted_content"] == "" {
				t.Fatal("reasoning without encrypted_content")
			}
		}
	}
	for id := range calls {
		if !outputs[id] {
			t.Errorf("call %s has no output", id)
		}
	}
	for _, k := range []string{"turn_context/", "response_item/message", "response_item/reasoning", "event_msg/token_count", "event_msg/user_message", "event_msg/agent_message"} {
		if seen[k] == 0 {
			t.Errorf("no %s record", k)
		}
	}
	if sed == 0 || cat == 0 {
		t.Errorf("sed reads %d, cat reads %d", sed, cat)
	}
}

func TestTargetBytes(t *testing.T) {
	for _, gen := range []func(Options) []byte{ClaudeCode, Codex, CopilotCLI, CopilotCLIFlat, CopilotCLILegacy} {
		b := gen(Options{Seed: 2, TargetBytes: 1 << 20})
		if len(b) < 1<<20 || len(b) > 3<<20 {
			t.Errorf("size %d for a 1 MiB target", len(b))
		}
		if json.Valid(b) {
			continue // a document (Copilot CLI's before 0.0.342)
		}
		lines(t, b)
	}
}

// TestCopilotCLILegacyShape: the document holds the session's id, its
// chat messages with calls and their results (an interrupted turn's call
// without one) and the timeline.
func TestCopilotCLILegacyShape(t *testing.T) {
	var doc struct {
		SessionID    string `json:"sessionId"`
		ChatMessages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		} `json:"chatMessages"`
		Timeline []map[string]any `json:"timeline"`
	}
	if err := json.Unmarshal(CopilotCLILegacy(Options{Seed: 2, Turns: 30}), &doc); err != nil {
		t.Fatal(err)
	}
	calls, results := map[string]bool{}, map[string]bool{}
	for _, m := range doc.ChatMessages {
		for _, c := range m.ToolCalls {
			calls[c.ID] = true
			if !json.Valid([]byte(c.Function.Arguments)) {
				t.Errorf("arguments %q are not JSON", c.Function.Arguments)
			}
		}
		if m.Role == "tool" {
			results[m.ToolCallID] = true
		}
	}
	if doc.SessionID == "" || len(calls) == 0 || len(results) == 0 || len(results) >= len(calls) || len(doc.Timeline) == 0 {
		t.Errorf("session %q, %d calls, %d results, %d timeline entries", doc.SessionID, len(calls), len(results), len(doc.Timeline))
	}
}

func TestContinueChains(t *testing.T) {
	base := ClaudeCode(Options{Seed: 4, Turns: 3})
	more := Continue(transcript.FormatClaudeCode, base, 99, 25)
	recs := lines(t, more)
	if len(recs) != 25 {
		t.Fatalf("got %d lines, want 25", len(recs))
	}
	last := lastClaudeRecord(base)
	first := recs[0]
	if first["type"] == "file-history-snapshot" {
		first = recs[1]
	}
	if first["parentUuid"] != last.UUID || first["sessionId"] != last.SessionID {
		t.Errorf("continuation does not chain: parent %v session %v, want %s %s", first["parentUuid"], first["sessionId"], last.UUID, last.SessionID)
	}
	codex := lines(t, AppendChunk(transcript.FormatCodex, 5, 40))
	if len(codex) != 40 {
		t.Fatalf("codex chunk has %d lines", len(codex))
	}
}

func BenchmarkClaudeCode10MB(b *testing.B) {
	for b.Loop() {
		out := ClaudeCode(Options{Seed: 1, TargetBytes: 10 << 20})
		b.SetBytes(int64(len(out)))
	}
}

func BenchmarkCodex10MB(b *testing.B) {
	for b.Loop() {
		out := Codex(Options{Seed: 1, TargetBytes: 10 << 20})
		b.SetBytes(int64(len(out)))
	}
}

// TestCopilotCLIShape: both layouts chain their events by parentId and
// hold the events a strategy must cope with: truncations, aborted turns,
// subagents, and in 1.0 a compaction that started before it completed.
func TestCopilotCLIShape(t *testing.T) {
	for name, gen := range map[string]func(Options) []byte{"1.0": CopilotCLI, "flat": CopilotCLIFlat} {
		types := map[string]int{}
		var parent any
		subagent := 0
		for i, r := range lines(t, gen(Options{Seed: 2, Turns: 30})) {
			if r["parentId"] != parent {
				t.Fatalf("%s: event %d: parentId %v, want %v", name, i, r["parentId"], parent)
			}
			parent = r["id"]
			types[r["type"].(string)]++
			if d, _ := r["data"].(map[string]any); d["parentToolCallId"] != nil {
				subagent++
			}
		}
		for _, typ := range []string{"session.start", "user.message", "assistant.message", "tool.execution_complete", "session.truncation", "abort", "session.resume", "tool.user_requested"} {
			if types[typ] == 0 {
				t.Errorf("%s: no %s event (%v)", name, typ, types)
			}
		}
		if subagent == 0 {
			t.Errorf("%s: no subagent event", name)
		}
		compactions := types["session.compaction_start"] + types["session.compaction_complete"]
		if name == "1.0" && compactions != 2 || name == "flat" && compactions != 0 {
			t.Errorf("%s: %d compaction events", name, compactions)
		}
	}
}
