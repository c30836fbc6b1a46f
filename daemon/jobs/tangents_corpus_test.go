package jobs

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
)

// greedyClassifier names every turn, the current one too: the worst a
// model can answer. The strategy alone must keep what may not go.
type greedyClassifier struct{}

func (greedyClassifier) Name() string { return "greedy" }
func (greedyClassifier) Classify(_ context.Context, msgs []transcript.Message, first int) ([]int, error) {
	var out []int
	for k := range transcript.BuildTurns(msgs) {
		out = append(out, first+k)
	}
	return out, nil
}

// TestTangentsOnCorpus removes every turn a greedy classifier names from
// each real transcript of ../shared/corpus, confirmed: every fork must
// parse back, keep the API's rules (the job verifies both), and keep the
// first prompt and the last turn.
func TestTangentsOnCorpus(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(wd, "..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		formattest.NoCorpus(t, "no corpus at "+corpus)
	}
	root := isolate(t)
	r := realRunner(t)
	work := filepath.Join(root, "corpus")
	if err := os.CopyFS(work, os.DirFS(corpus)); err != nil {
		t.Fatal(err)
	}
	tried := 0
	filepath.WalkDir(work, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := readSource(path)
		if err != nil || len(src.t.Messages) == 0 {
			return nil // not a transcript on its own (metadata, parts of a store)
		}
		turns := transcript.BuildTurns(src.t.Messages)
		if len(turns) < 3 {
			return nil
		}
		rel, _ := filepath.Rel(work, path)
		t.Run(rel, func(t *testing.T) {
			tried++
			res, err := r.Compact(context.Background(), Request{
				Path: path, ConfirmAllTangents: true,
				Options: strategy.Options{Strategies: []string{strategy.StrategyClassifyTangents}, Tangents: greedyClassifier{}},
			})
			if err != nil {
				t.Fatal(err)
			}
			fork, err := readSource(res.ForkPath)
			if err != nil {
				t.Fatal(err)
			}
			if want := firstPrompt(src.t); want != "" && !strings.Contains(string(fork.data), jsonFragment(want)) {
				t.Errorf("the fork lost the first prompt %.60q", want)
			}
			last := src.t.Messages[turns[len(turns)-1].Start:]
			if got := fork.t.Messages; len(got) < len(last) {
				t.Errorf("the fork has %d messages, fewer than the last turn's %d", len(got), len(last))
			}
			for _, tg := range res.Tangents {
				if tg.Turn >= len(turns)-1 {
					t.Errorf("the current turn %d was listed", tg.Turn)
				}
			}
			t.Logf("%d turns, %d removed, tokens %d → %d; notes %q", len(turns), len(res.Tangents), res.TokensBefore, res.TokensAfter, res.Notes)
		})
		return nil
	})
	if tried == 0 {
		t.Skip("no transcript in the corpus has three turns")
	}
}

// jsonFragment is a short prefix of s as it appears inside a JSON string.
func jsonFragment(s string) string {
	s = strings.SplitN(s, "\n", 2)[0]
	if len(s) > 30 {
		s = s[:30]
	}
	if i := strings.IndexAny(s, "\"\\<>&\t"); i >= 0 {
		s = s[:i]
	}
	return s
}
