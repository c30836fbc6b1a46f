package strategy

import (
	"fmt"
)

// A Trigger decides when the daemon's opt-in auto-compaction fires. Any set
// condition fires it (ratio of the window, absolute tokens, turn count), but
// only once the conversation has MinTurns turns and Floor tokens.
type Trigger struct {
	// Ratio fires at tokens >= Ratio × window (0 = off; needs a window).
	Ratio float64 `json:"ratio,omitempty"`
	// Tokens fires at tokens >= Tokens (0 = off).
	Tokens int `json:"tokens,omitempty"`
	// Turns fires at turns >= Turns (0 = off).
	Turns int `json:"turns,omitempty"`
	// MinTurns and Floor hold every condition back: compaction of a short
	// or small conversation saves little and loses much.
	MinTurns int `json:"minTurns,omitempty"`
	Floor    int `json:"floor,omitempty"`
}

// Fires reports whether a conversation of tokens in a window of window
// tokens, with turns turns, should be compacted now.
func (t Trigger) Fires(tokens, window, turns int) bool {
	if turns < t.MinTurns || tokens < t.Floor {
		return false
	}
	switch {
	case t.Ratio > 0 && window > 0 && float64(tokens) >= t.Ratio*float64(window):
		return true
	case t.Tokens > 0 && tokens >= t.Tokens:
		return true
	case t.Turns > 0 && turns >= t.Turns:
		return true
	}
	return false
}

// Validate returns a one-sentence error for an impossible trigger.
func (t Trigger) Validate() error {
	switch {
	case t.Ratio < 0 || t.Ratio > 1:
		return fmt.Errorf("trigger ratio %.2f must be between 0 and 1", t.Ratio)
	case t.Tokens < 0 || t.Turns < 0 || t.MinTurns < 0 || t.Floor < 0:
		return fmt.Errorf("trigger tokens, turns, min_turns and floor must be 0 or more")
	case t.Ratio == 0 && t.Tokens == 0 && t.Turns == 0:
		return fmt.Errorf("trigger has no condition: set a ratio, tokens or turns")
	}
	return nil
}
