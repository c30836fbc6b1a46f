package jobs

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
)

// codexResumedWithImages writes a rollout in the shape Codex 0.145 leaves
// after a long session resumed again and again: a session_meta, a
// turn_context and a world_state at every resume, one of its own
// compactions (a compacted record: the user's messages and the summary),
// exec_command calls, apply_patch custom calls, a turn interrupted with a
// call unanswered, and tools that return images — view_image (an output
// list holding an input_image), an MCP screenshot (text and an image) and
// an output that is one content item rather than a list.
func codexResumedWithImages(t *testing.T, resumes int) []byte {
	t.Helper()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 320, 200))); err != nil {
		t.Fatal(err)
	}
	shot := "data:image/png;base64," + base64.StdEncoding.EncodeToString(img.Bytes())
	const id = "019f6b21-4c5d-7e6f-8a90-b1c2d3e4f506"
	clock := time.Date(2026, 8, 11, 9, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	add := func(typ string, payload any) {
		clock = clock.Add(1500 * time.Millisecond)
		line, err := json.Marshal(map[string]any{"timestamp": clock.Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
		if err != nil {
			t.Fatal(err)
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	text := func(kind, s string) []any { return []any{map[string]any{"type": kind, "text": s}} }
	meta := map[string]any{"id": id, "cwd": "/home/dev/site", "originator": "codex-tui", "cli_version": "0.145.0", "source": "cli",
		"model_provider": "openai", "base_instructions": map[string]any{"text": "You are Codex, a coding agent based on GPT-5."}}
	var prompts []string
	turn := 0
	for resume := 0; resume <= resumes; resume++ {
		add("session_meta", meta)
		for k := 0; k < 2; k++ {
			turn++
			turnID := fmt.Sprintf("019f6b21-0000-7000-8000-%012d", turn)
			add("turn_context", map[string]any{"turn_id": turnID, "cwd": "/home/dev/site", "approval_policy": "on-request", "model": "gpt-5.5", "effort": "medium", "summary": "auto"})
			add("world_state", map[string]any{"full": k == 0, "state": map[string]any{"model": "gpt-5.5", "current_date": "2026-08-11"}})
			add("event_msg", map[string]any{"type": "task_started", "turn_id": turnID, "model_context_window": 258400})
			prompt := fmt.Sprintf("Turn %d: the header still overlaps the menu below 640px on the %s page; check it and fix the CSS.", turn, []string{"checkout", "cart", "account", "search"}[turn%4])
			prompts = append(prompts, prompt)
			add("response_item", map[string]any{"type": "message", "role": "user", "content": text("input_text", prompt)})
			add("event_msg", map[string]any{"type": "user_message", "message": prompt})
			// Two calls issued together, each after its reasoning, then
			// their outputs.
			type call struct {
				name, id, args string
				output         any
			}
			calls := []call{{"exec_command", fmt.Sprintf("call_exec_%d", turn), `{"cmd":"rg -n 'z-index' src/styles"}`,
				strings.Repeat(fmt.Sprintf("src/styles/header.css:%d:  z-index: 30;\n", turn), 40)}}
			switch turn % 3 {
			case 0:
				calls = append(calls, call{"view_image", fmt.Sprintf("call_view_%d", turn), `{"path":"/home/dev/site/shot.png"}`,
					[]any{map[string]any{"type": "input_image", "image_url": shot, "detail": "high"}}})
			case 1:
				calls = append(calls, call{"mcp__playwright__browser_take_screenshot", fmt.Sprintf("call_mcp_%d", turn), `{"fullPage":false}`,
					[]any{map[string]any{"type": "input_text", "text": "Took the screenshot of the current page."}, map[string]any{"type": "input_image", "image_url": shot}}})
			default:
				calls = append(calls, call{"view_image", fmt.Sprintf("call_view_%d", turn), `{"path":"/home/dev/site/narrow.png"}`,
					map[string]any{"type": "input_image", "image_url": shot}})
			}
			for _, c := range calls {
				add("response_item", map[string]any{"type": "reasoning", "summary": text("summary_text", "**Checking the layout**"), "encrypted_content": strings.Repeat("gAAAAB", 40)})
				add("response_item", map[string]any{"type": "function_call", "name": c.name, "arguments": c.args, "call_id": c.id})
			}
			for _, c := range calls {
				add("response_item", map[string]any{"type": "function_call_output", "call_id": c.id, "output": c.output})
			}
			if turn == 5 {
				// Interrupted while a command ran: the call has no output.
				add("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"npm run e2e"}`, "call_id": "call_interrupted"})
				add("event_msg", map[string]any{"type": "turn_aborted", "turn_id": turnID, "reason": "interrupted"})
				continue
			}
			patchID := fmt.Sprintf("call_patch_%d", turn)
			add("response_item", map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": patchID, "name": "apply_patch",
				"input": "*** Begin Patch\n*** Update File: src/styles/header.css\n@@\n-  z-index: 30;\n+  z-index: 10;\n*** End Patch\n"})
			add("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": patchID,
				"output": `{"output":"Success. Updated the following files:\nM src/styles/header.css\n","metadata":{"exit_code":0,"duration_seconds":0.0}}`})
			add("response_item", map[string]any{"type": "message", "role": "assistant", "content": text("output_text", fmt.Sprintf("Lowered the header's z-index (turn %d).", turn))})
			add("event_msg", map[string]any{"type": "token_count", "info": map[string]any{
				"last_token_usage":     map[string]any{"input_tokens": 9000 + 900*turn, "cached_input_tokens": 8000, "output_tokens": 300, "total_tokens": 9300 + 900*turn},
				"model_context_window": 258400}})
			add("event_msg", map[string]any{"type": "task_complete", "turn_id": turnID})
		}
		if resume == resumes/2 {
			// Codex's own compaction: the user's messages and a summary.
			summary := "Another language model started to solve this problem and produced a summary of its thinking process: the header's z-index was lowered on every page; the menu now opens above it."
			var hist []any
			for _, p := range prompts {
				hist = append(hist, map[string]any{"type": "message", "role": "user", "content": text("input_text", p)})
			}
			hist = append(hist, map[string]any{"type": "message", "role": "user", "content": text("input_text", summary)})
			add("compacted", map[string]any{"message": summary, "replacement_history": hist})
			add("event_msg", map[string]any{"type": "context_compacted"})
		}
	}
	return out.Bytes()
}

// TestCompactsCodexImageOutputs is issue 23's item 2 for Codex: a rollout
// resumed 18 times with a compaction of its own, whose tools returned
// images. Compaction replaced the images with stand-ins, and the fork
// wrote each such output as a user message: its call was left without a
// result ("message N: tool call without its result", though the call and
// its output are adjacent lines of the rollout) — refused, or, once the
// check judged a fork by itself, written with Codex answering the call
// "aborted". Every strategy's fork must answer every call the rollout
// answered, in a function_call_output of that call.
func TestCompactsCodexImageOutputs(t *testing.T) {
	src := codexResumedWithImages(t, 18)
	name := "rollout-2026-08-11T09-00-00-019f6b21-4c5d-7e6f-8a90-b1c2d3e4f506.jsonl"
	original := parse(t, name, src)
	if err := strategy.CheckTranscript(original); err != nil {
		t.Fatalf("the rollout itself breaks the API's rules: %v", err)
	}
	for _, s := range []string{"auto", "turn-window", "token-budget", "extractive", "strip-attachments", "strip-tool-results", "dedup-tools"} {
		t.Run(s, func(t *testing.T) {
			root := isolate(t)
			r := realRunner(t)
			path := filepath.Join(root, name)
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
			opts := strategy.Options{Strategies: []string{s}, KeepLast: new(1), Turns: 3, Window: 258400}
			if _, err := r.Compact(context.Background(), Request{Path: path, Options: opts, DryRun: true}); err != nil {
				t.Fatalf("dry run: %v", err)
			}
			res, err := r.Compact(context.Background(), Request{Path: path, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			data := readFile(t, res.ForkPath)
			fork := parse(t, res.ForkPath, data)
			if err := strategy.CheckFork(fork, original); err != nil {
				t.Errorf("the fork breaks the API's rules: %v", err)
			}
			for _, m := range fork.Messages {
				for _, p := range m.Parts {
					if p.Kind == transcript.PartText && m.Role == transcript.RoleUser && strings.Contains(p.Text, "[compacted: image") {
						t.Errorf("a tool output became a user message: %q", p.Text)
					}
				}
			}
		})
	}
}
