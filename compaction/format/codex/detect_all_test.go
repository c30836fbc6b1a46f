package codex_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

// With every codec registered, rollouts go to the Codex codec and Claude
// Code sessions do not.
func TestDetectAmongAllCodecs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	var rollouts []string
	for _, f := range files {
		if filepath.Ext(f) == ".jsonl" && !strings.Contains(f, "golden") {
			rollouts = append(rollouts, f)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "..", "..", "..", "shared", "corpus", "codex")); err == nil {
		rollouts = append(rollouts, formattest.Corpus(t, "codex")...)
	}
	for _, f := range rollouts {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := format.Detect(f, src); err != nil || c.Format() != transcript.FormatCodex {
			t.Errorf("%s: detected as %v, %v", f, c, err)
		}
	}
	gen := sessiongen.Codex(sessiongen.Options{Seed: 9, Turns: 2})
	if c, err := format.Detect("rollout-2025-11-17T09-30-00-x.jsonl", gen); err != nil || c.Format() != transcript.FormatCodex {
		t.Errorf("generated rollout detected as %v, %v", c, err)
	}
	claude, _ := filepath.Glob(filepath.Join("..", "claude", "testdata", "*.jsonl"))
	claude = append(claude, "generated")
	for _, f := range claude {
		src := sessiongen.ClaudeCode(sessiongen.Options{Seed: 9, Turns: 2})
		if f != "generated" {
			var err error
			if src, err = os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
		if c, err := format.Detect(f, src); err == nil && c.Format() == transcript.FormatCodex {
			t.Errorf("%s: a Claude Code session detected as Codex", f)
		}
	}
}
