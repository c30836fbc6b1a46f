package gauge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// A Category is one kind of what fills the context window.
type Category string

const (
	// CategoryOutside is what the API counts but the transcript does not
	// hold: the system prompt, tool definitions, memory files the agent
	// sends without recording them. See Overhead.
	CategoryOutside Category = "outside"
	// CategorySystem: system and developer messages the transcript holds.
	CategorySystem Category = "system"
	// CategoryInjected: context the agent put into the conversation
	// itself — memory files and reminders (Claude Code's attachments and
	// <system-reminder>s), AGENTS.md and environment blocks.
	CategoryInjected Category = "injected"
	// CategorySummaries: summaries of earlier compactions.
	CategorySummaries Category = "summaries"
	CategoryUser      Category = "user"
	CategoryAssistant Category = "assistant"
	// CategoryReasoning: reasoning and thinking, readable or encrypted.
	CategoryReasoning   Category = "reasoning"
	CategoryToolCalls   Category = "tool-calls"
	CategoryToolResults Category = "tool-results"
	// CategoryMedia: images and documents.
	CategoryMedia Category = "media"
)

// categories in display order; the index is a Category's slot in a tally.
var categories = []Category{CategoryOutside, CategorySystem, CategoryInjected, CategorySummaries, CategoryUser,
	CategoryAssistant, CategoryReasoning, CategoryToolCalls, CategoryToolResults, CategoryMedia}

const numCategories = 10

var categoryLabels = map[Category]string{
	CategoryOutside:     "outside the transcript",
	CategorySystem:      "system messages",
	CategoryInjected:    "injected context",
	CategorySummaries:   "summaries",
	CategoryUser:        "user text",
	CategoryAssistant:   "assistant text",
	CategoryReasoning:   "reasoning",
	CategoryToolCalls:   "tool calls",
	CategoryToolResults: "tool results",
	CategoryMedia:       "images and documents",
}

// Label is the category's name for people.
func (c Category) Label() string { return categoryLabels[c] }

func slot(c Category) int {
	for i, x := range categories {
		if x == c {
			return i
		}
	}
	return 0
}

// CategoryTokens is one category's share of a gauge.
type CategoryTokens struct {
	Category Category `json:"category"`
	Label    string   `json:"label"`
	Tokens   int      `json:"tokens"`
}

// ToolTokens is what one tool's results take.
type ToolTokens struct {
	Name    string `json:"name"`
	Tokens  int    `json:"tokens"`
	Results int    `json:"results"`
}

// Outside is the part of the gauge the transcript does not hold.
type Outside struct {
	// Tokens is Overhead: reported usage minus our count of the messages
	// it covers. Negative when we count more than the API reported.
	Tokens int `json:"tokens"`
	// Measured is false without reported usage: nothing is known of it
	// and Tokens is 0.
	Measured bool `json:"measured"`
	// Inherited: the transcript is a fork without usage of its own, and
	// Tokens was measured on the source it was compacted from.
	Inherited bool `json:"inherited,omitempty"`
	// Label names what it holds, as far as the agent is known:
	// "system prompt, tool definitions, memory files (CLAUDE.md)".
	Label string `json:"label"`
	// Known are the parts the transcript itself names (MCP servers whose
	// tools the agent called, deferred tools, Codex's base instructions).
	Known []OutsidePart `json:"known,omitempty"`
}

// OutsidePart is one thing the transcript says the agent sends beside it.
type OutsidePart struct {
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
	// Tokens is its count when the transcript holds its text (Codex's
	// base instructions); 0 when it is only named.
	Tokens int `json:"tokens,omitempty"`
}

// Breakdown splits a gauge into what fills the window. Outside plus
// the inside categories sum to Tokens exactly.
type Breakdown struct {
	// Tokens and ContextWindow are the gauge's.
	Tokens        int `json:"tokens"`
	ContextWindow int `json:"contextWindow"`
	// Parts are the non-zero categories in display order, outside first.
	Parts   []CategoryTokens `json:"parts"`
	Outside Outside          `json:"outside"`
	// Inside is our count of the transcript's messages.
	Inside int `json:"inside"`
	// Tools are the tools whose results take the most, largest first.
	Tools []ToolTokens `json:"tools,omitempty"`
	// Reachable is what compaction can act on: the transcript without the
	// turns it always keeps (KeepLast). An upper bound: pinned
	// instructions and the first prompt are kept too.
	Reachable int `json:"reachable"`
	// Approx: some counts were approximate (very long unbroken runs).
	Approx bool `json:"approx,omitempty"`
}

// TopTools is how many tools a breakdown names.
const TopTools = 5

// Overhead is the one definition of what a gauge holds beyond the
// transcript's messages: with reported usage, the gauge's figure minus our
// count of every message (which equals the last reported usage minus our
// count of the messages it covered); 0 and false without usage. It is never
// negative: when we count more than the API reported, nothing outside the
// transcript is measurable and the difference is our counting's error (the
// breakdown still shows it, so that its parts sum to the gauge). A fork's
// gauge is its own count plus the overhead measured on its source.
func Overhead(g Gauge, inside int) (int, bool) {
	over, ok := signedOverhead(g, inside)
	return max(over, 0), ok
}

