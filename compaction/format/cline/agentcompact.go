package cline

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/anthropic"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.CompactionReader = Codec{}

// AgentCompactions implements format.CompactionReader: each summary Roo
// Code's condense wrote (isSummary with a condenseId).
func (Codec) AgentCompactions(t *transcript.Transcript) []format.AgentCompaction {
	var out []format.AgentCompaction
	for i, r := range t.Records {
		var x extras
		if r.Kind == transcript.RecordMalformed || json.Unmarshal(r.Raw, &x) != nil || !x.IsSummary || x.CondenseID == "" {
			continue
		}
		c := format.AgentCompaction{Record: i, Kind: "condense"}
		if x.Ts != nil {
			c.Timestamp = time.UnixMilli(int64(*x.Ts)).UTC()
		}
		if m, err := anthropic.DecodeMessage(r.Raw, i); err == nil {
			m.Origin = transcript.OriginSummary
			c.After = []transcript.Message{m}
			for _, p := range m.Parts {
				c.Summary += p.Text
			}
		}
		out = append(out, c)
	}
	return out
}

// BeforeCompaction implements format.CompactionReader: the history with
// condense i undone — its summary left out and the messages it hid
// (condenseParent naming it) shown again — the way Roo keeps them.
func (c Codec) BeforeCompaction(t *transcript.Transcript, i int, _ format.ForkOptions) ([]byte, error) {
	list := c.AgentCompactions(t)
	fr, ok := t.Frame.(*anthropic.Frame)
	if !ok || i < 0 || i >= len(list) {
		return nil, fmt.Errorf("no condense %d in this task (it has %d)", i+1, len(list))
	}
	var x extras
	_ = json.Unmarshal(t.Records[list[i].Record].Raw, &x)
	layout := jsonx.LayoutOf(fr.Src, fr.Doc)
	var elems []jsonx.Elem
	for k, r := range t.Records {
		if k == list[i].Record {
			continue
		}
		var e extras
		if json.Unmarshal(r.Raw, &e) == nil && e.CondenseParent == x.CondenseID {
			o, err := jsonx.ParseObject(r.Raw)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", k, err)
			}
			o.Delete("condenseParent")
			elems = append(elems, jsonx.Elem{Bytes: layout.Format(o.Bytes()), Source: -1})
			continue
		}
		elems = append(elems, jsonx.Elem{Bytes: r.Raw, Source: fr.Doc.ElementAt(int(r.Start))})
	}
	arr := fr.Doc.ArrayBytes(fr.Src, layout, elems)
	return jsonx.Splice(fr.Src, []jsonx.Edit{{Span: fr.Doc.Array, Bytes: arr}}), nil
}
