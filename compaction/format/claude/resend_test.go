package claude

import (
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// announcements-2.1.330.jsonl is a Claude Code 2.1.330 session (written by
// the real agent in the real-agent suite, request logs removed): its first
// turn carries the attachments Claude Code announces once — the model,
// deferred tools, agents, skills — beside the environment and date.

// TestForkHoldsWhatTheReportCounts: the report's "after" is what the fork
// holds. strip-attachments once replaced the announcements in the view
// while the fork kept their records whole (Claude Code renders attachments
// from their fields): the report said 2,027 tokens, the fork held 3,766,
// and the fork's gauge stood 9.8 % above "after" plus the overhead.
func TestForkHoldsWhatTheReportCounts(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "announcements", formattest.Fixture(t, "announcements-2.1.330.jsonl"))
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, strategies := range [][]string{{"auto"}, {"strip-attachments"}, {"turn-window"}, {"extractive"}} {
		v, rep, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: strategies, Turns: 3})
		if err != nil {
			t.Fatal(err)
		}
		_, fork := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "5f4e3d2c-1b0a-4987-8654-3210fedcba98"})
		counts, err := counter.CountMessages(t.Context(), fork.Messages)
		if err != nil {
			t.Fatal(err)
		}
		got := tokens.Sum(counts).N
		if d := got - rep.TokensAfter; d < -rep.TokensAfter/50 || d > rep.TokensAfter/50 {
			t.Errorf("%v: the report says %d tokens after, the fork holds %d", strategies, rep.TokensAfter, got)
		}
	}
}

// TestResentAnnouncements: a fork that cut the first turn's announcements
// makes the resumed Claude Code announce them again (seen in the real-agent
// suite: 1,946 tokens more in its first request than the fork's gauge);
// Resent names them, and nothing for a fork that kept them.
func TestResentAnnouncements(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "announcements", formattest.Fixture(t, "announcements-2.1.330.jsonl"))
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(ms []transcript.Message) map[string]int {
		out := map[string]int{}
		for i := range ms {
			out[announcementOf(tr, &ms[i])]++
		}
		return out
	}
	cut, _, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: []string{"turn-window"}, Turns: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := kinds(Codec{}.Resent(cut))
	for _, k := range []string{"model", "deferred_tools_delta", "agent_listing_delta", "skill_listing"} {
		if got[k] != 1 {
			t.Errorf("a fork without the first turn: resent %v, want one %s", got, k)
		}
	}
	if len(got) != 4 {
		t.Errorf("resent %v: only announcements are sent again", got)
	}
	kept, _, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: []string{"auto"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := (Codec{}).Resent(kept); len(r) != 0 {
		t.Errorf("a fork that kept the announcements: %d resent, want none", len(r))
	}
	var _ format.Resender = Codec{}
}
