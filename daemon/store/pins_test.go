package store

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestPinsRoundTrip(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "compactd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, k := range []string{"id:a", "id:b", "id:a"} {
		if err := s.SetPin(ctx, "conv", k, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetPin(ctx, "other", "id:c", true); err != nil {
		t.Fatal(err)
	}
	got, err := s.Pins(ctx, "conv")
	if err != nil || !slices.Equal(got, []string{"id:a", "id:b"}) {
		t.Fatalf("pins = %v, %v", got, err)
	}
	if err := s.SetPin(ctx, "conv", "id:a", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Pins(ctx, "conv"); !slices.Equal(got, []string{"id:b"}) {
		t.Fatalf("after unpin: %v", got)
	}
}
