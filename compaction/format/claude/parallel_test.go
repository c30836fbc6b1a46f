package claude

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestParallelToolResults: Claude Code 2.1.330 writes a response with two
// parallel tool calls as one row per block, each the parent of the next,
// and each call's result as a child of the row holding that call. The
// chain from the last answer runs through the second result only; the
// first hangs beside it, and Claude Code sends it (the API wants every
// tool_use answered). compactd lost it: the gauge counted the session
// short (by the 751 tokens of a file read, in the real-agent suite) and a
// fork dropped the read and its call.
func TestParallelToolResults(t *testing.T) {
	src := formattest.Fixture(t, "parallel-tool-calls.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "parallel", src)
	var got []string
	for _, m := range tr.Messages {
		var kinds []string
		for _, p := range m.Parts {
			kinds = append(kinds, string(p.Kind)+":"+p.ToolCallID)
		}
		got = append(got, string(m.Role)+"["+strings.Join(kinds, " ")+"]")
	}
	want := "user[text:] user[attachment:] assistant[reasoning: tool_call:toolu_01Read tool_call:toolu_01Ls] user[tool_result:toolu_01Read] user[tool_result:toolu_01Ls] user[attachment:] assistant[text:]"
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("messages\n got  %s\n want %s", g, want)
	}
	for seed := range uint64(6) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}

	// A fork keeps both results, in a chain Claude Code resumes whole.
	v := transcript.NewView(tr)
	_, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "fork-0003", Timestamp: "2026-06-03T09:00:00.000Z"})
	if len(back.Messages) != len(tr.Messages) {
		t.Fatalf("the fork re-parses to %d messages, want %d", len(back.Messages), len(tr.Messages))
	}
	for i := range tr.Messages {
		if len(back.Messages[i].Parts) != len(tr.Messages[i].Parts) {
			t.Fatalf("fork message %d has %d parts, want %d", i, len(back.Messages[i].Parts), len(tr.Messages[i].Parts))
		}
	}
}
