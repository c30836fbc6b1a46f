package strategy

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func generatedSession(t testing.TB, opts sessiongen.Options) *transcript.Transcript {
	t.Helper()
	tr, err := claude.Codec{}.Parse(sessiongen.ClaudeCode(opts))
	if err != nil {
		t.Fatalf("parse generated session: %v", err)
	}
	return tr
}

// TestAutoOnGeneratedSessions: on realistic Claude Code sessions, auto
// without any LLM saves at least 60 % of the tokens while every standing
// instruction, the last turn and every file path touched survive.
func TestAutoOnGeneratedSessions(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			src := generatedSession(t, sessiongen.Options{Seed: seed, Turns: 14})
			v, rep := run1(t, src, Options{})
			saved := float64(rep.TokensBefore-rep.TokensAfter) / float64(rep.TokensBefore)
			t.Logf("%d → %d tokens (%.1f %% saved), retention %.2f (%d/%d)", rep.TokensBefore, rep.TokensAfter, 100*saved, rep.Retention.Score, rep.Retention.Kept, rep.Retention.Total)
			if saved < 0.60 {
				t.Errorf("auto saved %.1f %%, want ≥ 60 %%", 100*saved)
			}
			for _, f := range rep.Retention.Lost {
				if f.Kind == facts.Instruction || f.Kind == facts.Path {
					t.Errorf("lost %s: %q", f.Kind, f.Text)
				}
			}
			last := src.Turns[len(src.Turns)-1]
			want := src.Messages[last.Start:last.End]
			got := v.Messages[len(v.Messages)-len(want):]
			for i := range want {
				if got[i].ID != want[i].ID || len(got[i].Parts) != len(want[i].Parts) {
					t.Fatalf("last turn message %d changed", i)
				}
				for j := range want[i].Parts {
					if got[i].Parts[j] != want[i].Parts[j] {
						t.Fatalf("last turn message %d part %d changed", i, j)
					}
				}
			}
		})
	}
}

func TestRetentionAutoBeatsWindow(t *testing.T) {
	src := generatedSession(t, sessiongen.Options{Seed: 9, Turns: 20})
	var sb strings.Builder
	auto, window, err := retentionAtBudget(t.Context(), &sb, src, counter(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sb.String())
	if auto.Retention.Score <= window.Retention.Score {
		t.Errorf("auto retention %.2f ≤ window %.2f at the same budget", auto.Retention.Score, window.Retention.Score)
	}
}

// BenchmarkAuto100MB runs auto over a 100 MB generated session with the
// source counts cached (as the daemon has them); the result's rewritten
// parts are counted inside the timing.
func BenchmarkAuto100MB(b *testing.B) {
	if testing.Short() {
		b.Skip("100 MB session skipped under -short")
	}
	raw := sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, TargetBytes: benchBytes})
	src, err := claude.Codec{}.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	c := counter(b)
	start := time.Now()
	counts, err := CountTranscript(b.Context(), src, c)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d MB, %d messages, source counted once in %v", len(raw)>>20, len(src.Messages), time.Since(start))
	b.ResetTimer()
	for b.Loop() {
		_, rep, err := Run(b.Context(), src, c, Options{Counts: counts})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(rep.TokensBefore-rep.TokensAfter)/float64(rep.TokensBefore)*100, "%saved")
	}
}

// benchBytes is BenchmarkAuto100MB's session size.
const benchBytes = 100 << 20

// retentionAtBudget compacts t with auto and with token-budget (the newest whole turns) cut
// to the same token count auto reached, and writes both retention scores: the
// figure the bench report quotes. It returns the two reports.
func retentionAtBudget(ctx context.Context, w io.Writer, t *transcript.Transcript, c *tokens.Counter) (auto, window *Report, err error) {
	counts, err := CountTranscript(ctx, t, c)
	if err != nil {
		return nil, nil, err
	}
	_, auto, err = Run(ctx, t, c, Options{Counts: counts})
	if err != nil {
		return nil, nil, err
	}
	_, window, err = Run(ctx, t, c, Options{Counts: counts, Strategies: []string{StrategyTokenBudget}, Budget: auto.TokensAfter})
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "at %s tokens (from %s): auto keeps %.1f %% of key facts, a window of the newest turns %.1f %%\n",
		tokens.Thousands(auto.TokensAfter), tokens.Thousands(auto.TokensBefore), 100*auto.Retention.Score, 100*window.Retention.Score)
	return auto, window, nil
}
