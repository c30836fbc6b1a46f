package gauge

import (
	"bytes"
	"encoding/gob"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/transcript"
)

// A Tally is carried to another process (a status line keeps it from one
// run to the next) as the bytes MarshalBinary gives; UnmarshalBinary
// restores an equal Tally.

type wireTally struct {
	Format   transcript.Format
	PriceKey string
	Cur      wireState
	Log      []wireContribution
	Records  int
	Rec      format.ContextFacts
	AllUsage bool
}

type wireState struct {
	N       int
	Kinds   [numCategories]int
	Counted int
	Approx  bool
	Tools   map[string]ToolTokens
	MCP     map[string]map[string]bool
	Usage   []wireUsage
	Session pricing.Session
}

type wireContribution struct {
	Kinds   [numCategories]int
	Counted int
	Tools   []ToolTokens
	Usage   bool
	Cost    pricing.Session
}

type wireUsage struct{ Msg, Reported, Counted int }

// MarshalBinary implements encoding.BinaryMarshaler.
func (tl Tally) MarshalBinary() ([]byte, error) {
	w := wireTally{Format: tl.format, PriceKey: tl.priceKey, Records: tl.records, Rec: tl.rec, AllUsage: tl.allUsage,
		Cur: wireState{N: tl.cur.n, Kinds: tl.cur.kinds, Counted: tl.cur.counted, Approx: tl.cur.approx,
			Tools: tl.cur.tools, MCP: tl.cur.mcp, Session: tl.cur.session}}
	for _, u := range tl.cur.usage {
		w.Cur.Usage = append(w.Cur.Usage, wireUsage{u.msg, u.reported, u.counted})
	}
	for _, c := range tl.log {
		w.Log = append(w.Log, wireContribution{c.kinds, c.counted, c.tools, c.usage, c.cost})
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&w); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (tl *Tally) UnmarshalBinary(data []byte) error {
	var w wireTally
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return err
	}
	out := Tally{format: w.Format, priceKey: w.PriceKey, records: w.Records, rec: w.Rec, allUsage: w.AllUsage,
		cur: tallyState{n: w.Cur.N, kinds: w.Cur.Kinds, counted: w.Cur.Counted, approx: w.Cur.Approx,
			tools: w.Cur.Tools, mcp: w.Cur.MCP, session: w.Cur.Session}}
	if out.cur.tools == nil {
		out.cur.tools = map[string]ToolTokens{}
	}
	if out.cur.mcp == nil {
		out.cur.mcp = map[string]map[string]bool{}
	}
	for _, u := range w.Cur.Usage {
		out.cur.usage = append(out.cur.usage, usagePoint{u.Msg, u.Reported, u.Counted})
	}
	for _, c := range w.Log {
		out.log = append(out.log, contribution{c.Kinds, c.Counted, c.Tools, c.Usage, c.Cost})
	}
	*tl = out
	return nil
}
