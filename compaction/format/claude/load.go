package claude

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.Loader = Codec{}

// Load implements format.Loader: the conversation Claude Code sends the
// model when it resumes t, rebuilt the way its own loader does (2.1.330,
// read from its shipped code), apart from compactd's walk:
//
//   - its rows are the user, assistant, attachment and system records with
//     a uuid; a progress row is taken out, the rows under it hung from its
//     parent;
//   - from the leaf the session resumes at (Parse's choice, which follows
//     Claude Code's), the parentUuid chain back to a row without a parent
//     (the first row, a compact boundary);
//   - every response on the chain then takes back what hangs off it (its
//     recovery of parallel tool results): the response's rows off the
//     chain; the tool results whose parent is one of its rows; the tool
//     results naming one of its rows in sourceToolAssistantUUID, or
//     answering a call only it made, when their parent holds none of their
//     calls and they answer a call of the response nothing answered yet;
//     and the chains of Claude Code's own rows hanging off all of these.
//     They go in file order inside the response's span, results found by
//     source or call after its last row;
//   - Claude Code's own rows under the leaf follow it;
//   - the rows that hold messages become the API's messages: an assistant
//     row continues the response of the same id, and consecutive messages
//     of one role are one message, as the Messages API combines them.
//
// It is the reading the invariant check holds a fork to, kept apart from
// Parse's incremental walk (withOffChainRows) so that a fault of one is
// seen by the other.
func (Codec) Load(t *transcript.Transcript) ([]transcript.Message, error) {
	st, ok := t.State.(*state)
	if !ok {
		// Not from this codec's parse (built in memory): nothing tells
		// how the agent would link it; read as it is.
		return t.Messages, nil
	}
	if st.leaf < 0 || st.leaf >= len(st.nodes) {
		return nil, nil
	}
	l := newLoad(t, st)
	leaf, ok := l.byUUID[st.nodes[st.leaf].uuid]
	if !ok {
		return nil, nil
	}
	chain := l.recover(l.chain(leaf))
	chain = append(chain, l.under(leaf, chain)...)
	return l.messages(chain)
}

// load is one Load: the rows Claude Code keeps of t, by uuid.
type load struct {
	t      *transcript.Transcript
	st     *state
	rows   []int          // node indexes Claude Code keeps, in file order
	byUUID map[string]int // uuid → node index (the last row naming it)
	parent map[int]string // node index → its parent uuid, progress rows bridged; "" none
	kids   map[string][]int
	// zeroed are rows a compaction preserved: Claude Code zeroes their usage.
	zeroed map[int]bool
}

func newLoad(t *transcript.Transcript, st *state) *load {
	l := &load{t: t, st: st, byUUID: map[string]int{}, parent: map[int]string{}}
	bridged := map[string]string{} // progress uuid → the row above it
	for i := range st.nodes {
		n := &st.nodes[i]
		if n.uuid == "" || n.kind == transcript.RecordMalformed {
			continue
		}
		p := ""
		if n.hasParent {
			p = n.parent
		}
		if up, ok := bridged[p]; ok {
			p = up
		}
		switch n.typ {
		case "progress":
			bridged[n.uuid] = p
			continue
		case "user", "assistant", "attachment", "system":
		default:
			continue
		}
		if _, seen := l.byUUID[n.uuid]; !seen {
			l.rows = append(l.rows, i)
		}
		l.byUUID[n.uuid] = i
		l.parent[i] = p
	}
	l.relink()
	l.kids = map[string][]int{}
	for _, i := range l.rows {
		if p := l.parent[i]; p != "" {
			l.kids[p] = append(l.kids[p], i)
		}
	}
	return l
}

func (l *load) n(i int) *node { return &l.st.nodes[i] }

