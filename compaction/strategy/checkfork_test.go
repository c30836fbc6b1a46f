package strategy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

// A fork re-parsed is its own source: checked against itself, a call whose
// result the codec wrote as something else (a Codex tool output turned
// into a user message) has no result anywhere and passes as a call its
// source never answered. CheckFork judges it against the original.
func TestCheckForkFindsALostResult(t *testing.T) {
	b := newBuilder(transcript.FormatCodex)
	b.prompt("look at the screenshot")
	id := b.tool("view_image", map[string]any{"path": "shot.png"}, "", false)
	b.say("the header overlaps the menu")
	original := b.build()

	fb := newBuilder(transcript.FormatCodex)
	fb.prompt("look at the screenshot")
	fb.add(transcript.RoleAssistant, transcript.OriginAgent,
		transcript.Part{Kind: transcript.PartToolCall, ToolCallID: id, ToolName: "view_image", Args: `{"path":"shot.png"}`})
	fb.add(transcript.RoleUser, transcript.OriginHuman, text1("[compacted: image image/png 64x48]"))
	fb.say("the header overlaps the menu")
	fork := fb.build()

	if err := CheckTranscript(fork); err != nil {
		t.Fatalf("CheckTranscript(fork) = %v; this test is about the call it cannot see lost", err)
	}
	err := CheckFork(fork, original)
	if err == nil || !strings.Contains(err.Error(), "message 1: "+violDanglingCall+" ("+id+")") {
		t.Errorf("CheckFork = %v, want message 1's call without its result", err)
	}
	if err := CheckFork(original, original); err != nil {
		t.Errorf("CheckFork(original, original) = %v", err)
	}

	// A call the original never answered (Cursor records none; an agent
	// stopped mid-call) is not the fork's doing.
	ub := newBuilder(transcript.FormatCodex)
	ub.prompt("look at the screenshot")
	ub.add(transcript.RoleAssistant, transcript.OriginAgent,
		transcript.Part{Kind: transcript.PartToolCall, ToolCallID: "call_open", ToolName: "view_image", Args: "{}"})
	ub.prompt("never mind")
	ub.say("ok")
	unanswered := ub.build()
	if err := CheckFork(unanswered, unanswered); err != nil {
		t.Errorf("CheckFork of a call its source never answered = %v", err)
	}
}

// A tool result that returned an image is a result part and an image part:
// in Codex, two parts of the output item's record (the result for the
// whole item, the image for its block); in Claude Code, the image nested
// in the tool_result block (the same Ref). A strategy removing the pair
// takes the image with it: left behind, the image (or its stand-in) stayed
// in a message of no call — Codex's fork wrote it as the call's output
// again, a result without its call.
func TestRemovedPairTakesItsImages(t *testing.T) {
	remove := map[string]ToolHint{"mcp__playwright__*": {Request: HintRemove, Response: HintRemove}}
	cases := []struct {
		format    transcript.Format
		tool      string
		args      string
		wholeItem bool // the result's Ref is the record's, the image a block of it
		pipes     [][]string
		hints     map[string]ToolHint
	}{
		{transcript.FormatCodex, "mcp__playwright__browser_take_screenshot", `{"fullPage":false}`, true,
			[][]string{{"prune-tools"}, {"strip-attachments", "prune-tools"}}, remove},
		{transcript.FormatClaudeCode, "Read", `{"file_path":"/src/app/shot.png"}`, false,
			[][]string{{"dedup-tools"}, {"strip-attachments", "dedup-tools"}}, nil},
	}
	for _, c := range cases {
		b := newBuilder(c.format)
		shot := func() {
			b.ids++
			id := fmt.Sprintf("call_%d", b.ids)
			b.add(transcript.RoleAssistant, transcript.OriginAgent,
				transcript.Part{Kind: transcript.PartToolCall, ToolCallID: id, ToolName: c.tool, Args: c.args})
			role := transcript.RoleTool
			if c.format == transcript.FormatClaudeCode {
				role = transcript.RoleUser
			}
			i := b.add(role, transcript.OriginToolResult,
				transcript.Part{Kind: transcript.PartToolResult, ToolCallID: id, ToolName: c.tool, Text: "screenshot"},
				transcript.Part{Kind: transcript.PartImage, MIME: "image/png", Width: 320, Height: 200, Size: 4000})
			parts := b.t.Messages[i].Parts
			if c.wholeItem {
				parts[0].Ref.Block = -1
			} else {
				parts[1].Ref = parts[0].Ref
			}
		}
		for turn := 0; turn < 4; turn++ {
			b.prompt(fmt.Sprintf("look at the page (%d)", turn))
			shot()
			b.say("the header overlaps the menu")
		}
		src := b.build()
		for _, pipe := range c.pipes {
			v, _ := run1(t, src, Options{Strategies: pipe, KeepLast: new(1), Hints: c.hints})
			if calls := callIDs(v, transcript.PartToolCall); len(calls) == 4 {
				t.Fatalf("%s %v removed no pair; the test needs one removed", c.format, pipe)
			}
			for _, m := range v.Messages {
				for _, p := range m.Parts {
					if (p.Kind == transcript.PartImage || strings.Contains(p.Text, "[compacted: image")) && !hasResult(m) {
						t.Errorf("%s %v: an image of a removed result is left: %+v", c.format, pipe, m.Parts)
					}
				}
			}
		}
	}
}

func hasResult(m transcript.Message) bool {
	for _, p := range m.Parts {
		if p.Kind == transcript.PartToolResult {
			return true
		}
	}
	return false
}
