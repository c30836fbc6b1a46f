package gauge_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// The dry run of the 2.1.330 case, mapped back onto its turns: the first
// turn loses the repeated read (650 tokens), the kept last turn nothing,
// and the turns sum to the report's before and after.
func TestTurnChangesOfADryRun(t *testing.T) {
	tr, counts, _ := load(t, filepath.Join("testdata", "claude-2.1.330-24k.jsonl"))
	counter, _ := tokens.New(tokens.O200kBase)
	v, rep, err := strategy.Run(context.Background(), tr, counter, strategy.Options{Strategies: []string{"auto"}, KeepLast: new(1), Window: 200_000})
	if err != nil {
		t.Fatal(err)
	}
	changes := gauge.TurnChanges(tr, counts, v, func(m *transcript.Message) int { return counter.CountMessage(m).N }, counter.Text)
	if len(changes) != 2 {
		t.Fatalf("%d turns", len(changes))
	}
	before, after := 0, 0
	for _, c := range changes {
		before += c.Before
		after += c.After
	}
	if before != rep.TokensBefore || after != rep.TokensAfter {
		t.Fatalf("turns sum to %d → %d, the report says %d → %d", before, after, rep.TokensBefore, rep.TokensAfter)
	}
	if changes[0].Removed() != 650 || changes[1].Removed() != 0 {
		t.Fatalf("removed per turn %d, %d; want 650 and 0 (the last turn is kept)", changes[0].Removed(), changes[1].Removed())
	}
}
