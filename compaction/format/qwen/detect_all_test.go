package qwen_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestDetectAcrossFormats runs the detectors of the agents added in issue
// 15 over every codec's fixtures and the shared corpus: each claims its
// own files (and format.Detect picks it), none claims another format's,
// and the Claude Code detector refuses Qwen Code's sessions.
func TestDetectAcrossFormats(t *testing.T) {
	mine := map[string]transcript.Format{
		"qwen": transcript.FormatQwenCode, "opencode": transcript.FormatOpenCode, "copilotcli": transcript.FormatCopilotCLI,
		"cursor": transcript.FormatCursorAgent, "copilotchat": transcript.FormatCopilotChat,
	}
	ours := []transcript.Format{transcript.FormatQwenCode, transcript.FormatOpenCode, transcript.FormatKilo, transcript.FormatCopilotCLI,
		transcript.FormatCursorAgent, transcript.FormatCopilotChat}
	claude, _ := format.Lookup(transcript.FormatClaudeCode)
	for _, s := range formattest.Samples(t) {
		want, isMine := mine[s.Owner]
		if s.Corpus {
			isMine = false
		}
		head := formattest.Head(t, s.Path)
		for _, f := range ours {
			c, _ := format.Lookup(f)
			score := c.Detect(s.Path, head)
			sameFamily := want == transcript.FormatOpenCode && f == transcript.FormatKilo
			switch {
			case isMine && f == want && score < 50:
				t.Errorf("%s: %s scored %d on its own file", s.Path, f, score)
			case !(isMine && (f == want || sameFamily)) && score > 0:
				t.Errorf("%s: %s claims it with score %d", s.Path, f, score)
			}
		}
		if isMine {
			if c, err := format.Detect(s.Path, head); err != nil || c.Format() != want {
				t.Errorf("%s: detected %v (%v), want %s", s.Path, c, err, want)
			}
		}
		if s.Owner == "qwen" && strings.HasSuffix(s.Path, ".jsonl") {
			if score := claude.Detect(filepath.Join("/h/.claude/projects/x", filepath.Base(s.Path)), head); score != 0 {
				t.Errorf("%s: the Claude Code detector claims a Qwen Code session (%d)", s.Path, score)
			}
		}
	}
}
