package newid

import (
	"regexp"
	"testing"
)

func TestUUIDIsVersion4AndFresh(t *testing.T) {
	uuid4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id := UUID()
		if !uuid4.MatchString(id) {
			t.Fatalf("%q is not a canonical version 4 uuid", id)
		}
		if seen[id] {
			t.Fatalf("%q repeated", id)
		}
		seen[id] = true
	}
}

func TestHexIs128Bits(t *testing.T) {
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	a, b := Hex(), Hex()
	if !hex32.MatchString(a) || !hex32.MatchString(b) || a == b {
		t.Fatalf("Hex gave %q and %q", a, b)
	}
}
