package lsp

import (
	"context"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/daemon/index"
)

// The custom protocol: a notification on every change of a transcript, and
// a request returning every gauge (for a status bar that starts late).
const (
	methodGauge  = "compactd/gauge"
	methodGauges = "compactd/gauges"
)

// Gauge is the compactd/gauge notification's payload.
//
// It is the gauge notification on the wire, one field per figure an editor shows: hence more than a
// dozen.
type Gauge struct {
	URI           protocol.DocumentURI `json:"uri"`
	Format        string               `json:"format"`
	Model         string               `json:"model"`
	ContextWindow int                  `json:"contextWindow"`
	Tokens        int                  `json:"tokens"`
	Ratio         float64              `json:"ratio"`
	Level         string               `json:"level"`
	// Source is "reported+estimate" (the API's last reported usage plus
	// the counted tokens after it) or "estimate" (counted alone).
	Source    string         `json:"source"`
	Active    bool           `json:"active"`
	UpdatedAt time.Time      `json:"updatedAt"`
	Savings   map[string]int `json:"savings"`
	// Approx: part of the count was estimated (very long unbroken runs).
	Approx bool `json:"approx,omitempty"`
	// SavingsPending: the savings are being recomputed for new content.
	SavingsPending bool `json:"savingsPending,omitempty"`
	// AutoCompactAt is where the agent compacts by itself, as a ratio of
	// the window (0: unknown or off); AutoCompact says where, how far
	// ahead and why: the window's mark.
	AutoCompactAt float64     `json:"autoCompactAt,omitempty"`
	AutoCompact   *gauge.Mark `json:"autoCompact,omitempty"`
	Turns         int         `json:"turns"`
	Text          string      `json:"text"`
	// Removed: the transcript is gone; drop its gauge.
	Removed bool `json:"removed,omitempty"`
	// Status says in one sentence what compactd could not read of the
	// file (a line too long to hold, a run of NUL bytes); "" when all.
	Status string `json:"status,omitempty"`

	// Breakdown is what fills the window: outside the transcript (system
	// prompt, tools, memory) and inside by kind; the parts sum to Tokens.
	Breakdown *gauge.Breakdown `json:"breakdown,omitempty"`
	// Reach says how much compaction can reach, and why it cannot help
	// when most of the window lies outside the transcript.
	Reach string `json:"reach,omitempty"`
	// EstimateError is our count's error against the API's figures (the
	// median over several spans between usage points); absent when not
	// measurable, with EstimateErrorNote saying why.
	EstimateError     *float64 `json:"estimateError,omitempty"`
	EstimateErrorNote string   `json:"estimateErrorNote,omitempty"`
	// Cost is the session's cost so far and the next turn's; absent when
	// the model has no price. SavingPerTurn is what the auto compaction
	// would save on every later turn.
	Cost          *pricing.Figures `json:"cost,omitempty"`
	SavingPerTurn *pricing.Saving  `json:"savingPerTurn,omitempty"`
	// Economics is what compacting now with the auto pipeline costs once,
	// saves per turn, after how many turns it pays back, and whether the
	// cache is already cold.
	Economics *pricing.Economics `json:"economics,omitempty"`
}

func gaugeOf(snap *index.Snapshot, active string, now time.Time) Gauge {
	savings := snap.Savings
	if savings == nil {
		savings = map[string]int{}
	}
	g := Gauge{
		URI: pathURI(snap.Path), Format: string(snap.Format), Model: snap.Model,
		ContextWindow: snap.Window, Tokens: snap.Tokens, Ratio: snap.Ratio, Level: string(snap.Level),
		Source: snap.Source, Approx: snap.Approx, Active: snap.Path == active, UpdatedAt: snap.UpdatedAt,
		Savings: savings, SavingsPending: snap.SavingsPending, AutoCompactAt: snap.AutoCompactAt(), AutoCompact: snap.Mark(), Status: snap.Status,
		Turns: len(snap.Turns), Text: snap.Text(),
	}
	in := snap.Insight
	if in.Breakdown != nil {
		g.Breakdown, g.Reach = in.Breakdown, in.Breakdown.Reach()
	}
	g.EstimateError, g.EstimateErrorNote = in.EstimateError.Error, in.EstimateError.Note
	g.Cost = in.Cost
	if auto := snap.AutoSavings(); auto >= 0 {
		g.SavingPerTurn = in.SavingPerTurn(snap.Tokens, auto)
		g.Economics = in.Economics(snap.Tokens, auto, now)
	}
	return g
}

// onChange is the daemon's callback: every new snapshot becomes a gauge
// notification and, when the level calls for it, a diagnostic.
func (s *Server) onChange(ev index.Event) {
	if ev.Snapshot == nil {
		s.auto.Forget(ev.Path)
		gaugeNotification.send(s, Gauge{URI: pathURI(ev.Path), Removed: true, Savings: map[string]int{}})
		s.publishDiagnostics(pathURI(ev.Path), nil)
		return
	}
	active, now := "", time.Now()
	if d := s.currentDaemon(); d != nil {
		active, now = d.Active(), d.Now()
	}
	s.gaugesSent.Add(1)
	gaugeNotification.send(s, gaugeOf(ev.Snapshot, active, now))
	s.publishDiagnostics(pathURI(ev.Path), ev.Snapshot)
	if ev.Snapshot.AgentCompacted >= 0 {
		s.agentCompacted(ev.Snapshot)
	}
	s.auto.Observe(s.ctx, ev.Snapshot)
	s.autoChecked.Add(1)
}

func (s *Server) gauges(ctx context.Context, _ NoParams) ([]Gauge, error) {
	out := []Gauge{}
	d := s.currentDaemon()
	if d == nil {
		return out, nil
	}
	active := d.Active()
	for _, snap := range d.Snapshots() {
		out = append(out, gaugeOf(snap, active, d.Now()))
	}
	return out, nil
}
