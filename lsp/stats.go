package lsp

import (
	"context"
)

// methodStats answers counters for benchmarks and troubleshooting.
const methodStats = "compactd/stats"

// Stats is the compactd/stats result.
type Stats struct {
	Transcripts int `json:"transcripts"`
	// Parsed is how many transcripts are held parsed in memory (the rest
	// keep only their snapshot).
	Parsed int `json:"parsed"`
	// BytesRead counts transcript bytes read since start.
	BytesRead int64 `json:"bytesRead"`
	// MessagesTokenized counts messages counted with the BPE (cache misses).
	MessagesTokenized int64 `json:"messagesTokenized"`
	// BytesTokenized counts bytes handed to the BPE.
	BytesTokenized int64 `json:"bytesTokenized"`
	ScanDone       bool  `json:"scanDone"`
	// Gauges counts the compactd/gauge notifications sent for a
	// snapshot, AutoChecked those whose snapshot auto-compaction has
	// examined since: when they are equal, every gauge a client received
	// has been through the trigger, and AutoCompactions (automatic
	// compactions started) counts all it started on them.
	Gauges          int64 `json:"gauges"`
	AutoChecked     int64 `json:"autoChecked"`
	AutoCompactions int64 `json:"autoCompactions"`
}

func (s *Server) stats(ctx context.Context, _ NoParams) (Stats, error) {
	// In this order: a gauge counted as checked was counted as sent
	// before, and a compaction it started is counted by then.
	out := Stats{AutoChecked: s.autoChecked.Load()}
	out.Gauges, out.AutoCompactions = s.gaugesSent.Load(), s.auto.Started()
	d := s.currentDaemon()
	if d == nil {
		return out, nil
	}
	ds := d.Stats()
	out.Transcripts = len(d.Snapshots())
	out.Parsed, out.BytesRead, out.MessagesTokenized, out.BytesTokenized = ds.Files, ds.BytesRead, ds.MessagesTokenized, ds.BytesTokenized
	select {
	case <-d.ScanDone():
		out.ScanDone = true
	default:
	}
	return out, nil
}
