package pricing

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// Rates are what one million tokens cost, in US dollars.
type Rates struct {
	// Input is a prompt token read without the provider's cache.
	Input float64 `json:"input" toml:"input"`
	// CachedInput is a prompt token served from the cache (Anthropic's
	// "cache hits", OpenAI's "cached input", DeepSeek's "cache hit").
	CachedInput float64 `json:"cachedInput" toml:"cached_input"`
	// CacheWrite is a prompt token written to the cache. Only Anthropic
	// charges more for it than for input (1.25× for the 5-minute cache);
	// elsewhere it equals Input.
	CacheWrite float64 `json:"cacheWrite" toml:"cache_write"`
	// Output is a generated token, reasoning included.
	Output float64 `json:"output" toml:"output"`
}

// withDefaults fills a rate left at zero from the others: a cached read
// at the input price (no discount known), a cache write at the input
// price (no premium known).
func (r Rates) withDefaults() Rates {
	if r.CachedInput == 0 {
		r.CachedInput = r.Input
	}
	if r.CacheWrite == 0 {
		r.CacheWrite = r.Input
	}
	return r
}

// A Tier raises the rates for long prompts: a request whose prompt
// (input, cache reads and cache writes together) is above Above tokens
// pays these rates on every token, output included (Gemini and Claude
// past 200k, Qwen's bands).
type Tier struct {
	Above int `json:"above" toml:"above"`
	Rates
}

// A Price is what the table says one model costs.
type Price struct {
	// Model is the entry's name, matched as a prefix of model names.
	Model    string `json:"model"`
	Provider string `json:"provider"`
	Rates
	// Tiers are ordered by Above; the last one below a prompt's size applies.
	Tiers []Tier `json:"tiers,omitempty"`
	// Source says where the price comes from: "built-in (checked
	// 2026-11-23)" or "settings".
	Source string `json:"source"`
}

// RatesFor returns the rates a request with a prompt of prompt tokens pays.
func (p Price) RatesFor(prompt int) Rates {
	r := p.Rates
	for _, t := range p.Tiers {
		if prompt > t.Above {
			r = t.Rates
		}
	}
	return r.withDefaults()
}

// Usage is one response's reported tokens, as transcript.Usage holds them:
// Input excludes what was read from or written to the cache.
type Usage struct {
	Input, CacheWrite, CacheRead, Output int
}

// UsageOf converts a transcript's usage. Gemini reports its thoughts
// apart from the answer (thoughtsTokenCount beside candidatesTokenCount)
// and bills them as output; the other formats' output already holds the
// reasoning.
func UsageOf(u transcript.Usage, f transcript.Format) Usage {
	out := Usage{Input: u.Input, CacheWrite: u.CacheCreation, CacheRead: u.CacheRead, Output: u.Output}
	if f == transcript.FormatGeminiCLI {
		out.Output += u.Reasoning
	}
	return out
}

// Prompt is the request's prompt size.
func (u Usage) Prompt() int { return u.Input + u.CacheWrite + u.CacheRead }

// Cost is what a usage cost, by kind of token, in dollars.
type Cost struct {
	Input      float64 `json:"input"`
	CacheWrite float64 `json:"cacheWrite"`
	CacheRead  float64 `json:"cacheRead"`
	Output     float64 `json:"output"`
}

// Total is the sum of the parts.
func (c Cost) Total() float64 { return c.Input + c.CacheWrite + c.CacheRead + c.Output }

// Add returns the sum of two costs.
func (c Cost) Add(o Cost) Cost {
	return Cost{c.Input + o.Input, c.CacheWrite + o.CacheWrite, c.CacheRead + o.CacheRead, c.Output + o.Output}
}

// Of prices one response's usage at the rates of its prompt's size.
func (p Price) Of(u Usage) Cost {
	r := p.RatesFor(u.Prompt())
	const m = 1e6
	return Cost{
		Input:      float64(u.Input) * r.Input / m,
		CacheWrite: float64(u.CacheWrite) * r.CacheWrite / m,
		CacheRead:  float64(u.CacheRead) * r.CachedInput / m,
		Output:     float64(u.Output) * r.Output / m,
	}
}