// relink does what Claude Code's loader does when a compact boundary
// preserved rows (see preserved.go): when the last boundary is the one
// that preserved them, it links them after the anchor (the summary) and
// what hung from the anchor after the last of them; and it keeps nothing
// else from before the last boundary, rows that hung from what it drops
// hanging from the last preserved row.
func (l *load) relink() {
	last, with := -1, -1
	var kept *boundaryKept
	for _, i := range l.rows {
		n := l.n(i)
		if n.typ != "system" || n.subtype != "compact_boundary" {
			continue
		}
		last = i
		if k := l.keptBy(i); k != nil {
			kept, with = k, i
		}
	}
	if kept == nil {
		return
	}
	var keep []string
	if with == last {
		var ok bool
		if keep, ok = l.resolve(kept); !ok {
			return
		}
	}
	for _, u := range keep {
		if _, ok := l.byUUID[u]; !ok {
			return
		}
	}
	l.zeroed = map[int]bool{}
	if len(keep) > 0 {
		prev := kept.anchor
		for _, u := range keep {
			i := l.byUUID[u]
			l.parent[i], prev = prev, u
			l.zeroed[i] = true
		}
		for _, i := range l.rows {
			if l.parent[i] == kept.anchor && l.n(i).uuid != keep[0] {
				l.parent[i] = prev
			}
		}
	}
	dropped := map[string]bool{}
	rows := l.rows[:0]
	for _, i := range l.rows {
		if u := l.n(i).uuid; i < last && !slices.Contains(keep, u) {
			dropped[u] = true
			delete(l.byUUID, u)
			continue
		}
		rows = append(rows, i)
	}
	l.rows = rows
	if len(keep) > 0 && len(dropped) > 0 {
		for _, i := range l.rows {
			if t := l.n(i).typ; (t == "user" || t == "assistant") && dropped[l.parent[i]] {
				l.parent[i] = keep[len(keep)-1]
			}
		}
	}
}

// boundaryKept is what a compact boundary's record says it preserved.
type boundaryKept struct {
	anchor     string
	uuids      []string
	head, tail string
}

// keptBy reads boundary row i's compactMetadata from its record.
func (l *load) keptBy(i int) *boundaryKept {
	if i >= len(l.t.Records) {
		return nil
	}
	var row struct {
		CompactMetadata struct {
			PreservedMessages *struct {
				AnchorUUID string   `json:"anchorUuid"`
				UUIDs      []string `json:"uuids"`
			} `json:"preservedMessages"`
			PreservedSegment *struct {
				HeadUUID   string `json:"headUuid"`
				AnchorUUID string `json:"anchorUuid"`
				TailUUID   string `json:"tailUuid"`
			} `json:"preservedSegment"`
		} `json:"compactMetadata"`
	}
	if json.Unmarshal(l.t.Records[i].Raw, &row) != nil {
		return nil
	}
	if m := row.CompactMetadata.PreservedMessages; m != nil {
		return &boundaryKept{anchor: m.AnchorUUID, uuids: m.UUIDs}
	}
	if g := row.CompactMetadata.PreservedSegment; g != nil {
		return &boundaryKept{anchor: g.AnchorUUID, head: g.HeadUUID, tail: g.TailUUID}
	}
	return nil
}

// resolve lists the preserved rows: the boundary's list, or the segment
// walked from its tail back to its head.
func (l *load) resolve(k *boundaryKept) ([]string, bool) {
	if k.uuids != nil {
		return k.uuids, true
	}
	var rev []string
	seen := map[string]bool{}
	for u := k.tail; u != "" && !seen[u]; {
		i, ok := l.byUUID[u]
		if !ok {
			return nil, false
		}
		seen[u] = true
		rev = append(rev, u)
		if u == k.head {
			slices.Reverse(rev)
			return rev, true
		}
		u = l.parent[i]
	}
	return nil, false
}

// chain walks from leaf to the top, returned top first.
func (l *load) chain(leaf int) []int {
	var rev []int
	seen := map[int]bool{}
	for i, ok := leaf, true; ok && !seen[i]; i, ok = l.byUUID[l.parent[i]] {
		seen[i] = true
		rev = append(rev, i)
		if l.parent[i] == "" {
			break
		}
	}
	slices.Reverse(rev)
	return rev
}