// signedOverhead is Overhead before clamping: the breakdown's outside part.
// A fork without usage of its own carries its source's (Gauge.Overhead).
func signedOverhead(g Gauge, inside int) (int, bool) {
	if g.Source != SourceReported && g.Overhead == 0 {
		return 0, false
	}
	return g.Tokens - inside, true
}

// Category returns what a part of message m counts as.
func PartCategory(m *transcript.Message, p *transcript.Part) Category {
	if m.Origin == transcript.OriginSummary {
		return CategorySummaries
	}
	switch p.Kind {
	case transcript.PartReasoning, transcript.PartOpaque:
		return CategoryReasoning
	case transcript.PartToolCall:
		return CategoryToolCalls
	case transcript.PartToolResult:
		return CategoryToolResults
	case transcript.PartImage, transcript.PartDocument:
		return CategoryMedia
	case transcript.PartAttachment:
		return CategoryInjected
	}
	switch {
	case m.Role == transcript.RoleSystem || m.Role == transcript.RoleDeveloper:
		return CategorySystem
	case m.Origin == transcript.OriginInjected:
		return CategoryInjected
	case m.Role == transcript.RoleTool || m.Origin == transcript.OriginToolResult:
		return CategoryToolResults
	case m.Role == transcript.RoleAssistant:
		return CategoryAssistant
	}
	return CategoryUser
}

// partWeight is a part's share of its message's count when the message
// mixes kinds (an assistant message with thinking, text and a tool call):
// its size as the counter prices it, with text at four bytes a token. The
// message's count itself is the exact one.
func partWeight(p *transcript.Part, images tokens.ImagePricing) int {
	w := (len(p.Text) + len(p.Args) + len(p.ToolName) + 3) / 4
	switch p.Kind {
	case transcript.PartImage:
		w += tokens.ImageTokens(images, p.Width, p.Height)
	case transcript.PartDocument:
		if p.Text == "" {
			w += tokens.UnknownDocumentTokens
		}
	}
	return w + tokens.OpaqueTokens(p.Opaque) + 1
}

