package gauge

import (
	"reflect"
	"testing"

	"github.com/compactd/compactd/compaction/pricing"
)

// TestContributionsRoundTrip: the packed log gives back every field of
// every contribution, and a field added to one of the types it packs
// fails here until it is packed too.
func TestContributionsRoundTrip(t *testing.T) {
	for typ, fields := range map[reflect.Type]int{
		reflect.TypeFor[contribution](): 5, reflect.TypeFor[ToolTokens](): 3, reflect.TypeFor[pricing.Session](): 3,
		reflect.TypeFor[pricing.Cost](): 4, reflect.TypeFor[pricing.Usage](): 4,
	} {
		if typ.NumField() != fields {
			t.Errorf("%v has %d fields, the packed tally log carries %d: pack the new one (appendContributions)", typ, typ.NumField(), fields)
		}
	}
	var log []contribution
	for i := range 40 {
		c := contribution{counted: i * 1000, usage: i%3 == 0,
			cost: pricing.Session{Cost: pricing.Cost{Input: 0.1 * float64(i), CacheWrite: 1e-9 * float64(i), CacheRead: 3.75, Output: -0.0},
				Responses: i, Usage: pricing.Usage{Input: i, CacheWrite: i << 20, CacheRead: 7, Output: -i}}}
		for k := range c.kinds {
			c.kinds[k] = (i + 1) * (k - 2) * 977
		}
		for j := range i % 4 {
			c.tools = append(c.tools, ToolTokens{Name: string(rune('α'+j)) + "Read\x00\xff", Tokens: j * 31, Results: j})
		}
		log = append(log, c)
	}
	for _, in := range [][]contribution{nil, log[:1], log} {
		out, err := readContributions(appendContributions(nil, in))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Fatalf("round trip of %d contributions:\n got %+v\nwant %+v", len(in), out, in)
		}
	}
	packed := appendContributions(nil, log)
	for cut := range len(packed) {
		if _, err := readContributions(packed[:cut]); err == nil {
			t.Fatalf("a log cut at %d of %d bytes was read", cut, len(packed))
		}
	}
}
