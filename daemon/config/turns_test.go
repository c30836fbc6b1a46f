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

// TestBufferTurnsZeroMeansNone: buffer_turns = 0 asks for no buffer; the
// pipeline reads 0 as its default (4), so the option says none (negative).
func TestBufferTurnsZeroMeansNone(t *testing.T) {
	c := Default()
	if got := c.CompactOptions(0, Overrides{}).BufferTurns; got != 4 {
		t.Fatalf("default buffer: %d, want 4", got)
	}
	if err := c.ApplyTOML("workspace", []byte("[compact]\nbuffer_turns = 0\n")); err != nil {
		t.Fatal(err)
	}
	if got := c.CompactOptions(0, Overrides{}).BufferTurns; got >= 0 {
		t.Fatalf("buffer_turns = 0 gives BufferTurns %d, which the pipeline reads as its default", got)
	}
}
