package claude

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestLeafIgnoresStaleErrorResult: a session that ends with the error
// tool_result Claude Code writes when a permission stream closes, answering
// a tool_use from before the second compact_boundary. Claude Code resumes
// from the last-prompt leaf (the last row does not descend from it), so the
// active branch is the last prompt and its answer, and the gauge calibrates
// on that answer's usage (151,899), not on the branch before the boundary.
func TestLeafIgnoresStaleErrorResult(t *testing.T) {
	src := formattest.Fixture(t, "stale-error-result-after-second-boundary.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "stale", src)
	if len(tr.Messages) == 0 {
		t.Fatal("no messages")
	}
	last := tr.Messages[len(tr.Messages)-1]
	if last.Role != transcript.RoleAssistant || !strings.HasPrefix(last.Parts[0].Text, "Done: settle.go") {
		t.Fatalf("active branch ends at %s/%s %q, want the answer to the last prompt", last.Role, last.Origin, firstText(&last))
	}
	if tr.Messages[0].Origin != transcript.OriginSummary || !strings.Contains(tr.Messages[0].Parts[0].Text, "integration suite was about to run") {
		t.Fatalf("active branch starts at %q, want the second compact summary", firstText(&tr.Messages[0]))
	}
	var prompts []string
	for _, m := range tr.Messages {
		if m.Origin == transcript.OriginHuman {
			prompts = append(prompts, firstText(&m))
		}
		for _, p := range m.Parts {
			if p.ToolCallID == "toolu_01Pend" {
				t.Fatalf("the stale result of toolu_01Pend is on the active branch: %+v", m)
			}
		}
	}
	if len(prompts) != 1 || !strings.HasPrefix(prompts[0], "Skip the integration suite") {
		t.Fatalf("prompts on the branch = %q, want the last prompt", prompts)
	}
	if lu := tr.LastUsage(); lu < 0 || tr.Messages[lu].Usage.ContextTokens() != 151_899 {
		t.Fatalf("last usage = %d, want the answer's 151,899 tokens", tr.LastUsage())
	}
	for seed := range uint64(4) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}
}

func firstText(m *transcript.Message) string {
	for _, p := range m.Parts {
		if p.Text != "" {
			return p.Text
		}
	}
	return ""
}

// TestLeafAfterCompactionIgnoresEarlierHint: a session Claude Code has just
// compacted ends with the compact summary; the last-prompt record before
// the boundary names the old leaf, which Claude Code forgets at the
// boundary. The active branch is the summary.
func TestLeafAfterCompactionIgnoresEarlierHint(t *testing.T) {
	src := formattest.Fixture(t, "two-compact-boundaries.jsonl")
	// Cut the session right after its second boundary's summary.
	lines := strings.SplitAfter(string(src), "\n")
	var cut []string
	summaries := 0
	for _, l := range lines {
		cut = append(cut, l)
		if strings.Contains(l, `"isCompactSummary":true`) {
			if summaries++; summaries == 2 {
				break
			}
		}
	}
	tr := formattest.RoundTrip(t, Codec{}, "just compacted", []byte(strings.Join(cut, "")))
	if len(tr.Messages) != 1 || tr.Messages[0].Origin != transcript.OriginSummary || !strings.Contains(firstText(&tr.Messages[0]), "429 responses carry Retry-After") {
		t.Fatalf("after a compaction the branch is %d messages from %q, want the new summary alone", len(tr.Messages), firstText(&tr.Messages[0]))
	}
}
