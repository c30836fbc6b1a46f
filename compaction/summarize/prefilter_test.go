package summarize

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestPrefiltersAgreeWithTheExpressions: isDecision and isTask answer as
// reDecision and reTask do on every line and sentence of generated
// sessions and on lines written to reach each alternative, in any case
// and beyond ASCII.
func TestPrefiltersAgreeWithTheExpressions(t *testing.T) {
	lines := []string{
		"We decided to keep the cache.", "I'll use sync.Map here", "Let's go with plan B", "switching to pgx",
		"The ROOT CAUSE is a race", "BECAUSE it is faster", "instead of polling, wait", "- [ ] write tests",
		"TODO: handle EOF", "Next steps: ship it", "follow-up on the flaky test", "nothing to see",
		"Remaining work is small", "We chose Postgres", "opted for zstd", "becauſe of the long s", "ＴＯＤＯ fullwidth",
	}
	for seed := uint64(1); seed <= 3; seed++ {
		tr, err := claude.Codec{}.Parse(sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, Turns: 30}))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tr.Messages {
			for _, p := range m.Parts {
				if p.Kind == transcript.PartText || p.Kind == transcript.PartToolResult {
					for _, l := range strings.Split(p.Text, "\n") {
						lines = append(lines, l)
						lines = append(lines, sentences(l)...)
					}
				}
			}
		}
	}
	decisions, tasks := 0, 0
	for _, l := range lines {
		if got, want := isDecision(l), reDecision().MatchString(l); got != want {
			t.Errorf("isDecision(%q) = %v, the expression says %v", l, got, want)
		} else if want {
			decisions++
		}
		if got, want := isTask(l), reTask().MatchString(l); got != want {
			t.Errorf("isTask(%q) = %v, the expression says %v", l, got, want)
		} else if want {
			tasks++
		}
	}
	if decisions < 8 || tasks < 5 {
		t.Errorf("only %d decision and %d task lines among %d: the test reaches too few matches", decisions, tasks, len(lines))
	}
}