// recover adds to chain what hangs off its responses.
func (l *load) recover(chain []int) []int {
	taken := map[int]bool{}
	at := map[int]int{}
	for k, i := range chain {
		taken[i], at[i] = true, k
	}
	rowsOf := map[string][]int{} // response id → its rows
	var results []int            // every row holding a tool result
	for _, i := range l.rows {
		n := l.n(i)
		switch {
		case n.typ == "assistant" && n.msg != nil && n.msg.ID != "":
			rowsOf[n.msg.ID] = append(rowsOf[n.msg.ID], i)
		case n.typ == "user" && holdsResult(n.msg):
			results = append(results, i)
		}
	}
	sameThread := func(a, b int) bool { return l.n(a).sidechain == l.n(b).sidechain && l.agent(a) == l.agent(b) }
	under := map[string][]int{} // row uuid → results hung under it
	hang := func(uuid string, r int) {
		if !slices.Contains(under[uuid], r) {
			under[uuid] = append(under[uuid], r)
		}
	}
	var loose []int // results whose parent holds none of their calls
	for _, r := range results {
		p := l.parent[r]
		if p != "" {
			hang(p, r)
		}
		if q, ok := l.byUUID[p]; ok && p != "" && holdsCalls(l.n(q).msg, l.n(r).msg) {
			continue
		}
		loose = append(loose, r)
	}
	byCall := map[string]int{} // call id → the row holding it; -1 when rows of two responses do
	if len(loose) > 0 {
		for _, rows := range rowsOf {
			for _, a := range rows {
				for _, p := range l.n(a).msg.Parts {
					if p.Kind != transcript.PartToolCall {
						continue
					}
					if q, ok := byCall[p.ToolCallID]; ok && (q < 0 || l.n(q).msg.ID != l.n(a).msg.ID) {
						byCall[p.ToolCallID] = -1
						continue
					}
					byCall[p.ToolCallID] = a
				}
			}
		}
	}
	for _, r := range loose {
		if src := l.n(r).source; src != "" && src != l.parent[r] {
			if a, ok := l.byUUID[src]; ok && sameThread(r, a) {
				hang(l.n(a).uuid, r)
			}
		}
		for _, id := range resultIDs(l.n(r).msg) {
			if a, ok := byCall[id]; ok && a >= 0 && l.n(a).uuid != l.parent[r] && sameThread(r, a) {
				hang(l.n(a).uuid, r)
			}
		}
	}

	onChain := map[string]bool{}
	for _, i := range chain {
		for _, id := range resultIDs(l.n(i).msg) {
			onChain[id] = true
		}
	}
	type group struct {
		start, end int
		back       []int
		after      map[int][]int
	}
	var groups []group
	place := map[int]float64{}
	placeOf := func(i int) float64 {
		if p, ok := place[i]; ok {
			return p
		}
		return float64(i)
	}
	done := map[string]bool{}
	for _, i := range chain {
		a := l.n(i)
		if a.typ != "assistant" || a.msg == nil || a.msg.ID == "" || done[a.msg.ID] {
			continue
		}
		id := a.msg.ID
		done[id] = true
		rows := rowsOf[id]
		mine := func(uuid string) bool {
			return slices.ContainsFunc(rows, func(j int) bool { return l.n(j).uuid == uuid })
		}
		var back, direct, found []int
		for _, j := range rows {
			if !taken[j] {
				back = append(back, j)
			}
		}
		met := map[int]bool{}
		for _, j := range rows {
			for _, r := range under[l.n(j).uuid] {
				if taken[r] || met[r] {
					continue
				}
				met[r] = true
				if mine(l.parent[r]) {
					direct = append(direct, r)
				} else {
					found = append(found, r)
				}
			}
		}
		if len(found) > 0 {
			answered := maps.Clone(onChain)
			for _, r := range direct {
				for _, id := range resultIDs(l.n(r).msg) {
					answered[id] = true
				}
			}
			sort.Ints(found)
			last := slices.Max(rows)
			for _, r := range found {
				ids := resultIDs(l.n(r).msg)
				if !slices.ContainsFunc(ids, func(id string) bool {
					a, ok := byCall[id]
					return !answered[id] && ok && a >= 0 && slices.Contains(rows, a)
				}) {
					continue
				}
				for _, id := range ids {
					answered[id] = true
				}
				place[r] = max(float64(r), float64(last)+0.5)
				direct = append(direct, r)
			}
		}
		back = append(back, direct...)
		for _, j := range back {
			taken[j] = true
		}
		g := group{start: at[i], end: at[i] + 1}
		for _, j := range rows {
			if k, ok := at[j]; ok && k >= g.end {
				g.end = k + 1
			}
		}
		for g.end < len(chain) && l.follows(chain[g.end], id) {
			g.end++
		}
		if slices.ContainsFunc(rows, func(j int) bool { return holdsCall(l.n(j).msg) }) {
			from := slices.Clone(rows)
			for _, j := range rows {
				for _, r := range under[l.n(j).uuid] {
					if taken[r] && !slices.Contains(from, r) {
						from = append(from, r)
					}
				}
			}
			for _, j := range from {
				for _, c := range l.tails(j, taken) {
					taken[c] = true
					if p, ok := place[j]; ok {
						place[c] = max(float64(c), p)
					}
					back = append(back, c)
				}
			}
			for _, j := range chain[g.start+1 : g.end] {
				if !l.own(j) {
					continue
				}
				if c := l.tails(j, taken); len(c) > 0 {
					for _, x := range c {
						taken[x] = true
					}
					if g.after == nil {
						g.after = map[int][]int{}
					}
					g.after[j] = c
				}
			}
		}
		if len(back) == 0 && len(g.after) == 0 {
			continue
		}
		sort.SliceStable(back, func(x, y int) bool { return placeOf(back[x]) < placeOf(back[y]) })
		g.back = back
		groups = append(groups, g)
	}
	if len(groups) == 0 {
		return chain
	}
	sort.SliceStable(groups, func(x, y int) bool { return groups[x].start < groups[y].start })
	var joined []group
	for _, g := range groups {
		if k := len(joined) - 1; k >= 0 && g.start < joined[k].end {
			j := &joined[k]
			j.end = max(j.end, g.end)
			j.back = append(j.back, g.back...)
			sort.SliceStable(j.back, func(x, y int) bool { return placeOf(j.back[x]) < placeOf(j.back[y]) })
			for r, c := range g.after {
				if j.after == nil {
					j.after = map[int][]int{}
				}
				j.after[r] = append(j.after[r], c...)
			}
			continue
		}
		joined = append(joined, g)
	}
	var out []int
	from := 0
	for _, g := range joined {
		out = append(out, chain[from:g.start+1]...)
		k := 0
		for _, i := range chain[g.start+1 : g.end] {
			for k < len(g.back) && placeOf(g.back[k]) < float64(i) {
				out = append(out, g.back[k])
				k++
			}
			out = append(out, i)
			out = append(out, g.after[i]...)
		}
		out = append(out, g.back[k:]...)
		from = g.end
	}
	return append(out, chain[from:]...)
}

