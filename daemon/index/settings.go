package index

import (
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/daemon/config"
)

// Settings are one resolved configuration with what the index derives
// from it once: its price table and its context windows by model prefix.
// The daemon resolves one per workspace file (config.Resolve) and hands
// it out per transcript.
type Settings struct {
	*config.Config
	prices  *pricing.Table
	windows map[string]int
}

// NewSettings derives the index's view of c.
func NewSettings(c *config.Config) *Settings {
	return &Settings{Config: c, prices: c.PriceTable(), windows: c.Windows()}
}

// DefaultSettings are the defaults' (config.Default).
func DefaultSettings() *Settings { return NewSettings(config.Default()) }
