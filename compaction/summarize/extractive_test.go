package summarize_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

var (
	counterOnce sync.Once
	counter     *tokens.Counter
	counterErr  error
)

func newCounter(tb testing.TB) *tokens.Counter {
	tb.Helper()
	counterOnce.Do(func() { counter, counterErr = tokens.New("o200k_base") })
	if counterErr != nil {
		tb.Fatalf("tokens.New: %v", counterErr)
	}
	return counter
}

// spanOfTokens generates sessions until one reaches target tokens.
func spanOfTokens(tb testing.TB, seed uint64, target int) ([]transcript.Message, int) {
	c := newCounter(tb)
	for turns := 8; ; turns += 4 {
		msgs := genSession(seed, turns)
		n := 0
		for i := range msgs {
			n += c.Message(&msgs[i])
		}
		if n >= target {
			return msgs, n
		}
	}
}

// retained counts the facts summary keeps verbatim (case and all, as the
// retention report checks them).
func retained(list []facts.Fact, summary string) (kept int, lost []facts.Fact) {
	for _, f := range list {
		if strings.Contains(summary, f.Text) {
			kept++
		} else {
			lost = append(lost, f)
		}
	}
	return kept, lost
}

func TestExtractiveKeepsKeyFactsWithinBudget(t *testing.T) {
	c := newCounter(t)
	for _, seed := range []uint64{1, 2, 3} {
		msgs, spanTokens := spanOfTokens(t, seed, 100_000)
		turns := transcript.BuildTurns(msgs)
		list := facts.Extract(msgs)
		kinds := map[string]int{}
		for _, f := range list {
			kinds[f.Kind]++
		}
		for _, k := range facts.Kinds() {
			if kinds[k] == 0 {
				t.Fatalf("seed %d: the generated session yields no %s facts (%v): the test would prove nothing", seed, k, kinds)
			}
		}
		e := &summarize.Extractive{Counter: c}
		start := time.Now()
		s, err := e.Summarize(context.Background(), summarize.Request{Messages: msgs, FromTurn: 0, ToTurn: len(turns)})
		elapsed := time.Since(start)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		kept, lost := retained(list, s.Text)
		score := float64(kept) / float64(len(list))
		t.Logf("seed %d: span %d tokens, %d turns → summary %d tokens in %v; facts kept %d/%d (%.1f%%) %v",
			seed, spanTokens, len(turns), s.Tokens, elapsed, kept, len(list), 100*score, kinds)
		if s.Tokens > 3000 || c.Text(s.Text) > 3000 {
			t.Errorf("seed %d: summary is %d tokens, want ≤ 3000", seed, c.Text(s.Text))
		}
		if score < 0.95 {
			t.Errorf("seed %d: kept %.1f%% of key facts, want ≥ 95%%; lost e.g. %v", seed, 100*score, lost[:min(10, len(lost))])
		}
		if s.Model != "extractive" || s.FromTurn != 0 || s.ToTurn != len(turns) {
			t.Errorf("metadata = %+v", s)
		}
	}
}

func TestExtractiveIsDeterministic(t *testing.T) {
	msgs := genSession(11, 12)
	e := &summarize.Extractive{Counter: newCounter(t), Now: func() time.Time { return time.Unix(0, 0) }}
	a, err1 := e.Summarize(context.Background(), summarize.Request{Messages: msgs, ToTurn: 13})
	b, err2 := e.Summarize(context.Background(), summarize.Request{Messages: msgs, ToTurn: 13})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if a.Text != b.Text {
		t.Fatal("two runs over the same span differ")
	}
}

