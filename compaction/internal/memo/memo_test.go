package memo

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestOfMakesEachTextOnce(t *testing.T) {
	tab := New[int](1 << 20)
	calls := 0
	length := func(s string) int { calls++; return len(s) }
	for range 3 {
		if got := tab.Of("hello", length); got != 5 {
			t.Fatalf("Of = %d, want 5", got)
		}
	}
	// An equal text in other memory is the same key.
	if got := tab.Of(strings.Repeat("l", 2)+"", length); got != 2 {
		t.Fatalf("Of = %d, want 2", got)
	}
	if got := tab.Of("h"+strings.ToLower("ELLO"), length); got != 5 {
		t.Fatalf("Of = %d, want 5", got)
	}
	if calls != 2 {
		t.Fatalf("the function ran %d times for two texts, want 2", calls)
	}
}

func TestLimitForgetsAndStartsAgain(t *testing.T) {
	const limit = 10 * (overhead + 8)
	tab := New[string](limit)
	for i := range 10 {
		tab.Put(strconv.Itoa(10000000+i), "v")
	}
	if n := tab.Len(); n != 10 {
		t.Fatalf("holds %d entries, want 10 within the limit", n)
	}
	tab.Put("one more", "v")
	if n := tab.Len(); n != 1 {
		t.Fatalf("past the limit it holds %d entries, want only the new one", n)
	}
	if _, ok := tab.Get("10000000"); ok {
		t.Fatal("an entry from before the reset is still there")
	}
	if v, ok := tab.Get("one more"); !ok || v != "v" {
		t.Fatal("the entry that passed the limit was not kept")
	}
	tab.Put(strings.Repeat("x", limit), "big")
	if _, ok := tab.Get(strings.Repeat("x", limit)); ok {
		t.Fatal("a key larger than the limit was kept")
	}
	if tab.Len() != 1 {
		t.Fatal("a key larger than the limit emptied the table")
	}
}

func TestConcurrentUse(t *testing.T) {
	tab := New[int](64 * (overhead + 4))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				k := strconv.Itoa((i*7 + w) % 300)
				if got := tab.Of(k, func(s string) int { n, _ := strconv.Atoi(s); return n }); strconv.Itoa(got) != k {
					t.Errorf("Of(%q) = %d", k, got)
					return
				}
			}
		})
	}
	wg.Wait()
}