// agent is the agentId of a sidechain row ("" on the main thread): a row
// joins only rows of its own agent.
func (l *load) agent(i int) string {
	if !l.n(i).sidechain {
		return ""
	}
	var row struct {
		AgentID string `json:"agentId"`
	}
	if i < len(l.t.Records) {
		_ = json.Unmarshal(l.t.Records[i].Raw, &row)
	}
	return row.AgentID
}

// follows reports whether chain row i is part of the span of response id:
// a row of it, a tool result or a meta user row, an attachment, a system
// row other than a compaction.
func (l *load) follows(i int, id string) bool {
	n := l.n(i)
	switch n.typ {
	case "assistant":
		return n.msg != nil && n.msg.ID == id
	case "user":
		return n.meta || holdsResult(n.msg)
	case "attachment":
		return true
	case "system":
		return n.subtype != "compact_boundary"
	}
	return false
}

// own reports whether row i is one of Claude Code's own rows: an
// attachment, a system row other than a compaction, a meta user row
// holding no tool result.
func (l *load) own(i int) bool {
	n := l.n(i)
	switch n.typ {
	case "attachment":
		return true
	case "system":
		return n.subtype != "compact_boundary"
	case "user":
		return n.meta && !holdsResult(n.msg)
	}
	return false
}

// tails returns, for each child of row i, the run of Claude Code's own
// rows it starts, when the whole run is such rows of i's thread, not
// taken, each the only child not taken of the one before.
func (l *load) tails(i int, taken map[int]bool) []int {
	var out []int
	for _, c := range l.kids[l.n(i).uuid] {
		var run []int
		for y := c; ; {
			if taken[y] || l.n(y).sidechain != l.n(i).sidechain || !l.own(y) {
				run = nil
				break
			}
			run = append(run, y)
			var next []int
			for _, k := range l.kids[l.n(y).uuid] {
				if !taken[k] {
					next = append(next, k)
				}
			}
			if len(next) != 1 {
				if len(next) > 1 {
					run = nil
				}
				break
			}
			y = next[0]
		}
		out = append(out, run...)
	}
	return out
}

