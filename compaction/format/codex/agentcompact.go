package codex

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.CompactionReader = Codec{}

// AgentCompactions implements format.CompactionReader: every compacted
// record that replaced the history (or stated a summary), with the
// context size the last token_count before the compaction's own records
// reported.
func (Codec) AgentCompactions(t *transcript.Transcript) []format.AgentCompaction {
	var out []format.AgentCompaction
	for i, r := range t.Records {
		if r.Type != typeCompacted || r.Kind != transcript.RecordMarker {
			continue
		}
		var line struct {
			Timestamp string    `json:"timestamp"`
			Payload   compacted `json:"payload"`
		}
		if json.Unmarshal(r.Raw, &line) != nil || !hasReplacement(&line.Payload) && line.Payload.Message == "" {
			continue
		}
		ts := parseTime(line.Timestamp)
		start := compactionStart(t, i, line.Payload.Message)
		out = append(out, format.AgentCompaction{
			Record: start, Kind: typeCompacted, TokensBefore: contextBefore(t, start), Timestamp: ts, Summary: line.Payload.Message,
			After: replacementMessages(&line.Payload, i, ts),
		})
	}
	return out
}

// compactionStart returns the first record of the compaction whose
// compacted record is rec. Codex compacting inline asks the model for a
// summary and logs that request like a turn: the summary as an assistant
// message, its usage (the summarisation request's, not the
// conversation's), and, when the compaction opened a turn of its own,
// that turn's task_started. None of it belongs to the conversation before
// the compaction.
func compactionStart(t *transcript.Transcript, rec int, summary string) int {
	start := rec
	for j := rec - 1; j >= 0; j-- {
		r := &t.Records[j]
		switch {
		case r.Type == typeTokenUsageRecord, r.Type == typeEventMsg && eventType(r.Raw) == "token_count",
			r.Type == typeResponseItem && isSummaryOf(r.Raw, summary):
			start = j
			continue
		case r.Type == typeEventMsg && eventType(r.Raw) == "task_started":
			start = j
		}
		break
	}
	return start
}

// isSummaryOf reports whether raw is an assistant message whose text the
// compacted record's message quotes: the summary the model wrote for it.
// (The transcript's messages cannot tell: the compacted record replaced
// the history that holds it.)
func isSummaryOf(raw []byte, summary string) bool {
	var line struct {
		Payload struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"payload"`
	}
	if unmarshal(raw, &line) != nil || line.Payload.Type != "message" || line.Payload.Role != "assistant" {
		return false
	}
	var text strings.Builder
	for _, c := range line.Payload.Content {
		text.WriteString(c.Text)
	}
	s := strings.TrimSpace(text.String())
	return s != "" && strings.Contains(summary, s)
}

// contextBefore is the context size the last token_count before record
// end reported; 0 when none did.
func contextBefore(t *transcript.Transcript, end int) int {
	for j := end - 1; j >= 0; j-- {
		r := &t.Records[j]
		if r.Type != typeEventMsg || eventType(r.Raw) != "token_count" {
			continue
		}
		var ev struct {
			Payload event `json:"payload"`
		}
		if unmarshal(r.Raw, &ev) != nil || ev.Payload.Info == nil || ev.Payload.Info.LastTokenUsage == nil {
			continue
		}
		if u := ev.Payload.Info.LastTokenUsage; u.Total > 0 {
			return u.Total
		} else if u.Input > 0 {
			return u.Input + u.Output
		}
	}
	return 0
}

// BeforeCompaction implements format.CompactionReader: the rollout's lines
// before compaction i, as they are (earlier compactions included), with
// the first session_meta naming a new session forked from this one.
func (c Codec) BeforeCompaction(t *transcript.Transcript, i int, opts format.ForkOptions) ([]byte, error) {
	list := c.AgentCompactions(t)
	if i < 0 || i >= len(list) {
		return nil, fmt.Errorf("no agent compaction %d in this rollout (it has %d)", i+1, len(list))
	}
	return jsonl.RenewBefore(t, list[i].Record, func(prefix *transcript.Transcript) ([]byte, error) { return c.Renew(prefix, opts) })
}
