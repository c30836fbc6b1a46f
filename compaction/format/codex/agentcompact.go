package codex

import (
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.CompactionReader = Codec{}

// AgentCompactions implements format.CompactionReader: every compacted
// record that replaced the history (or stated a summary), with the
// context size the last token_count before it reported.
func (Codec) AgentCompactions(t *transcript.Transcript) []format.AgentCompaction {
	var out []format.AgentCompaction
	before := 0
	for i, r := range t.Records {
		switch {
		case r.Type == typeEventMsg && eventType(r.Raw) == "token_count":
			var ev struct {
				Payload event `json:"payload"`
			}
			if unmarshal(r.Raw, &ev) == nil && ev.Payload.Info != nil && ev.Payload.Info.LastTokenUsage != nil {
				if u := ev.Payload.Info.LastTokenUsage; u.Total > 0 {
					before = u.Total
				} else if u.Input > 0 {
					before = u.Input + u.Output
				}
			}
		case r.Type == typeCompacted && r.Kind == transcript.RecordMarker:
			var line struct {
				Timestamp string    `json:"timestamp"`
				Payload   compacted `json:"payload"`
			}
			if json.Unmarshal(r.Raw, &line) != nil || !hasReplacement(&line.Payload) && line.Payload.Message == "" {
				continue
			}
			ts := parseTime(line.Timestamp)
			out = append(out, format.AgentCompaction{
				Record: i, Kind: typeCompacted, TokensBefore: before, Timestamp: ts, Summary: line.Payload.Message,
				After: replacementMessages(&line.Payload, i, ts),
			})
		}
	}
	return out
}

// BeforeCompaction implements format.CompactionReader: the rollout's lines
// before compaction i, as they are (earlier compactions included), with
// the first session_meta naming a new session forked from this one.
func (c Codec) BeforeCompaction(t *transcript.Transcript, i int, opts format.ForkOptions) ([]byte, error) {
	list := c.AgentCompactions(t)
	if i < 0 || i >= len(list) {
		return nil, fmt.Errorf("no agent compaction %d in this rollout (it has %d)", i+1, len(list))
	}
	cut := list[i].Record
	prefix := &transcript.Transcript{Format: t.Format, Meta: t.Meta, Records: t.Records[:cut:cut]}
	if f, ok := t.Frame.(*jsonl.Frame); ok {
		fr := *f
		fr.Pending = nil
		prefix.Frame = &fr
	}
	out, err := c.Renew(prefix, opts)
	if err != nil {
		return nil, err
	}
	// The line before the cut ends with its own newline, whatever the
	// source's last line did.
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out, nil
}
