package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// toolExport is an export of one prompt and one assistant step holding
// the given tool parts' states, every part under callID.
func toolExport(t *testing.T, callID string, states ...map[string]any) []byte {
	t.Helper()
	session := "ses_3f0a1b2c3d4eFgHiJkLmNoPqRs"
	parts := []any{map[string]any{"id": "prt_0", "sessionID": session, "messageID": "msg_2", "type": "step-start"}}
	for i, st := range states {
		parts = append(parts, map[string]any{"id": fmt.Sprintf("prt_%d", i+1), "sessionID": session, "messageID": "msg_2", "type": "tool",
			"tool": "bash", "callID": callID, "state": st})
	}
	parts = append(parts, map[string]any{"id": "prt_9", "sessionID": session, "messageID": "msg_2", "type": "text", "text": "Done."})
	doc := map[string]any{
		"info": map[string]any{"id": session, "slug": "brave-otter", "projectID": "p0", "directory": "/home/ada/calc", "title": "Tools", "version": "1.18.33",
			"time": map[string]any{"created": 1772900000000, "updated": 1772900005000}},
		"messages": []any{
			map[string]any{"info": map[string]any{"id": "msg_1", "sessionID": session, "role": "user", "time": map[string]any{"created": 1772900001000}, "agent": "build",
				"model": map[string]any{"providerID": "e2e", "modelID": "qwen3-coder-plus"}},
				"parts": []any{map[string]any{"id": "prt_u", "sessionID": session, "messageID": "msg_1", "type": "text", "text": "Run the checks."}}},
			map[string]any{"info": map[string]any{"id": "msg_2", "sessionID": session, "parentID": "msg_1", "role": "assistant", "mode": "build", "agent": "build",
				"path": map[string]any{"cwd": "/home/ada/calc", "root": "/home/ada/calc"}, "cost": 0,
				"tokens":  map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}},
				"modelID": "qwen3-coder-plus", "providerID": "e2e", "time": map[string]any{"created": 1772900002000, "completed": 1772900003000}, "finish": "stop"},
				"parts": parts},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func completed(command, output string) map[string]any {
	return map[string]any{"status": "completed", "input": map[string]any{"command": command}, "output": output, "title": command,
		"metadata": map[string]any{"output": output, "exit": 0}, "time": map[string]any{"start": 1772900002100, "end": 1772900002200}}
}

// TestSharedCallIDsPairByPart: tool parts that share one call id (published
// sessions redact them all alike; opencode pairs a call with its result by
// the part, and sends the ids as they are) read as pairs with ids of their
// own, so no result reads as the orphan of another part's call; the fork
// writes the source's ids back.
func TestSharedCallIDsPairByPart(t *testing.T) {
	src := toolExport(t, "REDACTED", completed("go vet ./...", "vet: ok\n"), completed("go test ./...", "ok  calc 0.01s\n"))
	tr := formattest.RoundTrip(t, oc, "x.json", src)
	formattest.SameLines(t, formattest.Lines(tr.Messages), []string{
		"user text|Run the checks.||",
		`assistant tool_call||REDACTED_1_1|{"command":"go vet ./..."}`,
		`assistant tool_call||REDACTED_1_2|{"command":"go test ./..."}`,
		`assistant text|Done.||`,
		"tool tool_result|vet: ok\n|REDACTED_1_1|",
		"tool tool_result|ok  calc 0.01s\n|REDACTED_1_2|",
	})
	out, _ := formattest.ForkParse(t, oc, transcript.NewView(tr), format.ForkOptions{SessionID: "fork-0001"})
	if n := bytes.Count(out, []byte(`"callID":"REDACTED"`)) + bytes.Count(out, []byte(`"callID": "REDACTED"`)); n != 2 {
		t.Fatalf("the fork writes the source's call id %d times, want 2:\n%s", n, out)
	}
}

// TestForkWritesOnlyTheToolHalvesTheViewKeeps: opencode sends both halves
// of a tool part, so a fork holds a part's result only where the view kept
// it. A call whose result the view removed is written as opencode records
// a call that never returned (an error flagged interrupted, no output); a
// result whose call the view removed goes with its part.
func TestForkWritesOnlyTheToolHalvesTheViewKeeps(t *testing.T) {
	src := toolExport(t, "call_1", completed("cat big.log", "SECRET-OUTPUT-LINE\n"), completed("ls", "LISTING-OUTPUT\n"))
	tr := formattest.RoundTrip(t, oc, "x.json", src)
	v := transcript.NewView(tr)
	for i := range v.Messages {
		m := &v.Messages[i]
		var kept []transcript.Part
		for _, p := range m.Parts {
			// the first part's result, the second part's call
			if p.Kind == transcript.PartToolResult && p.Text == "SECRET-OUTPUT-LINE\n" || p.Kind == transcript.PartToolCall && p.Args == `{"command":"ls"}` {
				continue
			}
			kept = append(kept, p)
		}
		m.Parts = kept
	}
	out, back := formattest.ForkParse(t, oc, v, format.ForkOptions{SessionID: "fork-0001"})
	for _, gone := range []string{"SECRET-OUTPUT-LINE", "LISTING-OUTPUT", `"ls"`} {
		if bytes.Contains(out, []byte(gone)) {
			t.Errorf("the fork holds %s, which the view removed", gone)
		}
	}
	formattest.SameLines(t, formattest.Lines(back.Messages), []string{
		"user text|Run the checks.||",
		`assistant tool_call||call_1|{"command":"cat big.log"}`,
		`assistant text|Done.||`,
		"tool tool_result|" + abortedCall + "|call_1|",
	})
	if res := back.Messages[len(back.Messages)-1].Parts[0]; !res.IsError {
		t.Errorf("the removed result reads back as %+v, want an error", res)
	}
}

// TestInterruptedToolSendsItsOutput: a call cut short that recorded output
// (state.metadata.interrupted and .output) is sent with that output as its
// result, not the error.
func TestInterruptedToolSendsItsOutput(t *testing.T) {
	st := map[string]any{"status": "error", "input": map[string]any{"command": "make"}, "error": "Tool execution aborted",
		"metadata": map[string]any{"interrupted": true, "output": "building calc...\n"}, "time": map[string]any{"start": 1772900002100, "end": 1772900002200}}
	tr := formattest.RoundTrip(t, oc, "x.json", toolExport(t, "call_1", st))
	formattest.SameLines(t, formattest.Lines(tr.Messages), []string{
		"user text|Run the checks.||",
		`assistant tool_call||call_1|{"command":"make"}`,
		`assistant text|Done.||`,
		"tool tool_result|building calc...\n|call_1|",
	})
}
