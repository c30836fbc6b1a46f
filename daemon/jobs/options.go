package jobs

import (
	"encoding/json"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/store"
)

// RecordedOptions are the pipeline options a version was made with, as
// the store keeps them and history shows them: the settings that shaped
// it, named for the wire, not the pipeline's machinery (the counts, the
// summarizer's object, its callbacks). Rows written before it kept
// strategy.Options under its Go field names ("Strategies", "KeepLast");
// they read back the same, JSON's names matching without regard to case.
// KeepLast and BufferTurns are the turns the run kept (0 none); rows
// written before the pipeline took them as such said none with -1.
type RecordedOptions struct {
	Strategies         []string                     `json:"strategies"`
	KeepLast           int                          `json:"keepLast"`
	Window             int                          `json:"window,omitempty"`
	Budget             int                          `json:"budget,omitempty"`
	Pins               []string                     `json:"pins,omitempty"`
	Hints              map[string]strategy.ToolHint `json:"hints,omitempty"`
	SummarizeThreshold float64                      `json:"summarizeThreshold,omitempty"`
	BufferTurns        int                          `json:"bufferTurns"`
	Events             int                          `json:"events,omitempty"`
	Turns              int                          `json:"turns,omitempty"`
	SummaryBudget      int                          `json:"summaryBudget,omitempty"`
	ConfirmedTangents  []int                        `json:"confirmedTangents,omitempty"`
	ConfirmAllTangents bool                         `json:"confirmAllTangents,omitempty"`
}

// recordOptions is what the store keeps of o.
func recordOptions(o strategy.Options) RecordedOptions {
	return RecordedOptions{
		Strategies: o.Strategies, KeepLast: o.KeepLastTurns(), Window: o.Window, Budget: o.Budget, Pins: o.Pins, Hints: o.Hints,
		SummarizeThreshold: o.SummarizeThreshold, BufferTurns: o.BufferTurnCount(), Events: o.Events, Turns: o.Turns,
		SummaryBudget: o.SummaryBudget, ConfirmedTangents: o.ConfirmedTangents, ConfirmAllTangents: o.ConfirmAllTangents,
	}
}

// A Version is a stored version as history, restore and doctor show it:
// the store's row with its options read back.
type Version struct {
	store.Version
	// Options are nil for versions made by no pipeline (a source, a
	// restore, the agent's own compactions).
	Options *RecordedOptions `json:"options,omitempty"`
}

// versionOf reads v's options back; options that do not decode (a row
// damaged by hand) are left out rather than failing the history.
func versionOf(v store.Version) Version {
	out := Version{Version: v}
	if len(v.Options) > 0 && string(v.Options) != "null" {
		var o RecordedOptions
		if json.Unmarshal(v.Options, &o) == nil {
			o.KeepLast, o.BufferTurns = max(o.KeepLast, 0), max(o.BufferTurns, 0)
			out.Options = &o
		}
	}
	return out
}

func versionsOf(vs []store.Version) []Version {
	out := make([]Version, len(vs))
	for i, v := range vs {
		out[i] = versionOf(v)
	}
	return out
}
