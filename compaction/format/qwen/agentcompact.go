package qwen

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.CompactionReader = Codec{}

// compressionInfo is systemPayload.info of a chat_compression record.
type compressionInfo struct {
	OriginalTokenCount int    `json:"originalTokenCount"`
	NewTokenCount      int    `json:"newTokenCount"`
	TriggerReason      string `json:"triggerReason"`
}

// AgentCompactions implements format.CompactionReader: every
// chat_compression record on the session's chain that follows a history
// in this file — Qwen Code's own compression (automatic at its threshold,
// or /compress). A compression at the root of the chain is where a
// compactd fork begins: the history it replaced is not in the file.
func (Codec) AgentCompactions(t *transcript.Transcript) []format.AgentCompaction {
	st, ok := t.State.(*state)
	if !ok {
		return nil
	}
	var out []format.AgentCompaction
	for _, i := range st.chain() {
		n := &st.nodes[i]
		if !n.compresses {
			continue
		}
		if _, ok := st.lookup(n.parent); !ok {
			continue
		}
		var line struct {
			Timestamp string `json:"timestamp"`
			Payload   struct {
				Info compressionInfo `json:"info"`
			} `json:"systemPayload"`
		}
		_ = json.Unmarshal(t.Records[i].Raw, &line)
		info := line.Payload.Info
		c := format.AgentCompaction{Record: i, Kind: "chat_compression", Trigger: compressionTrigger(info.TriggerReason),
			TokensBefore: info.OriginalTokenCount, TokensAfter: info.NewTokenCount, After: n.msgs}
		c.Timestamp, _ = time.Parse(time.RFC3339Nano, line.Timestamp)
		if len(n.msgs) > 0 && n.msgs[0].Origin == transcript.OriginSummary {
			var b strings.Builder
			for _, p := range n.msgs[0].Parts {
				b.WriteString(p.Text)
			}
			c.Summary = b.String()
		}
		out = append(out, c)
	}
	return out
}

// compressionTrigger says Qwen Code's triggerReason in the words of
// format.AgentCompaction: "manual" for /compress, "auto" for the rest
// (token_limit, and the overflows that force one: payload_overflow,
// image_overflow). "" when the record names none (versions before 0.24).
func compressionTrigger(reason string) string {
	switch reason {
	case "":
		return ""
	case "manual":
		return "manual"
	default:
		return "auto"
	}
}

// BeforeCompaction implements format.CompactionReader: the chain from the
// root to the record compression i follows, in file order, as a new
// session — every record as it is (usageMetadata, telemetry on the chain,
// an earlier compression) with the session id renewed. Qwen Code resumes
// it from its last record, which is that record.
func (c Codec) BeforeCompaction(t *transcript.Transcript, i int, opts format.ForkOptions) ([]byte, error) {
	st, ok := t.State.(*state)
	list := c.AgentCompactions(t)
	if !ok || i < 0 || i >= len(list) {
		return nil, fmt.Errorf("no agent compaction %d in this session (it has %d)", i+1, len(list))
	}
	leaf, _ := st.lookup(st.nodes[list[i].Record].parent)
	chain := st.chainTo(leaf)
	session := opts.SessionID
	if session == "" {
		session = newid.UUID()
	}
	old := t.Meta.SessionID
	recs := make([]transcript.Record, 0, len(chain))
	for _, k := range chain {
		r := t.Records[k]
		o, err := jsonx.ParseObject(r.Raw)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", k+1, err)
		}
		var id string
		if json.Unmarshal(o.Get("sessionId"), &id) == nil && (id == old || old == "") {
			_ = o.Set("sessionId", session)
			r.Raw = o.Bytes()
		}
		recs = append(recs, r)
	}
	return jsonl.Write(&jsonl.Frame{}, recs), nil
}
