package gemini_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestDetectAcrossFormats runs the jp, Gemini CLI and Aider detectors over
// every codec's fixtures and the shared corpus: each claims its own files
// (and format.Detect picks it), and none claims another format's file.
func TestDetectAcrossFormats(t *testing.T) {
	mine := map[string]transcript.Format{"gemini": transcript.FormatGeminiCLI, "jp": transcript.FormatJP, "aider": transcript.FormatAider,
		"gemini-cli": transcript.FormatGeminiCLI}
	ours := []transcript.Format{transcript.FormatGeminiCLI, transcript.FormatJP, transcript.FormatAider}
	check := func(path, owner string) {
		src := formattest.Head(t, path)
		want, isMine := mine[owner]
		base := filepath.Base(path)
		if isMine && (strings.Contains(base, "metadata") || strings.Contains(base, "base_config") || strings.HasSuffix(base, ".md") && want != transcript.FormatAider || base == "SOURCES.md") {
			isMine = false // sibling and provenance files are not transcripts
			want = ""
		}
		for _, f := range ours {
			c, _ := format.Lookup(f)
			score := c.Detect(path, src)
			switch {
			case isMine && f == want && score < 50:
				t.Errorf("%s: %s scored %d on its own file", path, f, score)
			case (!isMine || f != want) && score > 0:
				t.Errorf("%s: %s claims it with score %d", path, f, score)
			}
		}
		if isMine {
			if c, err := format.Detect(path, src); err != nil || c.Format() != want {
				t.Errorf("%s: detected %v (%v), want %s", path, c, err, want)
			}
		}
	}
	for _, s := range formattest.Samples(t) {
		owner := s.Owner
		if s.Corpus && owner == "aider" {
			owner = "" // an input history, not a chat log
		}
		check(s.Path, owner)
	}
}
