package copilotcli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.CompactionReader = Codec{}

// AgentCompactions implements format.CompactionReader: every compaction
// Copilot CLI applied — a session.compaction_complete that succeeded with
// a summary (automatic near its window, or /compact), from the
// session.compaction_start that began it. A compaction with no
// conversation before it is where a compactd fork begins: the history it
// replaced is not in the file. The events name no trigger.
func (Codec) AgentCompactions(t *transcript.Transcript) []format.AgentCompaction {
	if _, ok := t.State.(*state); !ok {
		return nil // a legacy document records no compactions
	}
	var out []format.AgentCompaction
	start, conversation := -1, false
	for i := range t.Records {
		r := &t.Records[i]
		switch {
		case r.Type == "session.compaction_start":
			start = i
		case r.Type == "session.compaction_complete" && r.Kind != transcript.RecordMalformed:
			begin := i
			if start >= 0 {
				begin = start
			}
			c, ok := compactionAt(t, i, begin)
			if ok && conversation {
				out = append(out, c)
			}
			start = -1
			conversation = conversation || ok
		case r.Kind == transcript.RecordMessage:
			conversation = true
		}
	}
	return out
}

// compactionAt reads the compaction whose session.compaction_complete is
// record i and whose start is record begin; ok is false when it replaced
// nothing (it failed, or left no summary).
func compactionAt(t *transcript.Transcript, i, begin int) (format.AgentCompaction, bool) {
	var ev struct {
		Timestamp string `json:"timestamp"`
		Data      struct {
			Success              *bool  `json:"success"`
			SummaryContent       string `json:"summaryContent"`
			PreCompactionTokens  int    `json:"preCompactionTokens"`
			PostCompactionTokens int    `json:"postCompactionTokens"`
		} `json:"data"`
	}
	if json.Unmarshal(t.Records[i].Raw, &ev) != nil || ev.Data.Success != nil && !*ev.Data.Success || ev.Data.SummaryContent == "" {
		return format.AgentCompaction{}, false
	}
	c := format.AgentCompaction{Record: begin, Kind: "session.compaction", Summary: ev.Data.SummaryContent,
		TokensBefore: ev.Data.PreCompactionTokens, TokensAfter: ev.Data.PostCompactionTokens}
	c.Timestamp, _ = time.Parse(time.RFC3339Nano, ev.Timestamp)
	for _, m := range t.Messages {
		if m.Origin == transcript.OriginSummary && len(m.Records) > 0 && m.Records[0] == i {
			c.After = []transcript.Message{m}
		}
	}
	if c.After == nil {
		// A later compaction replaced this one's summary in what the
		// conversation holds now: the summary as it was applied.
		c.After = []transcript.Message{{Role: transcript.RoleUser, Origin: transcript.OriginSummary, Timestamp: c.Timestamp, Records: []int{i},
			Parts: []transcript.Part{{Kind: transcript.PartText, Text: c.Summary, Ref: transcript.Ref{Record: i, Block: -1}}}}}
	}
	return c, true
}

// BeforeCompaction implements format.CompactionReader: the session's
// events before compaction i's session.compaction_start, as they are
// (earlier compactions included), its session.start naming a new session.
// Copilot CLI rebuilds the conversation as it stood then.
func (c Codec) BeforeCompaction(t *transcript.Transcript, i int, opts format.ForkOptions) ([]byte, error) {
	list := c.AgentCompactions(t)
	if i < 0 || i >= len(list) {
		return nil, fmt.Errorf("no agent compaction %d in this session (it has %d)", i+1, len(list))
	}
	return jsonl.RenewBefore(t, list[i].Record, func(prefix *transcript.Transcript) ([]byte, error) { return c.Renew(prefix, opts) })
}
