package jobs

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentLedgerClaude: the two compactions Claude Code recorded in a
// session, each with the figures it recorded, its line, and what its
// summary lost of the history before it.
func TestAgentLedgerClaude(t *testing.T) {
	r := &Runner{}
	l, err := r.AgentLedger(context.Background(), filepath.Join("testdata", "claude-two-compact-boundaries.jsonl"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Compactions) != 2 || l.Health.Loop {
		t.Fatalf("%d compactions, loop %v (%s)", len(l.Compactions), l.Health.Loop, l.Health.Warning)
	}
	for _, c := range l.Compactions {
		if !c.Measured || c.Retention == nil || c.Line <= 0 || c.TokensBefore <= 0 {
			t.Errorf("%s: %+v", c.Compaction, c)
		}
		if len(c.Lost) > 0 && !strings.Contains(c.Summary, " lost ") {
			t.Errorf("%s: summary %q names no loss", c.Compaction, c.Summary)
		}
	}
}

// TestAgentLedgerCodexLoop: Codex 0.169 compacting four times in three
// seconds in one turn (the loop reproduced with a 20,000-token limit and a
// turn whose tool outputs refill the window) is a loop.
func TestAgentLedgerCodexLoop(t *testing.T) {
	r := &Runner{}
	l, err := r.AgentLedger(context.Background(), filepath.Join("testdata", "codex-compaction-loop.jsonl.zst"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Compactions) != 4 {
		t.Fatalf("%d compactions, want 4", len(l.Compactions))
	}
	if !l.Health.Loop || !strings.Contains(l.Health.Warning, "4 times within") {
		t.Fatalf("health %+v", l.Health)
	}
	for _, c := range l.Compactions {
		if c.TokensAfter <= 0 || c.Timestamp.IsZero() {
			t.Errorf("%s: %+v", c.Compaction, c)
		}
	}
	t.Logf("%s", l.Health.Warning)
	t.Logf("%s", l.Compactions[0].Summary)
}
