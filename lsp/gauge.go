package lsp

import (
	"context"
	"encoding/json"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
)

// The custom protocol: a notification on every change of a transcript, and
// a request returning every gauge (for a status bar that starts late).
const (
	methodGauge  = "compactd/gauge"
	methodGauges = "compactd/gauges"
)

// Gauge is the compactd/gauge notification's payload.
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
	SavingsPending bool    `json:"savingsPending,omitempty"`
	AutoCompactAt  float64 `json:"autoCompactAt,omitempty"`
	Turns          int     `json:"turns"`
	Text           string  `json:"text"`
	// Removed: the transcript is gone; drop its gauge.
	Removed bool `json:"removed,omitempty"`
}

func gaugeOf(snap *daemon.Snapshot, active string) Gauge {
	savings := snap.Savings
	if savings == nil {
		savings = map[string]int{}
	}
	return Gauge{
		URI: pathURI(snap.Path), Format: string(snap.Format), Model: snap.Model,
		ContextWindow: snap.Window, Tokens: snap.Tokens, Ratio: snap.Ratio, Level: string(snap.Level),
		Source: snap.Source, Approx: snap.Approx, Active: snap.Path == active, UpdatedAt: snap.UpdatedAt,
		Savings: savings, SavingsPending: snap.SavingsPending, AutoCompactAt: snap.AutoCompactAt,
		Turns: len(snap.Turns), Text: snap.Text(),
	}
}

// onChange is the daemon's callback: every new snapshot becomes a gauge
// notification and, when the level calls for it, a diagnostic.
func (s *Server) onChange(ev daemon.Event) {
	if ev.Snapshot == nil {
		s.auto.Forget(ev.Path)
		s.notify(methodGauge, Gauge{URI: pathURI(ev.Path), Removed: true, Savings: map[string]int{}})
		s.publishDiagnostics(pathURI(ev.Path), nil)
		return
	}
	active := ""
	if d := s.currentDaemon(); d != nil {
		active = d.Active()
	}
	s.notify(methodGauge, gaugeOf(ev.Snapshot, active))
	s.publishDiagnostics(pathURI(ev.Path), ev.Snapshot)
	s.auto.Observe(s.ctx, ev.Snapshot)
}

func (s *Server) gauges(ctx context.Context, _ json.RawMessage) (any, error) {
	out := []Gauge{}
	d := s.currentDaemon()
	if d == nil {
		return out, nil
	}
	active := d.Active()
	for _, snap := range d.Snapshots() {
		out = append(out, gaugeOf(snap, active))
	}
	return out, nil
}
