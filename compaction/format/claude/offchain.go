package claude

import (
	"maps"
	"slices"
	"sort"

	"github.com/compactd/compactd/compaction/transcript"
)

// Rows off the parentUuid chain that Claude Code sends all the same.
//
// Claude Code writes a response with parallel tool calls as one row per
// block, each the parent of the next, and the result of each call as a
// child of the row holding that call, naming that row again in
// sourceToolAssistantUUID. The chain from the next row runs through one
// result only, and not always the last call's: results are written as the
// calls finish, so a slow one (an image read) may come first and hang
// beside the chain, image and all. In a subagent's file the same rows are
// sidechain rows. Resuming, Claude Code (2.1.330's loader) joins them back
// to the response they answer, as the API needs every tool_use answered
// in the next message. withOffChainRows follows its rules.

// withOffChainRows returns path (a parentUuid chain, in order) with the
// rows Claude Code's loader joins to it, each response on the path taking:
//   - its own rows that hang off the chain (a sibling row of the response);
//   - the tool results whose parent is one of its rows, whatever else they
//     hold (an image, a text beside the result);
//   - the tool results that name one of its rows in
//     sourceToolAssistantUUID, or answer a call only this response made,
//     while their parent does not hold their calls — when they answer a
//     call of the response nothing answered yet;
//   - the chains of Claude Code's own rows (attachments, system rows, meta
//     user rows) hanging off those rows, when the response calls tools.
//
// Joined rows go inside the response's span — its first row on the path
// through the rows Claude Code counts as its continuation (its rows, tool
// results, meta rows, attachments, system rows) — in file order; results
// found by source or call after the response's last row. Only rows of the
// leaf's thread (main or sidechain) join.
func (s *state) withOffChainRows(path []int) []int {
	if len(path) == 0 {
		return path
	}
	side := s.nodes[path[len(path)-1]].sidechain
	on := make(map[int]bool, len(path))
	for _, i := range path {
		on[i] = true
	}
	// After a compaction that preserved rows, Claude Code's loader keeps
	// nothing else from before the boundary.
	floor := -1
	if b := s.lastBoundary(side); b >= 0 && s.nodes[b].kept != nil {
		floor = b
	}
	rowsOf := map[string][]int{} // response id → its rows, in file order
	var results []int            // tool results off the path
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.sidechain != side || n.msg == nil || i < floor && !on[i] {
			continue
		}
		switch {
		case n.typ == "assistant" && n.msg.ID != "":
			rowsOf[n.msg.ID] = append(rowsOf[n.msg.ID], i)
		case n.typ == "user" && !on[i] && holdsResult(n.msg):
			results = append(results, i)
		}
	}

	// hung lists, per row, the off-path results hanging off it: by their
	// parent, or by source or call when their parent holds none of theirs.
	hung := map[int][]int{}
	attach := func(row, r int) {
		if !slices.Contains(hung[row], r) {
			hung[row] = append(hung[row], r)
		}
	}
	var callRow map[string]int // call id → the row holding it; -1 when two responses do
	for _, r := range results {
		n := &s.nodes[r]
		p, hasParent := s.parentRow(r)
		if hasParent {
			attach(p, r)
			if holdsCalls(s.nodes[p].msg, n.msg) {
				continue
			}
		}
		if n.source != "" && n.source != n.parent {
			if q, ok := s.lookup(n.source); ok && s.nodes[q].sidechain == side {
				attach(q, r)
			}
		}
		if callRow == nil {
			callRow = s.callRows(rowsOf)
		}
		for _, id := range resultIDs(n.msg) {
			if q, ok := callRow[id]; ok && q >= 0 && q != p {
				attach(q, r)
			}
		}
	}

	pos := make(map[int]int, len(path))
	for k, i := range path {
		pos[i] = k
	}
	var answeredOnPath map[string]bool
	type span struct {
		start, end int
		joined     []int           // rows joined, sorted by place
		anchored   map[int][]int   // path row → chains of own rows after it
		place      map[int]float64 // a joined row's place in file order
	}
	var spans []span
	var kids map[int][]int
	done := map[string]bool{}
	for _, i := range path {
		n := &s.nodes[i]
		if n.typ != "assistant" || n.msg == nil || n.msg.ID == "" || done[n.msg.ID] {
			continue
		}
		id := n.msg.ID
		done[id] = true
		rows := rowsOf[id]
		isRow := func(j int) bool { return slices.Contains(rows, j) }
		sp := span{place: map[int]float64{}}
		var joined, byParent, other []int
		for _, row := range rows {
			if !on[row] {
				joined = append(joined, row)
			}
		}
		seen := map[int]bool{}
		for _, row := range rows {
			for _, r := range hung[row] {
				if on[r] || seen[r] {
					continue
				}
				seen[r] = true
				if p, ok := s.parentRow(r); ok && isRow(p) {
					byParent = append(byParent, r)
				} else {
					other = append(other, r)
				}
			}
		}
		if len(other) > 0 {
			if answeredOnPath == nil {
				answeredOnPath = map[string]bool{}
				for _, j := range path {
					if m := s.nodes[j].msg; m != nil && s.nodes[j].typ == "user" {
						for _, rid := range resultIDs(m) {
							answeredOnPath[rid] = true
						}
					}
				}
			}
			answered := maps.Clone(answeredOnPath)
			for _, r := range byParent {
				for _, rid := range resultIDs(s.nodes[r].msg) {
					answered[rid] = true
				}
			}
			last := slices.Max(rows)
			sort.Ints(other)
			for _, r := range other {
				ids := resultIDs(s.nodes[r].msg)
				if !slices.ContainsFunc(ids, func(rid string) bool { q, ok := callRow[rid]; return !answered[rid] && ok && q >= 0 && isRow(q) }) {
					continue
				}
				for _, rid := range ids {
					answered[rid] = true
				}
				sp.place[r] = max(float64(r), float64(last)+0.5)
				byParent = append(byParent, r)
			}
		}
		joined = append(joined, byParent...)
		for _, j := range joined {
			on[j] = true
		}
		sp.start = pos[i]
		sp.end = sp.start + 1
		for _, row := range rows {
			if k, ok := pos[row]; ok && k >= sp.end {
				sp.end = k + 1
			}
		}
		for sp.end < len(path) && s.continues(path[sp.end], id) {
			sp.end++
		}
		if slices.ContainsFunc(rows, func(j int) bool { return holdsCall(s.nodes[j].msg) }) {
			// Claude Code's own rows hanging off the response's rows and
			// off the results answering it come with them; off a row of
			// the span, right after that row.
			if kids == nil {
				kids = s.children(slices.Min(path))
			}
			from := slices.Clone(rows)
			for _, row := range rows {
				for _, c := range kids[row] {
					if on[c] && s.nodes[c].typ == "user" && holdsResult(s.nodes[c].msg) && !slices.Contains(from, c) {
						from = append(from, c)
					}
				}
			}
			var chains []int
			for _, j := range from {
				for _, c := range s.ownChains(j, kids, on) {
					on[c] = true
					if pl, ok := sp.place[j]; ok {
						sp.place[c] = max(float64(c), pl)
					}
					chains = append(chains, c)
				}
			}
			joined = append(joined, chains...)
			for _, j := range path[sp.start+1 : sp.end] {
				if !s.own(j) {
					continue
				}
				if c := s.ownChains(j, kids, on); len(c) > 0 {
					for _, x := range c {
						on[x] = true
					}
					if sp.anchored == nil {
						sp.anchored = map[int][]int{}
					}
					sp.anchored[j] = c
				}
			}
		}
		if len(joined) == 0 && len(sp.anchored) == 0 {
			continue
		}
		placeOf := func(j int) float64 {
			if pl, ok := sp.place[j]; ok {
				return pl
			}
			return float64(j)
		}
		sort.SliceStable(joined, func(a, b int) bool {
			if pa, pb := placeOf(joined[a]), placeOf(joined[b]); pa != pb {
				return pa < pb
			}
			return joined[a] < joined[b]
		})
		for _, j := range joined {
			sp.place[j] = placeOf(j)
		}
		sp.joined = joined
		spans = append(spans, sp)
	}
	if len(spans) == 0 {
		return path
	}
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			for j, pl := range sp.place {
				last.place[j] = pl
			}
			last.joined = append(last.joined, sp.joined...)
			sort.SliceStable(last.joined, func(a, b int) bool { return last.place[last.joined[a]] < last.place[last.joined[b]] })
			for j, c := range sp.anchored {
				if last.anchored == nil {
					last.anchored = map[int][]int{}
				}
				last.anchored[j] = append(last.anchored[j], c...)
			}
			continue
		}
		merged = append(merged, sp)
	}
	out := make([]int, 0, len(path)+8)
	from := 0
	for _, sp := range merged {
		out = append(out, path[from:sp.start+1]...)
		k := 0
		for _, j := range path[sp.start+1 : sp.end] {
			for k < len(sp.joined) && sp.place[sp.joined[k]] < float64(j) {
				out = append(out, sp.joined[k])
				k++
			}
			out = append(out, j)
			out = append(out, sp.anchored[j]...)
		}
		out = append(out, sp.joined[k:]...)
		from = sp.end
	}
	return append(out, path[from:]...)
}