func TestExtractiveHonoursSmallBudgets(t *testing.T) {
	c := newCounter(t)
	msgs := genSession(5, 30)
	list := facts.Extract(msgs)
	var prevKept int
	for _, budget := range []int{200, 600, 1500, 4000} {
		s, err := (&summarize.Extractive{Counter: c}).Summarize(context.Background(), summarize.Request{Messages: msgs, ToTurn: 31, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Text(s.Text); got > budget {
			t.Errorf("budget %d: summary has %d tokens", budget, got)
		}
		kept, _ := retained(list, s.Text)
		if kept < prevKept {
			t.Errorf("budget %d kept %d facts, fewer than a smaller budget (%d)", budget, kept, prevKept)
		}
		prevKept = kept
		// Standing instructions are the last thing dropped.
		if budget >= 600 && !strings.Contains(s.Text, "Never edit files under vendor/") {
			t.Errorf("budget %d lost the CLAUDE.md rule:\n%s", budget, s.Text)
		}
	}
}

func TestExtractiveSections(t *testing.T) {
	msgs := []transcript.Message{
		{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Parts: []transcript.Part{{Kind: transcript.PartText, Text: "Fix the flaky test in internal/api/handler_test.go. Always run go vet first."}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{
			{Kind: transcript.PartText, Text: "I'll use a fake clock instead of time.Sleep because the test races."},
			{Kind: transcript.PartToolCall, ToolCallID: "a", ToolName: "exec_command", Args: `{"cmd":["bash","-lc","go test ./internal/api/ -run TestHandler"]}`},
		}},
		{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: "a", Text: "--- FAIL: TestHandler (0.01s)\n    handler_test.go:31: got 500, want 200\nFAIL\nProcess exited with code 1"}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{
			{Kind: transcript.PartToolCall, ToolCallID: "b", ToolName: "apply_patch", Args: "*** Begin Patch\n*** Update File: internal/api/handler.go\n@@\n-x\n+y\n*** End Patch"},
			{Kind: transcript.PartToolCall, ToolCallID: "c", ToolName: "exec_command", Args: `{"cmd":["bash","-lc","go test ./internal/api/ -run TestHandler"]}`},
		}},
		{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{
			{Kind: transcript.PartToolResult, ToolCallID: "b", Text: "Success."},
			{Kind: transcript.PartToolResult, ToolCallID: "c", Text: "ok  \tinventory/internal/api\t0.1s\nProcess exited with code 0"},
		}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartText, Text: "Fixed. Next steps: add a regression test for `handleReserve`."}}},
	}
	s, err := (&summarize.Extractive{}).Summarize(context.Background(), summarize.Request{Messages: msgs, FromTurn: 4, ToTurn: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Summary of turns 4–4",
		"## Goal\n- User (T4): Fix the flaky test in internal/api/handler_test.go.",
		"Always run go vet first.",
		"I'll use a fake clock instead of time.Sleep because the test races.",
		"## Files touched (last known state)\n- internal/api/handler.go — edited; last edited T4",
		"## Commands that work\n- `go test ./internal/api/ -run TestHandler` → ok ×2, last T4",
		"## Done\n- `go test ./internal/api/ -run TestHandler` works again (T4); it had failed with: --- FAIL: TestHandler (0.01s)",
		"## Remaining\n- [open] Next steps: add a regression test for `handleReserve`.",
		"## Next action\n- Assistant (T4), last: Fixed. Next steps: add a regression test for `handleReserve`.",
	} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("summary lacks %q:\n%s", want, s.Text)
		}
	}
}

// TestExtractiveFrontierOrder: the sections come in the order a
// continuing agent reads them — goal, done, remaining, next action, files,
// commands that work, open errors.
func TestExtractiveFrontierOrder(t *testing.T) {
	msgs := []transcript.Message{
		{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Parts: []transcript.Part{{Kind: transcript.PartText, Text: "Make the importer idempotent."}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: "t", ToolName: "TodoWrite", Args: `{"todos":[{"content":"Add a unique key","status":"completed"},{"content":"Backfill old rows","status":"in_progress"}]}`}}},
		{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: "t", Text: "ok"}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: "e", ToolName: "Edit", Args: `{"file_path":"importer/load.go","old_string":"a","new_string":"b"}`}}},
		{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: "e", Text: "ok"}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: "m", ToolName: "Bash", Args: `{"command":"make migrate"}`}}},
		{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: "m", Text: "migrated 3"}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: "g", ToolName: "Bash", Args: `{"command":"go test ./importer/"}`}}},
		{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: "g", IsError: true, Text: "load_test.go:12: duplicate key value violates unique constraint\nFAIL"}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartText, Text: "The backfill still collides. Next I will dedupe rows before inserting."}}},
	}
	s, err := (&summarize.Extractive{}).Summarize(context.Background(), summarize.Request{Messages: msgs, ToTurn: 1})
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, h := range []string{"## Goal", "## Done", "## Remaining", "## Next action", "## Files touched", "## Commands that work", "## Open errors"} {
		i := strings.Index(s.Text, h)
		if i < 0 {
			t.Errorf("no %q section:\n%s", h, s.Text)
			continue
		}
		if i < last {
			t.Errorf("%q comes too early:\n%s", h, s.Text)
		}
		last = i
	}
	for _, want := range []string{"Add a unique key", "[in_progress] Backfill old rows", "Next I will dedupe rows before inserting.", "importer/load.go — edited", "`make migrate` → ok", "duplicate key value violates unique constraint"} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("summary lacks %q:\n%s", want, s.Text)
		}
	}
}

func TestExtractiveRejectsEmptySpan(t *testing.T) {
	_, err := (&summarize.Extractive{}).Summarize(context.Background(), summarize.Request{})
	if err == nil {
		t.Fatal("empty span summarized")
	}
}

func TestExtractiveRedactsSecrets(t *testing.T) {
	msgs := []transcript.Message{{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Parts: []transcript.Part{{Kind: transcript.PartText,
		Text: "Deploy with password=hunter2hunter2 and key sk-ant-api03-abcdefghijklmnopqrstuvwx please"}}}}
	s, err := (&summarize.Extractive{}).Summarize(context.Background(), summarize.Request{Messages: msgs, ToTurn: 1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.Text, "hunter2") || strings.Contains(s.Text, "sk-ant-api03") || s.Redacted != 2 {
		t.Fatalf("secrets survive or miscounted (%d):\n%s", s.Redacted, s.Text)
	}
}

func BenchmarkExtractive100k(b *testing.B) {
	msgs, n := spanOfTokens(b, 1, 100_000)
	c := newCounter(b)
	turns := transcript.BuildTurns(msgs)
	e := &summarize.Extractive{Counter: c}
	b.ReportMetric(float64(n), "span-tokens")
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Summarize(context.Background(), summarize.Request{Messages: msgs, ToTurn: len(turns)}); err != nil {
			b.Fatal(err)
		}
	}
}
