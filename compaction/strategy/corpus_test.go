package strategy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
)

// TestStrategiesOnCorpus runs every mechanical strategy and auto over every
// real transcript of the shared corpus: the view keeps the API invariants,
// the fork is written in the transcript's own format, re-parses without new
// problems, keeps the invariants the source had, and is no larger in
// tokens. Real agents leave orphan results and interrupted turns; compaction
// must not make them worse.
func TestStrategiesOnCorpus(t *testing.T) {
	// Tests run in the package folder: the corpus sits beside the repository.
	root, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); err != nil {
		formattest.NoCorpus(t, "shared corpus not present at "+root)
	}
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "SOURCES.md" {
			files = append(files, p)
		}
		return err
	})
	c, err := tokens.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	pipelines := [][]string{
		{strategy.StrategyAuto},
		{strategy.StrategyStripReasoning},
		{strategy.StrategyStripToolResults},
		{strategy.StrategyDedupTools},
		{strategy.StrategyStripAttachments},
		{strategy.StrategyPruneTools},
		{strategy.StrategySlidingWindow},
		{strategy.StrategyTurnWindow},
		{strategy.StrategyTokenBudget},
		{strategy.StrategyDedupTools, strategy.StrategyTurnWindow},
	}
	tested := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		codec, err := format.Detect(path, src)
		if err != nil {
			continue // not a transcript (input histories, metadata, other tools' files)
		}
		tr, err := codec.Parse(src)
		if err != nil || len(tr.Messages) == 0 {
			continue
		}
		tested++
		name := strings.TrimPrefix(path, root+string(filepath.Separator))
		sourceOK := strategy.CheckTranscript(tr) == nil
		for _, pipe := range pipelines {
			t.Run(name+"/"+strings.Join(pipe, "+"), func(t *testing.T) {
				v, rep, err := strategy.Run(t.Context(), tr, c, strategy.Options{
					Strategies: pipe, Window: 8000, Budget: 2000, Events: 6, Turns: 1,
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := strategy.Check(v); err != nil {
					t.Fatalf("view breaks the API invariants: %v", err)
				}
				if rep.TokensAfter > rep.TokensBefore {
					t.Errorf("compaction grew the transcript: %d → %d tokens", rep.TokensBefore, rep.TokensAfter)
				}
				out, err := codec.Fork(v, format.ForkOptions{SessionID: "00000000-0000-4000-8000-000000000001", TokensBefore: rep.TokensBefore})
				if err != nil {
					t.Fatalf("fork: %v", err)
				}
				re, err := codec.Parse(out)
				if err != nil {
					t.Fatalf("fork does not re-parse as %s: %v", codec.Format(), err)
				}
				if re.Skipped > tr.Skipped {
					t.Errorf("fork has %d unreadable records, the source %d", re.Skipped, tr.Skipped)
				}
				if sourceOK {
					if err := strategy.CheckFork(re, tr); err != nil {
						t.Errorf("re-parsed fork breaks invariants the source kept: %v", err)
					}
				}
			})
		}
	}
	if tested == 0 {
		t.Fatal("no corpus file was a transcript")
	}
	t.Logf("%d corpus transcripts × %d pipelines", tested, len(pipelines))
}