// callRows maps each call id to the row holding it, -1 when rows of two
// responses hold it.
func (s *state) callRows(rowsOf map[string][]int) map[string]int {
	out := map[string]int{}
	for id, rows := range rowsOf {
		for _, row := range rows {
			for _, p := range s.nodes[row].msg.Parts {
				if p.Kind != transcript.PartToolCall || p.ToolCallID == "" {
					continue
				}
				if q, ok := out[p.ToolCallID]; ok && (q < 0 || s.nodes[q].msg.ID != id) {
					out[p.ToolCallID] = -1
					continue
				}
				out[p.ToolCallID] = row
			}
		}
	}
	return out
}

// continues reports whether path row i belongs to the span of response id:
// one of its rows, a tool result or a meta row, an attachment, a system
// row other than a compaction (Claude Code's own rows after a response),
// or a progress row, which Claude Code takes out of the chain.
func (s *state) continues(i int, id string) bool {
	n := &s.nodes[i]
	switch n.typ {
	case "assistant":
		return n.msg != nil && n.msg.ID == id
	case "user":
		return n.meta || n.msg != nil && holdsResult(n.msg)
	case "attachment", "progress":
		return true
	case "system":
		return n.subtype != "compact_boundary"
	}
	return false
}

// own reports whether row i is one of Claude Code's own rows: an
// attachment, a system row other than a compaction, a meta user row
// holding no tool result.
func (s *state) own(i int) bool {
	n := &s.nodes[i]
	switch n.typ {
	case "attachment":
		return true
	case "system":
		return n.subtype != "compact_boundary"
	case "user":
		return n.meta && (n.msg == nil || !holdsResult(n.msg))
	}
	return false
}

