package gauge

import (
	"math"
	"strings"

	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// TallyOptions say how a tally counts.
type TallyOptions struct {
	// Images prices images when a message mixes them with text.
	Images tokens.ImagePricing
	// CountText counts a text the transcript holds about the outside part
	// (Codex's base instructions); nil estimates it at four bytes a token.
	CountText func(string) int
	// Price, when known, prices every reported usage into the session's
	// cost (Tally.Session).
	Price *pricing.Price
	// Floor, when positive, is the first message a later append may
	// change (format.Trimmer.Floor): messages before it are final, and a
	// holder that drops their parts must never have them read again. The
	// tally's log of what the last messages added covers at least the
	// messages from Floor on.
	Floor int
	// AllUsage keeps every usage point, not the last maxUsagePoints, so
	// that EstimateError is measured on the whole conversation as
	// Compute measures it (a command's figures, not a live gauge's).
	AllUsage bool
}

// A Tally carries the figures a breakdown needs from one parse of a
// growing transcript to the next, so an append costs what it added. The
// zero Tally describes no messages.
//
// Each message is read once, when it first appears or changes: a caller
// that drops the parts of older messages to save memory (format.Trimmer)
// advances the tally before it does. What each of the last messages
// added is kept, so that an append changing them (Claude Code merges a
// response's lines into one message) takes back what they added and reads
// them again: the messages before the append's unchanged prefix are never
// read again.
//
// A Tally's maps and lists are its own after Advance; the Tally passed in
// must not be used again.
type Tally struct {
	format transcript.Format
	// priceKey is the price the session cost was computed with.
	priceKey string
	cur      tallyState
	// log holds what messages [cur.n-len(log), cur.n) added, oldest first.
	log     []contribution
	records int
	rec     recordFacts
	// allUsage: every usage point is kept (TallyOptions.AllUsage).
	allUsage bool
}

// tallyLog is how many messages' contributions are kept: how far back an
// append may change messages and still be followed.
const tallyLog = 256

// maxUsagePoints is how many recent usage points are kept for the
// estimate error.
const maxUsagePoints = 48

type tallyState struct {
	n       int
	kinds   [numCategories]int
	counted int
	approx  bool
	tools   map[string]ToolTokens
	mcp     map[string]map[string]bool // server → tool names called
	usage   []usagePoint
	session pricing.Session
}

// contribution is what one message added to a tally.
type contribution struct {
	kinds   [numCategories]int
	counted int
	tools   []ToolTokens
	usage   bool
	cost    pricing.Session
}

// usagePoint is a message with reported usage: the reported context and
// our count of every message up to and including it.
type usagePoint struct {
	msg, reported, counted int
}

// Advance returns the tally of t from tl, the tally of the transcript t
// was appended to, whose first same messages t keeps unchanged (and whose
// counts, counts[i] for t.Messages[i], are the same). Only the messages
// from the unchanged prefix on are read; they must carry their parts.
func (tl Tally) Advance(t *transcript.Transcript, counts []tokens.Count, same int, opts TallyOptions) Tally {
	n := min(len(t.Messages), len(counts))
	same = max(min(same, n), 0)
	key := ""
	if opts.Price != nil {
		key = opts.Price.Key()
	}
	if tl.format != t.Format {
		tl = Tally{}
	}
	if tl.priceKey != key {
		tl = tl.reprice(t, opts.Price, key)
	}
	tl.format = t.Format
	tl.allUsage = opts.AllUsage
	tl.cur.ensure()
	if same < tl.cur.n {
		if drop := tl.cur.n - same; drop <= len(tl.log) {
			for _, c := range tl.log[len(tl.log)-drop:] {
				tl.cur.sub(c)
			}
			tl.log = tl.log[:len(tl.log)-drop] // the old Tally is not used again
			for len(tl.cur.usage) > 0 && tl.cur.usage[len(tl.cur.usage)-1].msg >= same {
				tl.cur.usage = tl.cur.usage[:len(tl.cur.usage)-1]
			}
			tl.cur.n = same
		} else {
			// Further back than the log reaches: start over. With nothing
			// kept (a new parse) the records are read again too.
			tl.cur, tl.log = tallyState{}, nil
			if same == 0 {
				tl.records, tl.rec = 0, recordFacts{}
			}
		}
	}
	if tl.cur.tools == nil {
		tl.cur.ensure() // started over
	}
	for i := tl.cur.n; i < n; i++ {
		c := contributionOf(&t.Messages[i], counts[i], opts.Images)
		if u := t.Messages[i].Usage; u != nil && opts.Price != nil && u.ContextTokens() > 0 {
			c.cost = pricing.Session{}.AddUsage(*opts.Price, pricing.UsageOf(*u, t.Format))
		}
		tl.cur.add(c, &t.Messages[i], i, counts[i], tl.allUsage)
		tl.log = append(tl.log, c)
	}
	tl.cur.n = max(tl.cur.n, n)
	// Keep what the messages an append may still change added (from the
	// codec's floor, or the last tallyLog), bounded.
	keep := tallyLog
	if opts.Floor > 0 {
		keep = max(keep, n-opts.Floor)
	}
	if len(tl.log) > 2*keep {
		tl.log = append([]contribution(nil), tl.log[len(tl.log)-keep:]...)
	}
	if tl.records > len(t.Records) {
		tl.records, tl.rec = 0, recordFacts{}
	}
	tl.rec = scanRecords(tl.rec, t, tl.records, opts)
	tl.records = len(t.Records)
	return tl
}

// reprice computes the session's cost again at another price: from the
// messages' usage, which callers keep when they drop parts.
func (tl Tally) reprice(t *transcript.Transcript, p *pricing.Price, key string) Tally {
	tl.priceKey = key
	tl.cur.session = pricing.Session{}
	from := tl.cur.n - len(tl.log)
	log := make([]contribution, len(tl.log))
	copy(log, tl.log)
	for i := 0; i < tl.cur.n && i < len(t.Messages); i++ {
		var cost pricing.Session
		if u := t.Messages[i].Usage; u != nil && p != nil && u.ContextTokens() > 0 {
			cost = pricing.Session{}.AddUsage(*p, pricing.UsageOf(*u, t.Format))
		}
		tl.cur.session = addSession(tl.cur.session, cost)
		if i >= from {
			log[i-from].cost = cost
		}
	}
	tl.log = log
	return tl
}

// addSession adds b's cost to a's in whole nano-dollars: each
// response's cost rounds once, and sums of integers do not depend on
// their order, so a tally carried over many appends (taking back and
// adding again what changed messages added) gives to the last bit what
// one pass over the transcript gives.
func addSession(a, b pricing.Session) pricing.Session {
	a.Cost = pricing.Cost{
		Input:      addNano(a.Cost.Input, b.Cost.Input),
		CacheWrite: addNano(a.Cost.CacheWrite, b.Cost.CacheWrite),
		CacheRead:  addNano(a.Cost.CacheRead, b.Cost.CacheRead),
		Output:     addNano(a.Cost.Output, b.Cost.Output),
	}
	a.Responses += b.Responses
	a.Usage.Input += b.Usage.Input
	a.Usage.CacheWrite += b.Usage.CacheWrite
	a.Usage.CacheRead += b.Usage.CacheRead
	a.Usage.Output += b.Usage.Output
	return a
}

// addNano is a+b in dollars, each rounded to whole nano-dollars first
// (exact in a float64 up to $9M).
func addNano(a, b float64) float64 {
	return float64(int64(math.Round(a*1e9))+int64(math.Round(b*1e9))) / 1e9
}

func subSession(a, b pricing.Session) pricing.Session {
	b.Cost = pricing.Cost{Input: -b.Cost.Input, CacheWrite: -b.Cost.CacheWrite, CacheRead: -b.Cost.CacheRead, Output: -b.Cost.Output}
	b.Responses = -b.Responses
	b.Usage = pricing.Usage{Input: -b.Usage.Input, CacheWrite: -b.Usage.CacheWrite, CacheRead: -b.Usage.CacheRead, Output: -b.Usage.Output}
	return addSession(a, b)
}

// ensure gives the state maps of its own (a copy of what it shared with
// the tally it came from).
func (s *tallyState) ensure() {
	tools := make(map[string]ToolTokens, len(s.tools))
	for k, v := range s.tools {
		tools[k] = v
	}
	s.tools = tools
	mcp := make(map[string]map[string]bool, len(s.mcp))
	for k, v := range s.mcp {
		mcp[k] = v // the inner sets are copied on write
	}
	s.mcp = mcp
	s.usage = append([]usagePoint(nil), s.usage...)
}

// contributionOf is what message m, of count c, adds.
func contributionOf(m *transcript.Message, c tokens.Count, images tokens.ImagePricing) contribution {
	out := contribution{counted: c.N, usage: m.Usage != nil}
	if len(m.Parts) == 0 {
		out.kinds[slot(PartCategory(m, &transcript.Part{Kind: transcript.PartText}))] += c.N
		return out
	}
	first := PartCategory(m, &m.Parts[0])
	mixed := false
	for k := 1; k < len(m.Parts) && !mixed; k++ {
		mixed = PartCategory(m, &m.Parts[k]) != first
	}
	if !mixed && first != CategoryToolResults {
		out.kinds[slot(first)] += c.N
		return out
	}
	// Share the exact count by the parts' sizes, largest remainders
	// rounding up, so the shares sum to it.
	weights := make([]int, len(m.Parts))
	total := 0
	hasResult := false
	for k := range m.Parts {
		weights[k] = partWeight(&m.Parts[k], images)
		total += weights[k]
		hasResult = hasResult || m.Parts[k].Kind == transcript.PartToolResult
	}
	shares := apportion(c.N, weights, total)
	for k := range m.Parts {
		p := &m.Parts[k]
		cat := PartCategory(m, p)
		out.kinds[slot(cat)] += shares[k]
		if cat != CategoryToolResults {
			continue
		}
		name := p.ToolName
		if name == "" {
			name = "(unnamed)"
		}
		results := 0
		if p.Kind == transcript.PartToolResult || (!hasResult && k == 0) {
			results = 1
		}
		merged := false
		for i := range out.tools {
			if out.tools[i].Name == name {
				out.tools[i].Tokens += shares[k]
				out.tools[i].Results += results
				merged = true
			}
		}
		if !merged {
			out.tools = append(out.tools, ToolTokens{Name: name, Tokens: shares[k], Results: results})
		}
	}
	return out
}

// add tallies contribution c of message m (index i, count cnt).
func (s *tallyState) add(c contribution, m *transcript.Message, i int, cnt tokens.Count, allUsage bool) {
	for k := range c.kinds {
		s.kinds[k] += c.kinds[k]
	}
	s.counted += c.counted
	s.approx = s.approx || cnt.Approx
	for _, t := range c.tools {
		tt := s.tools[t.Name]
		tt.Name = t.Name
		tt.Tokens += t.Tokens
		tt.Results += t.Results
		s.tools[t.Name] = tt
	}
	s.session = addSession(s.session, c.cost)
	if c.usage {
		s.usage = append(s.usage, usagePoint{msg: i, reported: m.Usage.ContextTokens(), counted: s.counted})
		if len(s.usage) > maxUsagePoints && !allUsage {
			s.usage = append(s.usage[:0:0], s.usage[len(s.usage)-maxUsagePoints:]...)
		}
	}
	for k := range m.Parts {
		if p := &m.Parts[k]; p.Kind == transcript.PartToolCall && strings.HasPrefix(p.ToolName, "mcp__") {
			s.noteMCP(p.ToolName)
		}
	}
}

// sub takes back what c added. The usage points are taken back by the
// caller, the MCP servers seen and approximations stay.
func (s *tallyState) sub(c contribution) {
	for k := range c.kinds {
		s.kinds[k] -= c.kinds[k]
	}
	s.counted -= c.counted
	for _, t := range c.tools {
		tt := s.tools[t.Name]
		tt.Tokens -= t.Tokens
		tt.Results -= t.Results
		if tt.Tokens == 0 && tt.Results == 0 {
			delete(s.tools, t.Name)
		} else {
			s.tools[t.Name] = tt
		}
	}
	s.session = subSession(s.session, c.cost)
}

func (s *tallyState) noteMCP(name string) {
	rest := strings.TrimPrefix(name, "mcp__")
	server, tool, ok := strings.Cut(rest, "__")
	if !ok || server == "" {
		return
	}
	if s.mcp[server][tool] {
		return
	}
	set := make(map[string]bool, len(s.mcp[server])+1)
	for k := range s.mcp[server] {
		set[k] = true
	}
	set[tool] = true
	s.mcp[server] = set
}

// Covers reports whether the tally describes t's first n messages priced
// at price: an advance would read nothing again.
func (tl Tally) Covers(t *transcript.Transcript, n int, price *pricing.Price) bool {
	key := ""
	if price != nil {
		key = price.Key()
	}
	return tl.format == t.Format && tl.priceKey == key && tl.cur.n == n
}

// PricedAt reports whether the session's cost is at price p (nil: none):
// an advance at p reads no message's usage again.
func (tl Tally) PricedAt(p *pricing.Price) bool {
	key := ""
	if p != nil {
		key = p.Key()
	}
	return tl.priceKey == key || tl.cur.n == 0
}

// Session is the cost of every reported usage, at the price the tally was
// advanced with (zero without one).
func (tl Tally) Session() pricing.Session { return tl.cur.session }

// Reprice is the tally with the session's cost at price p (the settings
// changed): the messages' usage is read again, nothing else.
func (tl Tally) Reprice(t *transcript.Transcript, p *pricing.Price) Tally {
	key := ""
	if p != nil {
		key = p.Key()
	}
	if key == tl.priceKey {
		return tl
	}
	tl.cur.ensure()
	return tl.reprice(t, p, key)
}
