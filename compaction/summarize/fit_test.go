package summarize

import (
	"context"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/transcript"
)

// wordCounter counts words: budgets in tests then read plainly.
type wordCounter struct{}

func (wordCounter) Text(s string) int { return len(strings.Fields(s)) }

// TestFitSparesLastCarriers: under pressure, fit drops lines that carry no
// key fact — whatever their priority — before the last line carrying a
// fact, and a fact two lines carry loses one of them first.
func TestFitSparesLastCarriers(t *testing.T) {
	o := &outline{header: "H"}
	o.add(titleConversation, prioReply, "T1 assistant: the only place `parseRequest` appears")
	o.add(titleDecisions, prioFact, "T1 assistant: a long factual line without any key fact in it at all")
	o.add(titleDecisions, prioFact, "T2 assistant: another long factual line that carries nothing the report checks")
	o.add(titleIdentifiers, prioIdentifier, "`ReserveStock`")
	o.add(titleGoal, prioKey, "T0 user asked: keep `ReserveStock` fast")
	o.carry([]facts.Fact{{Kind: facts.Identifier, Text: "parseRequest"}, {Kind: facts.Identifier, Text: "ReserveStock"}})

	full := o.render()
	budget := wordCounter{}.Text(full) - 20
	text, n := o.fit(wordCounter{}, budget)
	if n > budget {
		t.Fatalf("fit gave %d words, budget %d", n, budget)
	}
	for _, want := range []string{"parseRequest", "T0 user asked: keep `ReserveStock` fast"} {
		if !strings.Contains(text, want) {
			t.Errorf("fit lost %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"without any key fact", "carries nothing the report checks", "## Identifiers"} {
		if strings.Contains(text, gone) {
			t.Errorf("fit kept %q over a fact's last carrier:\n%s", gone, text)
		}
	}

	// When even the carriers do not fit, they go too: the budget wins.
	text, n = o.fit(wordCounter{}, 5)
	if n > 5 {
		t.Errorf("fit gave %d words for a budget of 5:\n%s", n, text)
	}
}

// TestExtractiveQuotesFactsNoLineCarries: a multi-line command is
// normalized in the Commands section, so the fact gets a line of its own,
// verbatim.
func TestExtractiveQuotesFactsNoLineCarries(t *testing.T) {
	script := "cd web &&\n  npm test -- --watch=false"
	msgs := []transcript.Message{
		{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Parts: []transcript.Part{{Kind: transcript.PartText, Text: "Run the web tests."}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: "a", ToolName: "Bash", Args: `{"command":"cd web &&\n  npm test -- --watch=false"}`}}},
		{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: "a", Text: "ok"}}},
	}
	s, err := (&Extractive{}).Summarize(context.Background(), Request{Messages: msgs, ToTurn: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Text, "`cd web && npm test -- --watch=false` → ok") {
		t.Errorf("the Commands section lacks the command:\n%s", s.Text)
	}
	if !strings.Contains(s.Text, "## "+titleOtherFacts+"\n- command: "+script) {
		t.Errorf("the multi-line command is not quoted verbatim:\n%s", s.Text)
	}
}
