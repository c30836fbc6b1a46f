package codex_test

import (
	"path/filepath"
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
	var rollouts []string
	for _, f := range formattest.Fixtures(t, "*.jsonl") {
		if !formattest.IsGolden(f) {
			rollouts = append(rollouts, f)
		}
	}
	if formattest.CorpusDir() != "" {
		rollouts = append(rollouts, formattest.Corpus(t, "codex", "*.jsonl")...)
	}
	for _, f := range rollouts {
		src := formattest.Read(t, f)
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
			src = formattest.Read(t, f)
		}
		if c, err := format.Detect(f, src); err == nil && c.Format() == transcript.FormatCodex {
			t.Errorf("%s: a Claude Code session detected as Codex", f)
		}
	}
}
