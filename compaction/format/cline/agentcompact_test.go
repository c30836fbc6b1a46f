package cline

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
)

// TestRooCondense: Roo Code's condense is an agent compaction; undone, the
// messages it hid are in the history again and its summary is not.
func TestRooCondense(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "roo", formattest.Fixture(t, "roo-condensed.json"))
	list := Codec{}.AgentCompactions(tr)
	if len(list) != 1 || list[0].Kind != "condense" || !strings.HasPrefix(list[0].Summary, "Condensed:") {
		t.Fatalf("agent compactions = %+v", list)
	}
	out, err := Codec{}.BeforeCompaction(tr, 0, format.ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var texts []string
	for _, m := range before.Messages {
		texts = append(texts, m.Parts[0].Text)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "Reading parser.go") || strings.Contains(all, "Condensed:") {
		t.Fatalf("before the condense: %q", texts)
	}
}