// children maps each row to the rows naming it as their parent (through
// progress rows, see parentRow), in file order.
//
// Only rows from first on are read when no row names a parent written
// after it (forwardRef): a child then comes after its parent, and the
// rows whose children are asked for are first's or later. A codec that
// reads a file in pieces works the path out again after each piece that
// does not extend it (a compaction): reading every row each time cost a
// streamed 100 MB session 17 % of its read.
func (s *state) children(first int) map[int][]int {
	out := map[int][]int{}
	from := 0
	if !s.forwardRef {
		from = max(first, 0)
	}
	for j := from; j < len(s.nodes); j++ {
		if s.nodes[j].typ == "progress" {
			continue
		}
		if p, ok := s.parentRow(j); ok {
			out[p] = append(out[p], j)
		}
	}
	return out
}

// parentRow is row i's parent, progress rows passed over: Claude Code
// takes them out of the chain and hangs the rows under one from its
// parent.
func (s *state) parentRow(i int) (int, bool) {
	for steps := 0; steps <= len(s.nodes); steps++ {
		n := &s.nodes[i]
		if !n.hasParent || n.parent == "" {
			return 0, false
		}
		p, ok := s.lookup(n.parent)
		if !ok {
			return 0, false
		}
		if s.nodes[p].typ != "progress" {
			return p, true
		}
		i = p
	}
	return 0, false
}

// ownChains returns the chains of Claude Code's own rows hanging off row
// i, one per child of i: a child starts a chain when it and every row
// after it is one of Claude Code's own rows in i's thread, none taken yet,
// each the only child not taken of the one before. A chain that meets
// anything else is left out whole (Claude Code takes no branch it cannot
// order).
func (s *state) ownChains(i int, kids map[int][]int, taken map[int]bool) []int {
	var out []int
	for _, c := range kids[i] {
		var chain []int
		for cur := c; ; {
			if taken[cur] || s.nodes[cur].sidechain != s.nodes[i].sidechain || !s.own(cur) {
				chain = nil
				break
			}
			chain = append(chain, cur)
			var next []int
			for _, k := range kids[cur] {
				if !taken[k] {
					next = append(next, k)
				}
			}
			if len(next) > 1 {
				chain = nil
				break
			}
			if len(next) == 0 {
				break
			}
			cur = next[0]
		}
		out = append(out, chain...)
	}
	return out
}

func holdsResult(m *transcript.Message) bool {
	return m != nil && slices.ContainsFunc(m.Parts, func(p transcript.Part) bool { return p.Kind == transcript.PartToolResult })
}

func holdsCall(m *transcript.Message) bool {
	return m != nil && slices.ContainsFunc(m.Parts, func(p transcript.Part) bool { return p.Kind == transcript.PartToolCall })
}

// resultIDs lists the calls m's tool results answer.
func resultIDs(m *transcript.Message) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, p := range m.Parts {
		if p.Kind == transcript.PartToolResult && p.ToolCallID != "" {
			out = append(out, p.ToolCallID)
		}
	}
	return out
}

// holdsCalls reports whether row a (an assistant message) holds every call
// result m answers.
func holdsCalls(a, m *transcript.Message) bool {
	ids := resultIDs(m)
	if a == nil || len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		if !slices.ContainsFunc(a.Parts, func(p transcript.Part) bool { return p.Kind == transcript.PartToolCall && p.ToolCallID == id }) {
			return false
		}
	}
	return true
}
