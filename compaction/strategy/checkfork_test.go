package strategy

import (
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
