package gauge

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/vmihailenco/msgpack/v5"
)

// A Tally is carried to another process (a status line keeps it from one
// run to the next) as the bytes MarshalBinary gives; UnmarshalBinary
// restores an equal Tally. They are MessagePack, each struct an array of
// its fields: the bytes are read by the build that wrote them (a status
// line's state is keyed by build), and gob's per-stream type setup cost
// a status line more than its whole tally.

type wireTally struct {
	Format   transcript.Format
	PriceKey string
	Cur      wireState
	// Log is the contributions packed (appendContributions): up to 512
	// of them, decoded field by field through reflection, were most of
	// a status line's tally.
	Log      []byte
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

type wireUsage struct{ Msg, Reported, Counted int }

// MarshalBinary implements encoding.BinaryMarshaler.
func (tl Tally) MarshalBinary() ([]byte, error) {
	w := wireTally{Format: tl.format, PriceKey: tl.priceKey, Records: tl.records, Rec: tl.rec, AllUsage: tl.allUsage,
		Cur: wireState{N: tl.cur.n, Kinds: tl.cur.kinds, Counted: tl.cur.counted, Approx: tl.cur.approx,
			Tools: tl.cur.tools, MCP: tl.cur.mcp, Session: tl.cur.session}}
	for _, u := range tl.cur.usage {
		w.Cur.Usage = append(w.Cur.Usage, wireUsage{u.msg, u.reported, u.counted})
	}
	w.Log = appendContributions(nil, tl.log)
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseArrayEncodedStructs(true)
	if err := enc.Encode(&w); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (tl *Tally) UnmarshalBinary(data []byte) error {
	var w wireTally
	if err := msgpack.Unmarshal(data, &w); err != nil {
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
	log, err := readContributions(w.Log)
	if err != nil {
		return err
	}
	out.log = log
	*tl = out
	return nil
}

// appendContributions packs each contribution as its count of kinds and
// the kinds, counted, usage (0 or 1), its tools (a count, then each
// name's length and bytes, tokens, results), its cost's four figures
// (float64 bits), responses and four usages: varints all but the bits.
func appendContributions(b []byte, log []contribution) []byte {
	b = binary.AppendUvarint(b, uint64(len(log)))
	for _, c := range log {
		b = binary.AppendUvarint(b, uint64(len(c.kinds)))
		for _, k := range c.kinds {
			b = binary.AppendVarint(b, int64(k))
		}
		b = binary.AppendVarint(b, int64(c.counted))
		usage := byte(0)
		if c.usage {
			usage = 1
		}
		b = append(b, usage)
		b = binary.AppendUvarint(b, uint64(len(c.tools)))
		for _, t := range c.tools {
			b = binary.AppendUvarint(b, uint64(len(t.Name)))
			b = append(b, t.Name...)
			b = binary.AppendVarint(b, int64(t.Tokens))
			b = binary.AppendVarint(b, int64(t.Results))
		}
		for _, f := range [...]float64{c.cost.Input, c.cost.CacheWrite, c.cost.CacheRead, c.cost.Output} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		}
		for _, n := range [...]int{c.cost.Responses, c.cost.Usage.Input, c.cost.Usage.CacheWrite, c.cost.Usage.CacheRead, c.cost.Usage.Output} {
			b = binary.AppendVarint(b, int64(n))
		}
	}
	return b
}

var errDamagedLog = errors.New("a damaged tally log")

// readContributions reads what appendContributions wrote.
func readContributions(b []byte) ([]contribution, error) {
	bad := false
	uvarint := func() uint64 {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			bad = true
			return 0
		}
		b = b[k:]
		return v
	}
	varint := func() int {
		v, k := binary.Varint(b)
		if k <= 0 {
			bad = true
			return 0
		}
		b = b[k:]
		return int(v)
	}
	float := func() float64 {
		if len(b) < 8 {
			bad = true
			return 0
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(b))
		b = b[8:]
		return v
	}
	n := uvarint()
	if bad || n > uint64(len(b)) {
		return nil, errDamagedLog
	}
	var log []contribution
	if n > 0 {
		log = make([]contribution, n)
	}
	for i := range log {
		c := &log[i]
		if uvarint() != numCategories {
			return nil, errDamagedLog
		}
		for k := range c.kinds {
			c.kinds[k] = varint()
		}
		c.counted = varint()
		if len(b) == 0 {
			return nil, errDamagedLog
		}
		c.usage, b = b[0] == 1, b[1:]
		tools := uvarint()
		if bad || tools > uint64(len(b)) {
			return nil, errDamagedLog
		}
		if tools > 0 {
			c.tools = make([]ToolTokens, tools)
		}
		for j := range c.tools {
			l := uvarint()
			if bad || l > uint64(len(b)) {
				return nil, errDamagedLog
			}
			c.tools[j].Name, b = string(b[:l]), b[l:]
			c.tools[j].Tokens, c.tools[j].Results = varint(), varint()
		}
		c.cost.Input, c.cost.CacheWrite, c.cost.CacheRead, c.cost.Output = float(), float(), float(), float()
		c.cost.Responses = varint()
		c.cost.Usage.Input, c.cost.Usage.CacheWrite, c.cost.Usage.CacheRead, c.cost.Usage.Output = varint(), varint(), varint(), varint()
		if bad {
			return nil, errDamagedLog
		}
	}
	if len(b) != 0 {
		return nil, errDamagedLog
	}
	return log, nil
}
