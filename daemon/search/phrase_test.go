package search

import (
	"strings"
	"testing"
)

// TestAPhraseAcrossPaddingAndRulesIsFound: words next to each other in a
// message are a phrase however much lies between them that is no word —
// a table's padding, a box's rule of line-drawing characters, the JSON
// escapes of line breaks — as a session's own text has them (a plan with
// a drawn layout, in a prompt); words apart stay apart.
func TestAPhraseAcrossPaddingAndRulesIsFound(t *testing.T) {
	m := newMachine(t)
	s := newClaudeSession(t, m, "7c7c7c7c-0000-4000-8000-000000000001")
	rule := strings.Repeat("─", 46)
	prompt := "Lay the tab out like this:\n\n```\n┌" + rule + "┐\n│  Skills             0                        │\n│  Linked Docs        0                        │\n└" +
		rule + "┘\n```\n\n- Renders ContextFilesBrowserModal inside itself\n- Empty state: a centered message"
	s.write(t, s.lines(t, prompt, "I will build the tab as drawn."))
	x := m.index(t)
	if _, err := x.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`"linked docs 0 renders contextfilesbrowsermodal"`, `"skills 0 linked docs"`, `"this skills"`} {
		if res := find(t, x, q); !has(res, s.path, "", "user", "text") {
			t.Errorf("%s: not found:%s", q, describeHits(res))
		}
	}
	if res := find(t, x, `"skills linked docs"`); len(res.Hits) != 0 {
		t.Errorf("words apart (a 0 between them) taken for a phrase:%s", describeHits(res))
	}
}
