package lsp

import (
	"regexp"
	"slices"
	"testing"

	"github.com/compactd/compactd/compaction/recall"
)

// TestEditorInfo: what the editors take from the server — the codecs' file
// patterns, and recall-handle expressions that find and validate the
// handles compaction writes (the editors compile them as ECMAScript and
// Vim regexes; RE2 reads the same syntax).
func TestEditorInfo(t *testing.T) {
	info := Info()
	for _, want := range []string{"**/*.jsonl", "**/api_conversation_history.json", "**/.aider.chat.history.md", "**/.jp/conversations/**/events.json", "**/*.traj.json"} {
		if !slices.Contains(info.DocumentPatterns, want) {
			t.Errorf("documentPatterns %v lack %s", info.DocumentPatterns, want)
		}
	}
	if slices.Contains(info.DocumentPatterns, "**/*.json") {
		t.Error("documentPatterns attach to every .json file (settings.json too)")
	}
	handle := recall.Handle(recall.Sum("the content"), recall.MinDigits)
	whole := regexp.MustCompile(`^(?:` + info.RecallHandle + `)$`)
	mark := regexp.MustCompile(info.RecallMark)
	text := "[… 3 tool results removed; " + recall.Mark(handle) + " to see them]"
	if m := mark.FindStringSubmatch(text); m == nil || m[1] != handle || !whole.MatchString(m[1]) {
		t.Fatalf("recallMark finds %q in %q; want %s", m, text, handle)
	}
	for _, bad := range []string{"r12345", "R1234567", "r12345g", "x" + handle} {
		if whole.MatchString(bad) {
			t.Errorf("recallHandle accepts %q", bad)
		}
	}
	if info.RecallSyntax == "" {
		t.Error("no recallSyntax")
	}
}
