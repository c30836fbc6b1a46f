package jobs

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDiffLinesIsALineDiff: 20,000 lines with three edits spread through
// them show as exactly those edits, every other line kept — where the
// quadratic LCS it replaced gave up ("everything removed, everything
// added") past 4M cells.
func TestDiffLinesIsALineDiff(t *testing.T) {
	a := make([]string, 20_000)
	for i := range a {
		a[i] = fmt.Sprintf("user: message %d", i)
	}
	b := slices.Clone(a)
	b[10] = "assistant: changed"                   // a line replaced
	b = slices.Delete(b, 9_000, 9_002)             // two removed
	b = slices.Insert(b, 15_000, "tool: inserted") // one added
	got := diffLines(a, b)
	var kept, removed, added []string
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		switch l[:2] {
		case "  ":
			kept = append(kept, l[2:])
		case "- ":
			removed = append(removed, l[2:])
		case "+ ":
			added = append(added, l[2:])
		default:
			t.Fatalf("line without a prefix: %q", l)
		}
	}
	if want := []string{"user: message 10", "user: message 9000", "user: message 9001"}; !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	if want := []string{"assistant: changed", "tool: inserted"}; !slices.Equal(added, want) {
		t.Errorf("added %q, want %q", added, want)
	}
	if len(kept) != len(a)-3 {
		t.Errorf("kept %d lines, want %d", len(kept), len(a)-3)
	}
	if same := diffLines(a, a); strings.Count(same, "\n") != len(a) || strings.Contains(same, "\n- ") {
		t.Error("equal inputs are not all kept")
	}
	if got := diffLines(nil, []string{"x"}); got != "+ x\n" {
		t.Errorf("from nothing: %q", got)
	}
}
