package claude

import (
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.CompactionReader = Codec{}

// AgentCompactions implements format.CompactionReader: every
// compact_boundary and microcompact_boundary of the main thread, with the
// compact summary Claude Code wrote under a boundary.
func (Codec) AgentCompactions(t *transcript.Transcript) []format.AgentCompaction {
	st, ok := t.State.(*state)
	if !ok {
		return nil
	}
	var out []format.AgentCompaction
	for i := range st.nodes {
		n := &st.nodes[i]
		if n.typ != "system" || n.sidechain || n.subtype != "compact_boundary" && n.subtype != "microcompact_boundary" {
			continue
		}
		var meta struct {
			Timestamp string `json:"timestamp"`
			Compact   *struct {
				Trigger    string `json:"trigger"`
				PreTokens  int    `json:"preTokens"`
				PostTokens int    `json:"postTokens"`
			} `json:"compactMetadata"`
			Micro *struct {
				Trigger string `json:"trigger"`
				Pre     int    `json:"preTokens"`
			} `json:"microcompactMetadata"`
		}
		_ = json.Unmarshal(t.Records[i].Raw, &meta)
		c := format.AgentCompaction{Record: i, Kind: n.subtype, Timestamp: parseTime(meta.Timestamp)}
		switch {
		case meta.Compact != nil:
			c.Trigger, c.TokensBefore, c.TokensAfter = meta.Compact.Trigger, meta.Compact.PreTokens, meta.Compact.PostTokens
		case meta.Micro != nil:
			c.Trigger, c.TokensBefore = meta.Micro.Trigger, meta.Micro.Pre
		}
		if n.subtype == "compact_boundary" {
			// The summary is the user record Claude Code chains under the
			// boundary.
			for j := i + 1; j < len(st.nodes); j++ {
				m := &st.nodes[j]
				if m.parent == n.uuid && m.msg != nil && m.msg.Origin == transcript.OriginSummary {
					c.After = append(c.After, *m.msg)
					for _, p := range m.msg.Parts {
						c.Summary += p.Text
					}
					break
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// BeforeCompaction implements format.CompactionReader: the thread as the
// model had it just before compaction i — the rows from the previous
// boundary (or the start) to the row the boundary names as its logical
// parent, or, for a microcompact, to the row before its marker — as a new
// session: the session id renewed, uuids, usage and everything else kept.
func (c Codec) BeforeCompaction(t *transcript.Transcript, i int, opts format.ForkOptions) ([]byte, error) {
	st, ok := t.State.(*state)
	list := c.AgentCompactions(t)
	if !ok || i < 0 || i >= len(list) {
		return nil, fmt.Errorf("no agent compaction %d in this session (it has %d)", i+1, len(list))
	}
	rec := list[i].Record
	n := &st.nodes[rec]
	leaf := -1
	if n.subtype == "compact_boundary" {
		if j, ok := st.lookup(n.logicalParent); ok {
			leaf = j
		}
	} else if n.hasParent && n.parent != "" {
		if j, ok := st.lookup(n.parent); ok {
			leaf = j
		}
	}
	if leaf < 0 {
		return nil, fmt.Errorf("the %s on line %d names no earlier row of this file: the history before it is elsewhere", n.subtype, rec+1)
	}
	// The chain back to the previous boundary, which is kept: its
	// summary's parent must be in the file.
	var chain []int
	for j, steps := leaf, 0; j >= 0 && steps <= len(st.nodes); steps++ {
		chain = append(chain, j)
		m := &st.nodes[j]
		if m.typ == "system" && m.subtype == "compact_boundary" || !m.hasParent || m.parent == "" {
			break
		}
		p, ok := st.lookup(m.parent)
		if !ok {
			break
		}
		j = p
	}
	session := opts.SessionID
	if session == "" {
		session = newid.UUID()
	}
	old := t.Meta.SessionID
	recs := make([]transcript.Record, 0, len(chain))
	for k := len(chain) - 1; k >= 0; k-- {
		r := t.Records[chain[k]]
		if old != "" {
			o, err := jsonx.ParseObject(r.Raw)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", chain[k]+1, err)
			}
			var id string
			if json.Unmarshal(o.Get("sessionId"), &id) == nil && id == old {
				_ = o.Set("sessionId", session)
				r.Raw = o.Bytes()
			}
		}
		recs = append(recs, r)
	}
	return jsonl.Write(&jsonl.Frame{}, recs), nil
}
