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