// under returns Claude Code's own rows below the leaf (children that are
// neither user nor assistant rows, and theirs), in timestamp order.
func (l *load) under(leaf int, chain []int) []int {
	in := map[int]bool{}
	for _, i := range chain {
		in[i] = true
	}
	var out []int
	queue := []int{leaf}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, c := range l.kids[l.n(i).uuid] {
			if t := l.n(c).typ; t == "user" || t == "assistant" || in[c] {
				continue
			}
			in[c] = true
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return l.stamp(out[a]) < l.stamp(out[b]) })
	return out
}

func (l *load) stamp(i int) string {
	var row struct {
		Timestamp string `json:"timestamp"`
	}
	if i < len(l.t.Records) {
		_ = json.Unmarshal(l.t.Records[i].Raw, &row)
	}
	return row.Timestamp
}

// messages turns rows into the API's messages.
func (l *load) messages(rows []int) ([]transcript.Message, error) {
	var out []transcript.Message
	for _, i := range rows {
		m, err := l.message(i)
		if err != nil {
			return nil, err
		}
		if m == nil {
			continue
		}
		if l.zeroed[i] && m.Usage != nil {
			c := *m
			c.Usage = nil
			m = &c
		}
		if k := len(out) - 1; k >= 0 && out[k].Role == m.Role {
			prev := &out[k]
			prev.Records = append(prev.Records, m.Records...)
			prev.Parts = append(prev.Parts, m.Parts...)
			if m.Usage != nil {
				prev.Usage = m.Usage
			}
			continue
		}
		c := *m
		c.Records = slices.Clone(m.Records)
		c.Parts = slices.Clone(m.Parts)
		out = append(out, c)
	}
	return out, nil
}

// message is row i's message, decoded again when Trim let go of it.
func (l *load) message(i int) (*transcript.Message, error) {
	n := l.n(i)
	if n.msg != nil || i >= l.st.trimmedNodes {
		return n.msg, nil
	}
	if i >= len(l.t.Records) || len(l.t.Records[i].Raw) == 0 {
		return nil, fmt.Errorf("load: record %d was trimmed and its bytes are gone", i)
	}
	d, _, _, err := decodeLine(l.t.Records[i].Raw, i)
	if err != nil {
		return nil, fmt.Errorf("load: record %d: %w", i, err)
	}
	return d.msg, nil
}