// Session is a conversation's cost from the usage its transcript reports.
type Session struct {
	Cost
	// Responses is how many reported usages were priced.
	Responses int
	// Usage sums the priced usage by kind.
	Usage Usage
}

// AddUsage prices one more response.
func (s Session) AddUsage(p Price, u Usage) Session {
	s.Cost = s.Cost.Add(p.Of(u))
	s.Responses++
	s.Usage.Input += u.Input
	s.Usage.CacheWrite += u.CacheWrite
	s.Usage.CacheRead += u.CacheRead
	s.Usage.Output += u.Output
	return s
}

// SessionCost prices every usage the transcript's messages report: the
// responses of the conversation the model sees now (history an agent
// compacted away is not in it).
func (p Price) SessionCost(t *transcript.Transcript) Session {
	var s Session
	for i := range t.Messages {
		u := t.Messages[i].Usage
		if u == nil || u.ContextTokens() == 0 {
			continue
		}
		s = s.AddUsage(p, UsageOf(*u, t.Format))
	}
	return s
}

// NextTurn is what sending the context once more costs.
type NextTurn struct {
	// Cached: the part the provider last saw read from the cache, the
	// rest written to it (or read as input where writes cost nothing more).
	Cached float64 `json:"cached"`
	// Uncached: every token read as input, as after the cache expired
	// (5 minutes idle at Anthropic) or with a provider that does not cache.
	Uncached float64 `json:"uncached"`
}

// NextTurnCost prices the prompt of the next request: context tokens,
// of which cached were in the previous request (the gauge's reported
// part), the rest new since. Output is left out: nobody knows the answer's
// length.
func (p Price) NextTurnCost(context, cached int) NextTurn {
	cached = min(max(cached, 0), context)
	r := p.RatesFor(context)
	const m = 1e6
	return NextTurn{
		Cached:   (float64(cached)*r.CachedInput + float64(context-cached)*r.CacheWrite) / m,
		Uncached: float64(context) * r.Input / m,
	}
}

// Saving is what removing tokens from the context saves on each later turn.
type Saving struct {
	// Cached: the tokens would have been cache reads.
	Cached float64 `json:"cached"`
	// Uncached: they would have been read as input.
	Uncached float64 `json:"uncached"`
}

// PerTurnSaving prices tokens removed from a context of context tokens,
// at the rates of the prompt after the removal on every later turn.
func (p Price) PerTurnSaving(context, removed int) Saving {
	removed = min(max(removed, 0), context)
	after := p.RatesFor(context - removed)
	before := p.RatesFor(context)
	const m = 1e6
	// A tier boundary crossed makes every remaining token cheaper too.
	cached := (float64(context)*before.CachedInput - float64(context-removed)*after.CachedInput) / m
	uncached := (float64(context)*before.Input - float64(context-removed)*after.Input) / m
	return Saving{Cached: cached, Uncached: uncached}
}

// Figures are a conversation's costs as every view shows them.
type Figures struct {
	// Model is the price entry that matched, Source where it comes from.
	Model  string `json:"model"`
	Source string `json:"source"`
	// Rates are those a request of the current context's size pays.
	Rates Rates `json:"rates"`
	// Session is the cost so far from reported usage, by kind of token.
	Session   float64 `json:"session"`
	Detail    Cost    `json:"sessionDetail"`
	Responses int     `json:"responses"`
	// NextTurn is the next request's prompt at today's size.
	NextTurn NextTurn `json:"nextTurn"`
}

