package gauge

import (
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

func TestApportionSumsExactly(t *testing.T) {
	for _, c := range []struct {
		n       int
		weights []int
	}{{10, []int{1, 1, 1}}, {7, []int{5, 0, 2}}, {1001, []int{333, 333, 334}}, {0, []int{3, 4}}, {5, []int{0, 0}}} {
		total := 0
		for _, w := range c.weights {
			total += w
		}
		got := apportion(c.n, c.weights, total)
		sum := 0
		for _, x := range got {
			sum += x
		}
		if sum != c.n {
			t.Errorf("apportion(%d, %v) = %v, sums to %d", c.n, c.weights, got, sum)
		}
	}
}

// A message mixing reasoning, text and a tool call is shared by the parts'
// sizes; our count above the reported usage stays a (negative) part, so
// the parts still sum to the gauge.
func TestBreakdownMixedMessageAndOvercount(t *testing.T) {
	msgs := []transcript.Message{
		user("fix it"),
		{Role: transcript.RoleAssistant, Model: "claude-sonnet-4-5", Usage: &transcript.Usage{Input: 500},
			Parts: []transcript.Part{
				{Kind: transcript.PartReasoning, Text: string(make([]byte, 400))},
				{Kind: transcript.PartText, Text: string(make([]byte, 200))},
				{Kind: transcript.PartToolCall, ToolName: "Bash", Args: string(make([]byte, 196))},
			}},
	}
	tr := newTranscript(transcript.FormatClaudeCode, msgs...)
	cs := counts(100, 604)
	g := Compute(tr, cs, Options{})
	b := BreakdownOf(g, tr, cs, TallyOptions{}, BreakdownOptions{})
	if b.Sum() != g.Tokens || g.Tokens != 500 {
		t.Fatalf("sum %d gauge %d", b.Sum(), g.Tokens)
	}
	if b.Outside.Tokens != 500-704 || b.Parts[0].Label != "our count above the reported usage" {
		t.Fatalf("outside %+v parts %+v", b.Outside, b.Parts)
	}
	got := map[Category]int{}
	for _, p := range b.Parts {
		got[p.Category] = p.Tokens
	}
	// Weights 101, 51 and 51 (bytes/4 + 1, the name and args together):
	// 604 splits 300.5, 151.7, 151.7, the largest remainders rounding up.
	if got[CategoryReasoning] != 300 || got[CategoryAssistant] != 152 || got[CategoryToolCalls] != 152 {
		t.Fatalf("shares %v", got)
	}
}

// A fork without usage of its own carries its source's overhead: the
// breakdown names it as inherited and still sums to the gauge; Overhead
// passes it on (a fork of a fork), and is never negative.
func TestBreakdownOfAForkCarriesTheSourceOverhead(t *testing.T) {
	tr := newTranscript(transcript.FormatClaudeCode, user("fix it"), assistant("done", nil))
	cs := counts(100, 50)
	g := Compute(tr, cs, Options{Overhead: 20_000})
	b := BreakdownOf(g, tr, cs, TallyOptions{}, BreakdownOptions{})
	if g.Tokens != 20_150 || b.Sum() != g.Tokens || !b.Outside.Inherited || b.Outside.Tokens != 20_000 {
		t.Fatalf("gauge %d breakdown %+v", g.Tokens, b)
	}
	if over, ok := Overhead(g, 150); !ok || over != 20_000 {
		t.Fatalf("overhead of the fork %d %v", over, ok)
	}
	over := Compute(tr, cs, Options{})
	over.Source, over.Tokens = SourceReported, 100 // reported below our count
	if n, ok := Overhead(over, 150); !ok || n != 0 {
		t.Fatalf("a negative overhead passed on: %d", n)
	}
}
