package recall

import (
	"strings"
	"testing"
)

// fakeRegistry is a store that already named some contents.
type fakeRegistry map[string][32]byte

func (f fakeRegistry) HandleOf(sum [32]byte) (string, bool) {
	for h, s := range f {
		if s == sum {
			return h, true
		}
	}
	return "", false
}

func (f fakeRegistry) SumOf(h string) ([32]byte, bool) { s, ok := f[h]; return s, ok }

func TestBookKeepsHandlesUniqueAndStable(t *testing.T) {
	a, b := "tool output A", "tool output B"
	sa := Sum(a)
	short := Handle(sa, MinDigits)
	if !Valid(short) || len(short) != 1+MinDigits {
		t.Fatalf("handle %q", short)
	}
	// The store gives a's shortest handle to another content: a takes a longer one.
	reg := fakeRegistry{short: Sum("something else")}
	book := NewBook(reg)
	ha := book.Handle(a)
	if ha == short || !strings.HasPrefix(ha, short) || len(ha) != len(short)+1 {
		t.Fatalf("a collides with the store's %s and got %s, want the next longer prefix", short, ha)
	}
	if again := book.Handle(a); again != ha {
		t.Fatalf("the same content got %s then %s", ha, again)
	}
	// A content the store already named keeps its handle, however long.
	reg[ha] = sa
	if h := NewBook(reg).Handle(a); h != ha {
		t.Fatalf("a content the store names %s got %s", ha, h)
	}
	hb := book.Handle(b)
	es := book.Entries()
	if len(es) != 2 || es[0].Handle != ha || es[1].Handle != hb || es[0].Content != a || !es[0].New {
		t.Fatalf("entries %+v", es)
	}
}

func TestMarksAreFound(t *testing.T) {
	p := Placeholder("[compacted: Read a.go lines 1-412, 5,210 tokens]", "r7f3c2a")
	if p != "[compacted: Read a.go lines 1-412, 5,210 tokens · recall r7f3c2a]" {
		t.Fatalf("placeholder %q", p)
	}
	text := "x " + p + " and " + SummaryNote("rabcdef")
	if got := Find(text); len(got) != 2 || got[0] != "r7f3c2a" || got[1] != "rabcdef" {
		t.Fatalf("Find = %v", got)
	}
	at := strings.Index(text, "r7f3c2a") + 2
	if got := FindAt(text, at); got != "r7f3c2a" {
		t.Fatalf("FindAt = %q", got)
	}
	if got := FindAt(text, 0); got != "" {
		t.Fatalf("FindAt outside a mark = %q", got)
	}
	for _, bad := range []string{"", "r12345", "R7f3c2a", "r7f3c2g", "r" + strings.Repeat("a", 65)} {
		if Valid(bad) {
			t.Errorf("Valid(%q)", bad)
		}
	}
}