// apportion splits n into parts proportional to weights (summing to
// total), the largest remainders rounding up.
func apportion(n int, weights []int, total int) []int {
	out := make([]int, len(weights))
	if total <= 0 {
		out[0] = n
		return out
	}
	type rem struct{ i, r int }
	rems := make([]rem, len(weights))
	given := 0
	for i, w := range weights {
		q := n * w
		out[i] = q / total
		rems[i] = rem{i, q % total}
		given += out[i]
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; given < n; k = (k + 1) % len(rems) {
		out[rems[k].i]++
		given++
	}
	return out
}

// BreakdownOptions parameterize a breakdown.
type BreakdownOptions struct {
	// KeepLast is the turns compaction keeps, as it runs
	// (strategy.Options.KeepLastTurns): 0 none.
	KeepLast int
	// Kept, when set, is what those turns hold, as the caller already
	// knows it (the daemon's per-turn figures): one turn of an agent's
	// long tool loop can span most of the transcript, which is not to be
	// walked on every append.
	Kept *int
}

// Breakdown splits gauge g of t (whose messages' counts are counts)
// using the tally of t.
func (tl Tally) Breakdown(g Gauge, t *transcript.Transcript, counts []tokens.Count, opts BreakdownOptions) Breakdown {
	st := tl.cur
	b := Breakdown{Tokens: g.Tokens, ContextWindow: g.ContextWindow, Inside: st.counted, Approx: st.approx || g.Approx}
	b.Outside.Label = format.OutsideOf(t.Format)
	if over, ok := signedOverhead(g, st.counted); ok {
		b.Outside.Tokens, b.Outside.Measured = over, true
		if g.Source != SourceReported {
			b.Outside.Inherited = true
			b.Outside.Label += "; measured on the source this fork was compacted from"
		}
	}
	b.Outside.Known = tl.knownOutside(st)
	switch {
	case b.Outside.Tokens > 0:
		b.Parts = append(b.Parts, CategoryTokens{CategoryOutside, CategoryOutside.Label(), b.Outside.Tokens})
	case b.Outside.Tokens < 0:
		// We count more than the API reported: nothing outside can be
		// seen, and the difference is our counting's (see EstimateError).
		// It stays a part so the parts still sum to the gauge.
		b.Outside.Label = fmt.Sprintf("not measurable: our count of the transcript is %s tokens above the API's reported usage", tokens.Thousands(-b.Outside.Tokens))
		b.Parts = append(b.Parts, CategoryTokens{CategoryOutside, "our count above the reported usage", b.Outside.Tokens})
	}
	for i, c := range categories {
		if c != CategoryOutside && st.kinds[i] != 0 {
			b.Parts = append(b.Parts, CategoryTokens{c, c.Label(), st.kinds[i]})
		}
	}
	for _, tt := range st.tools {
		b.Tools = append(b.Tools, tt)
	}
	sort.Slice(b.Tools, func(i, j int) bool {
		if b.Tools[i].Tokens != b.Tools[j].Tokens {
			return b.Tools[i].Tokens > b.Tools[j].Tokens
		}
		return b.Tools[i].Name < b.Tools[j].Name
	})
	if len(b.Tools) > TopTools {
		b.Tools = b.Tools[:TopTools]
	}
	if opts.Kept != nil {
		b.Reachable = st.counted - *opts.Kept
	} else {
		b.Reachable = st.counted - keptTail(t, counts, opts.KeepLast, st.n)
	}
	return b
}

// keptTail counts the last turns compaction never touches.
func keptTail(t *transcript.Transcript, counts []tokens.Count, keepLast, n int) int {
	if keepLast <= 0 || n == 0 {
		return 0
	}
	turns := t.Turns
	if turns == nil {
		turns = transcript.BuildTurns(t.Messages)
	}
	if len(turns) == 0 {
		return 0
	}
	from := turns[max(len(turns)-keepLast, 0)].Start
	kept := 0
	for i := from; i < n && i < len(counts); i++ {
		kept += counts[i].N
	}
	return kept
}

// BreakdownOf is the breakdown of gauge g computed from scratch.
func BreakdownOf(g Gauge, t *transcript.Transcript, counts []tokens.Count, tally TallyOptions, opts BreakdownOptions) Breakdown {
	return Tally{}.Advance(t, counts, 0, tally).Breakdown(g, t, counts, opts)
}

// Sum is the parts' total: the gauge's tokens.
func (b Breakdown) Sum() int {
	n := 0
	for _, p := range b.Parts {
		n += p.Tokens
	}
	return n
}

// Share is tokens as a fraction of the window.
func (b Breakdown) Share(tokens int) float64 {
	if b.ContextWindow <= 0 {
		return 0
	}
	return float64(tokens) / float64(b.ContextWindow)
}

// OutsideDominates reports whether most of what the model reads lies
// outside the transcript, where compaction cannot reach.
func (b Breakdown) OutsideDominates() bool {
	return b.Outside.Measured && b.Tokens > 0 && 2*b.Outside.Tokens >= b.Tokens
}

// Reach says in one sentence how much of the window compaction can reach,
// and, when most of what the model reads lies outside the transcript,
// that this is why compaction cannot help: "98 % of what the model reads
// (191,537 of 194,791 tokens) is outside the transcript (system prompt,
// tool and MCP definitions, memory files (CLAUDE.md)): compaction can
// reach at most 48 tokens (<0.1 % of the window)".
func (b Breakdown) Reach() string {
	reach := fmt.Sprintf("compaction can reach at most %s tokens (%s of the window)", tokens.Thousands(max(b.Reachable, 0)), percent(b.Share(max(b.Reachable, 0))))
	if b.OutsideDominates() {
		return fmt.Sprintf("%s of what the model reads (%s of %s tokens) is outside the transcript (%s): %s",
			percent(float64(b.Outside.Tokens)/float64(b.Tokens)), tokens.Thousands(b.Outside.Tokens), tokens.Thousands(b.Tokens), b.Outside.Label, reach)
	}
	return upperFirst(reach)
}

// WhyLittle explains a dry run that saves little (saved tokens of the
// gauge's): "" when it saves a useful share (5 % of the gauge or more).
func (b Breakdown) WhyLittle(saved int) string {
	if b.Tokens <= 0 || 20*saved >= b.Tokens {
		return ""
	}
	if b.OutsideDominates() {
		return b.Reach()
	}
	if b.Reachable <= 0 {
		return "the whole transcript is in the turns compaction keeps (--keep-last)"
	}
	return fmt.Sprintf("the transcript holds little compaction removes: no repeated reads, bulky tool output or reasoning to drop in its %s reachable tokens", tokens.Thousands(b.Reachable))
}

// Brief is the breakdown in a few words, largest parts first, for a
// status line: "outside 191k · tool results 2.1k (Read 1.2k) · assistant 700".
func (b Breakdown) Brief(parts int) string {
	ps := append([]CategoryTokens(nil), b.Parts...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Tokens > ps[j].Tokens })
	var out []string
	for _, p := range ps {
		if len(out) == parts || p.Tokens <= 0 {
			break
		}
		label := p.Label
		if p.Category == CategoryOutside {
			label = "outside"
		}
		s := label + " " + shortTokens(p.Tokens)
		if p.Category == CategoryToolResults && len(b.Tools) > 0 {
			s += " (" + b.Tools[0].Name + " " + shortTokens(b.Tools[0].Tokens) + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, " · ")
}

func percent(f float64) string {
	switch {
	case f > 0 && f < 0.001:
		return "<0.1 %"
	case f >= 0.1 || f == 0:
		return fmt.Sprintf("%.0f %%", 100*f)
	default:
		return fmt.Sprintf("%.1f %%", 100*f)
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// shortTokens renders a count compactly: 950, 1.2k, 156k, 1.05M.
func shortTokens(n int) string {
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	switch {
	case n < 1000:
		return neg + fmt.Sprint(n)
	case n < 10_000:
		return neg + strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return neg + fmt.Sprintf("%dk", (n+500)/1000)
	default:
		return neg + strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/1e6), "0"), ".") + "M"
	}
}
