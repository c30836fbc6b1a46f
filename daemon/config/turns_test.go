package config

import (
	"encoding/json"
	"testing"
)

// TestTurnsSetting: the editors' compactd.compact.turns and the TOML
// [compact] turns set how many turns turn-window keeps.
func TestTurnsSetting(t *testing.T) {
	c := Default()
	if err := c.ApplyJSON(json.RawMessage(`{"compactd":{"compact":{"turns":5}}}`)); err != nil {
		t.Fatal(err)
	}
	if got := c.CompactOptions(0, Overrides{}).Turns; got != 5 {
		t.Fatalf("editor setting: turn-window keeps %d turns, want 5", got)
	}
	if err := c.ApplyTOML("workspace", []byte("[compact]\nturns = 3\n")); err != nil {
		t.Fatal(err)
	}
	if got := c.CompactOptions(0, Overrides{}).Turns; got != 3 {
		t.Fatalf("[compact] turns: %d, want 3", got)
	}
	if err := c.ApplyTOML("bad", []byte("[compact]\nturns = -1\n")); err == nil {
		t.Fatal("a negative turns was accepted")
	}
}

// TestBufferTurnsZeroMeansNone: buffer_turns = 0 asks for no buffer, and
// the pipeline is told so: the configuration always sets the number (its
// default included), and 0 means 0 in both.
func TestBufferTurnsZeroMeansNone(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		toml string
		want int
	}{{"", 4}, {"[compact]\nbuffer_turns = 0\n", 0}, {"[compact]\nbuffer_turns = 2\n", 2}} {
		if err := c.ApplyTOML("workspace", []byte(tc.toml)); err != nil {
			t.Fatal(err)
		}
		opts := c.CompactOptions(0, Overrides{})
		if opts.BufferTurns == nil || *opts.BufferTurns != tc.want || opts.BufferTurnCount() != tc.want {
			t.Errorf("%q: BufferTurns %v (the pipeline takes %d), want %d", tc.toml, opts.BufferTurns, opts.BufferTurnCount(), tc.want)
		}
		keep := c.CompactOptions(0, Overrides{KeepLast: new(0)})
		if keep.KeepLast == nil || *keep.KeepLast != 0 || keep.KeepLastTurns() != 0 {
			t.Errorf("keep-last 0: KeepLast %v, want 0", keep.KeepLast)
		}
	}
}