// FiguresOf puts a session's cost and the next turn's together: context
// is the gauge's tokens, cached the part the last request already sent
// (the gauge's reported figure).
func (p Price) FiguresOf(s Session, context, cached int) Figures {
	return Figures{
		Model: p.Model, Source: p.Source, Rates: p.RatesFor(context),
		Session: s.Total(), Detail: s.Cost, Responses: s.Responses,
		NextTurn: p.NextTurnCost(context, cached),
	}
}

// Key identifies a price's figures, to tell whether a cost computed with
// one price still holds.
func (p Price) Key() string {
	return fmt.Sprintf("%s|%s|%v|%v", p.Model, p.Source, p.Rates, p.Tiers)
}

// Dollars renders an amount the way the figures are shown: "$0.42",
// "$0.0031", "$12.40", "<$0.0001".
func Dollars(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case v < 0:
		return "-" + Dollars(-v)
	case v < 0.0001:
		return "<$0.0001"
	case v < 0.01:
		return fmt.Sprintf("$%.4f", v)
	case v < 1:
		return fmt.Sprintf("$%.3f", v)
	case v < 1000:
		return fmt.Sprintf("$%.2f", v)
	default:
		return fmt.Sprintf("$%.0f", math.Round(v))
	}
}

// Table maps model names to prices. Build one with Builtin, adjust it with
// Set (the user's settings), then share it read-only.
type Table struct {
	entries []Price
	// overrides are the user's entries, matched before the built-ins.
	overrides []Price
}

// Builtin returns a copy of the bundled table.
func Builtin() *Table {
	t := &Table{entries: make([]Price, len(builtin))}
	for i, p := range builtin {
		p.Source = "built-in (checked " + TableDate + ")"
		t.entries[i] = p
	}
	return t
}

// Set adds or replaces a user price for model names starting with name.
func (t *Table) Set(name string, r Rates, tiers []Tier) error {
	n := Normalize(name)
	if n == "" {
		return fmt.Errorf("a price needs a model name")
	}
	if r.Input < 0 || r.CachedInput < 0 || r.CacheWrite < 0 || r.Output < 0 {
		return fmt.Errorf("price of %s: rates cannot be negative", name)
	}
	if r.Input == 0 && r.Output == 0 {
		return fmt.Errorf("price of %s: set input and output (dollars per million tokens)", name)
	}
	tiers = append([]Tier(nil), tiers...)
	sort.Slice(tiers, func(i, j int) bool { return tiers[i].Above < tiers[j].Above })
	p := Price{Model: n, Provider: "settings", Rates: r, Tiers: tiers, Source: "settings"}
	for i := range t.overrides {
		if t.overrides[i].Model == n {
			t.overrides[i] = p
			return nil
		}
	}
	t.overrides = append(t.overrides, p)
	return nil
}

// Lookup returns the price of a model name ("claude-sonnet-4-5-20250929",
// "anthropic/claude-opus-4-1", "gpt-5-codex", "models/gemini-2.5-pro",
// "deepseek-chat", "qwen3-coder-plus"): the user's entries first, then the
// built-ins; among matches the longest name wins. Unknown models report
// false: no cost is shown rather than a guess.
func (t *Table) Lookup(model string) (Price, bool) {
	n := Normalize(model)
	if n == "" || t == nil {
		return Price{}, false
	}
	for _, list := range [][]Price{t.overrides, t.entries} {
		best := -1
		for i := range list {
			if strings.HasPrefix(n, list[i].Model) && (best < 0 || len(list[i].Model) > len(list[best].Model)) {
				best = i
			}
		}
		if best >= 0 {
			return list[best], true
		}
	}
	return Price{}, false
}

// Normalize lower-cases a model name and strips provider routing: a
// "vendor/" path, Bedrock's "us.anthropic." prefix, a Vertex "@date"
// suffix, Claude Code's "[1m]" suffix.
func Normalize(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	if i := strings.Index(n, "claude-"); i > 0 {
		n = n[i:]
	}
	if i := strings.IndexByte(n, '@'); i > 0 {
		n = n[:i]
	}
	n = strings.TrimSuffix(n, "[1m]")
	return n
}
