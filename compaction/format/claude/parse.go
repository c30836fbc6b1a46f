package claude

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

// state is Transcript.State: what Append needs to continue in time
// proportional to the new bytes. Its maps are shared between successive
// transcripts and only ever gain entries; lookups check that an entry
// points inside the transcript at hand.
type descent struct {
	from, to int
	ok       bool
}

type state struct {
	nodes     []node
	byUUID    map[string]int
	toolNames map[string]string
	// leaf is the record the active branch ends at, -1 when none.
	leaf int
	// lastConv is the last conversation record on the main thread, -1 when none.
	lastConv int
	// hint is the last last-prompt record (index, leafUuid), -1 when none;
	// hintPinned says the user set it (a rewind).
	hint       int
	hintUUID   string
	hintPinned bool
	// desc remembers the last answer of descends (lastConv from the hint's
	// leaf), so an append walks only the rows it added.
	desc descent
	// boundary and sideBoundary are the last compact boundary of the main
	// thread and of sidechains, -1 when none; preservedRows are the rows
	// the last path took from before a boundary (see withPreserved).
	boundary, sideBoundary int
	preservedRows          map[int]bool
	// mainThread counts non-sidechain conversation records: a file with
	// none (a subagent file) is its own thread.
	mainThread  int
	lastSide    int
	meta        transcript.Meta
	customTitle bool
	// trimmedMsgs messages and trimmedNodes nodes lost their bodies to
	// Trim: the messages their parts, the nodes their decoded message.
	trimmedMsgs, trimmedNodes int
	// pruned is, in a state Resume restored, how many leading nodes are
	// zero placeholders (Suspend kept the ones after); lost is set when an
	// append needed one of them, or a uuid it cannot tell apart from one
	// (resume.go).
	pruned int
	lost   bool
	// forwardRef is set once a row names a parent no earlier row has:
	// until then every row's children come after it (children).
	forwardRef bool
}

func (s *state) clone() *state {
	c := *s
	return &c
}

// Detach implements format.Trimmer: the nodes and maps successive
// transcripts share, copied.
func (Codec) Detach(t *transcript.Transcript) *transcript.Transcript {
	st, ok := t.State.(*state)
	if !ok {
		return format.Detached(t, t.State)
	}
	c := st.clone()
	c.nodes = slices.Clone(st.nodes)
	c.byUUID = maps.Clone(st.byUUID)
	c.toolNames = maps.Clone(st.toolNames)
	return format.Detached(t, c)
}

// peek is lookup for a walk that a dropped row cannot mislead.
func (s *state) peek(uuid string) (int, bool) {
	i, ok := s.byUUID[uuid]
	if !ok || i >= len(s.nodes) || s.nodes[i].uuid != uuid {
		return 0, false
	}
	return i, true
}

func (s *state) lookup(uuid string) (int, bool) {
	i, ok := s.byUUID[uuid]
	if !ok || i >= len(s.nodes) || s.nodes[i].uuid != uuid {
		// In a resumed state the uuid may be a dropped node's.
		s.lost = s.lost || s.pruned > 0
		return 0, false
	}
	return i, true
}

func (c Codec) append(prev *transcript.Transcript, tail []byte, whole bool) (*transcript.Transcript, error) {
	ps := prev.State.(*state)
	st := ps.clone()
	st.lost = false
	pf, _ := prev.Frame.(*jsonl.Frame)
	if pf == nil {
		pf = &jsonl.Frame{}
	}

	t := &transcript.Transcript{
		Format:   transcript.FormatClaudeCode,
		Records:  prev.Records,
		Problems: prev.Problems,
		Skipped:  prev.Skipped,
		Size:     prev.Size,
	}
	oldLen := len(prev.Records)
	if st.leaf < 0 && oldLen == 0 {
		st.lastConv, st.hint, st.lastSide = -1, -1, -1
		st.boundary, st.sideBoundary = -1, -1
	}

	consume := tail
	if !whole {
		// Only complete lines: the rest waits for the writer to finish.
		consume = jsonl.CompleteLines(tail)
	}
	base := prev.Size
	if n := bytes.Count(consume, []byte{'\n'}); n > 1024 {
		// Room for every record up front: growing by doubling copied the
		// records and nodes of a million-line file over and over. Lines
		// under 64 bytes are no row Claude Code writes: a run of them
		// joins into few records (jsonl.Runs), so they get no room.
		n = min(n, len(consume)/64)
		t.Records = slices.Grow(t.Records, n)
		st.nodes = slices.Grow(st.nodes, n)
		if len(st.byUUID) == 0 {
			// A first read: the uuids' map sized once, not rehashed as
			// it doubles (the earlier transcript's empty map stays its own).
			st.byUUID = make(map[string]int, n)
		}
	}
	type decoded struct {
		n   node
		rec transcript.Record
		ln  *line
		err error
		k   int
	}
	runs := jsonl.NewRuns(consume, base)
	fr, consumed := jsonl.SplitParallel(*pf, consume, base, oldLen, pf.Lines(oldLen), func(k int, l jsonl.Line) decoded {
		n, rec, ln, err := decodeLine(l.Raw, oldLen+k)
		return decoded{n, rec, ln, err, k}
	}, func(l jsonl.Line, d decoded) jsonl.Verdict {
		idx := len(t.Records)
		n, rec, ln, err := d.n, d.rec, d.ln, d.err
		if err != nil && !l.Terminated {
			return jsonl.Wait // a write in progress: keep it for Write, do not consume it
		}
		rec.Start, rec.End = l.Start, l.End
		// A row of a type Claude Code does not write with no uuid is in
		// no thread: only its session fields (note) are read from it.
		inert := err != nil || n.kind == transcript.RecordUnknown && n.uuid == ""
		if runs.Join(t, l, &rec, inert) {
			if err == nil {
				st.note(idx-1, &n, ln)
			}
			return jsonl.Join
		}
		jsonl.Renumber(n.msg, oldLen+d.k, idx) // lines joined before it moved it up
		t.Records = append(t.Records, rec)
		st.nodes = append(st.nodes, n)
		if err != nil {
			t.Skipped++
			t.Problems = append(t.Problems, transcript.Problem{Record: idx, Line: l.Number, Message: fmt.Sprintf("line %d: %v", l.Number, err)})
		} else {
			st.note(idx, &n, ln)
		}
		return jsonl.Take
	})
	runs.Finish(t)
	t.Size = base + int64(consumed)
	if len(t.Records) == oldLen && len(fr.Pending) == 0 && len(fr.Seps) == len(pf.Seps) && bytes.Equal(fr.Lead, pf.Lead) {
		// Nothing new: hand back an equal transcript.
		cp := *prev
		cp.Size = t.Size
		cp.Kept = len(prev.Messages)
		return &cp, nil
	}
	t.Frame = &fr
	t.State = st
	t.Meta = st.meta

	st.leaf = st.chooseLeaf()
	if seg, ok := st.extends(ps.leaf, oldLen); ok {
		msgs, kept, err := st.appendMessages(prev.Messages, seg)
		if err != nil {
			return nil, err
		}
		t.Messages, t.Kept = msgs, kept
		t.Turns = extendTurns(prev.Turns, t.Messages, len(prev.Messages))
		if st.lost {
			return nil, fmt.Errorf("the new lines refer to rows the resumed state dropped: %w", format.ErrTrimmed)
		}
	} else {
		path := st.path(st.leaf)
		if st.lost || slices.ContainsFunc(path, func(i int) bool { return i < st.trimmedNodes }) {
			// The active branch now runs through records whose messages
			// Trim let go of (a rewind, a resumed older branch). A new
			// compact boundary starts a branch of new records only.
			return nil, fmt.Errorf("the active branch moved to earlier records: %w", format.ErrTrimmed)
		}
		st.trimmedMsgs = 0 // a new message list, every message whole
		t.Messages, _, _ = st.appendMessages(nil, path)
		t.Turns = transcript.BuildTurns(t.Messages)
	}
	return t, nil
}

// Trim implements format.Trimmer. A split response's next line merges into
// the last assistant message (past the tool results after it), so that
// message and the ones after it keep their parts whatever keep says.
func (Codec) Trim(t *transcript.Transcript, keep int) int {
	st, ok := t.State.(*state)
	if !ok {
		return 0
	}
	keep = min(keep, len(t.Messages), mergeFloor(t.Messages))
	if keep <= st.trimmedMsgs {
		return st.trimmedMsgs
	}
	format.TrimParts(t.Messages, st.trimmedMsgs, keep)
	nodes := len(st.nodes)
	if keep < len(t.Messages) && len(t.Messages[keep].Records) > 0 {
		nodes = min(nodes, t.Messages[keep].Records[0])
	}
	for i := st.trimmedNodes; i < nodes; i++ {
		st.nodes[i].msg = nil
	}
	if n := len(st.nodes); cap(st.nodes) > n+n/4 {
		// Growing by appends left room for as many nodes again.
		st.nodes = append(make([]node, 0, n+n/8), st.nodes...)
	}
	st.trimmedMsgs, st.trimmedNodes = keep, max(st.trimmedNodes, nodes)
	return keep
}

// Floor is the first message a later line may still change.
func (Codec) Floor(t *transcript.Transcript) int { return mergeFloor(t.Messages) }

// mergeFloor is the first message a later line may still change: the
// message mergeTarget would merge into, else none (len(msgs)).
func mergeFloor(msgs []transcript.Message) int {
	for j := len(msgs) - 1; j >= 0; j-- {
		switch {
		case msgs[j].Role == transcript.RoleAssistant:
			return j
		case msgs[j].Origin == transcript.OriginToolResult:
			continue
		}
		break
	}
	return len(msgs)
}

// note records what a decoded line says about the tree and the session.
func (s *state) note(idx int, n *node, l *line) {
	if n.hasParent && n.parent != "" && !s.forwardRef {
		if _, ok := s.byUUID[n.parent]; !ok {
			s.forwardRef = true // its parent comes later, or never
		}
	}
	if n.uuid != "" {
		s.byUUID[n.uuid] = idx
	}
	if n.conversation {
		switch {
		case n.sidechain:
			s.lastSide = idx
		case n.typ == "progress":
			// Claude Code bridges progress rows out of the chain: never a leaf.
		default:
			s.mainThread++
			s.lastConv = idx
		}
	}
	if n.typ == "last-prompt" && n.leaf != "" {
		s.hint, s.hintUUID, s.hintPinned = idx, n.leaf, n.pinned
	}
	if n.typ == "system" && n.subtype == "compact_boundary" {
		if n.sidechain {
			s.sideBoundary = idx
		} else {
			// Claude Code forgets the last-prompt leaf at a compaction:
			// what follows the boundary is the conversation now.
			s.hint, s.hintUUID, s.hintPinned = -1, "", false
			s.boundary = idx
		}
	}
	m := &s.meta
	if l.SessionID != "" && m.SessionID == "" {
		m.SessionID = l.SessionID
	}
	if l.Cwd != "" {
		m.Cwd = l.Cwd
	}
	if l.Version != "" {
		m.AgentVersion = l.Version
	}
	if n.msg != nil && n.msg.Model != "" && n.msg.Model != "<synthetic>" {
		m.Model = n.msg.Model
	}
	switch {
	case l.CustomTitle != "":
		m.Title, s.customTitle = l.CustomTitle, true
	case l.AITitle != "" && !s.customTitle:
		m.Title = l.AITitle
	}
}

// chooseLeaf picks the end of the active branch the way Claude Code
// resumes a session: from the last conversation row, unless a last-prompt
// record names a leaf the last row does not descend from (a row written
// after the last prompt under an older branch, such as the error result
// of a permission request that closed with the session, or a rewind),
// and from there back to the nearest user or assistant row (a trailing
// system or attachment row is not part of the resumed conversation). A
// file with only sidechain rows is a subagent's own thread.
func (s *state) chooseLeaf() int {
	last := s.lastConv
	if s.mainThread == 0 {
		last = s.lastSide
	}
	if last >= 0 && last < s.pruned {
		s.lost = true
	}
	from := last
	if s.hint >= 0 {
		if h, ok := s.lookup(s.hintUUID); ok && s.nodes[h].conversation && (last < 0 || s.hintPinned || !s.descends(last, h)) {
			from = h
		}
	}
	return s.message(from)
}

// descends reports whether row i's parent chain reaches row anc.
func (s *state) descends(i, anc int) bool {
	d := s.desc
	s.desc = descent{from: i, to: anc}
	if d.to == anc && d.from == i {
		s.desc.ok = d.ok
		return d.ok
	}
	for steps := 0; i >= 0 && steps <= len(s.nodes); steps++ {
		if i == anc || d.to == anc && d.ok && i == d.from {
			s.desc.ok = true
			return true
		}
		if i < s.pruned {
			s.lost = true
			return false
		}
		n := &s.nodes[i]
		if !n.hasParent || n.parent == "" {
			return false
		}
		p, ok := s.lookup(n.parent)
		if !ok {
			return false
		}
		i = p
	}
	return false
}

// message walks from row i back to the nearest user or assistant row; i
// itself when there is none.
func (s *state) message(i int) int {
	for j, steps := i, 0; j >= 0 && steps <= len(s.nodes); steps++ {
		if j < s.pruned {
			s.lost = true
			break
		}
		n := &s.nodes[j]
		if n.typ == "user" || n.typ == "assistant" {
			return j
		}
		if n.typ == "system" && n.subtype == "compact_boundary" || !n.hasParent || n.parent == "" {
			break
		}
		p, ok := s.lookup(n.parent)
		if !ok {
			break
		}
		j = p
	}
	return i
}

// path returns the records from the thread's start (or the last compact
// boundary) to leaf, in order.
func (s *state) path(leaf int) []int {
	var rev []int
	boundary := -1
	for i, steps := leaf, 0; i >= 0 && steps <= len(s.nodes); steps++ {
		n := &s.nodes[i]
		if n.typ == "system" && n.subtype == "compact_boundary" {
			boundary = i
			break // the model sees only what follows the boundary
		}
		rev = append(rev, i)
		if !n.hasParent || n.parent == "" {
			break
		}
		p, ok := s.lookup(n.parent)
		if !ok {
			break
		}
		i = p
	}
	slices.Reverse(rev)
	return s.withOffChainRows(s.withPreserved(rev, boundary))
}

// withPreserved puts after the anchor on path the rows the last compact
// boundary b preserved (see preserved.go), as Claude Code links them.
func (s *state) withPreserved(path []int, b int) []int {
	s.preservedRows = nil
	if b < 0 || b != s.lastBoundary(s.nodes[b].sidechain) {
		return path
	}
	rows := s.preserved(b)
	if len(rows) == 0 {
		return path
	}
	anchor, ok := s.lookup(s.nodes[b].kept.anchor)
	at := slices.Index(path, anchor)
	if !ok || at < 0 || slices.ContainsFunc(rows, func(i int) bool { return slices.Contains(path, i) }) {
		return path
	}
	s.preservedRows = make(map[int]bool, len(rows))
	for _, i := range rows {
		s.preservedRows[i] = true
	}
	return slices.Concat(path[:at+1], rows, path[at+1:])
}

// lastBoundary is the last compact boundary of the main thread, or of the
// sidechains; -1 when none.
func (s *state) lastBoundary(sidechain bool) int {
	if sidechain {
		return s.sideBoundary
	}
	return s.boundary
}

// extends reports whether the new leaf continues the old one through new
// records only, and returns those records in order: the common case of an
// agent appending to its conversation.
func (s *state) extends(oldLeaf, oldLen int) ([]int, bool) {
	if s.leaf == oldLeaf {
		return nil, !s.newOffChainResult(oldLen, nil)
	}
	if s.leaf < oldLen {
		return nil, false
	}
	var rev []int
	for i, steps := s.leaf, 0; ; steps++ {
		if steps > len(s.nodes)-oldLen {
			return nil, false // a cycle: let path() sort it out
		}
		n := &s.nodes[i]
		if n.typ == "system" && n.subtype == "compact_boundary" {
			return nil, false
		}
		rev = append(rev, i)
		if !n.hasParent || n.parent == "" {
			if oldLeaf >= 0 {
				return nil, false
			}
			break
		}
		p, ok := s.lookup(n.parent)
		if !ok {
			if oldLeaf >= 0 {
				return nil, false
			}
			break
		}
		if p == oldLeaf {
			break
		}
		if p < oldLen {
			// The old rows after the old leaf that the leaf's choice
			// stepped back over (system rows, attachments written after
			// the last message) are on the new branch now.
			trailing, ok := s.trailing(p, oldLeaf)
			if !ok {
				return nil, false
			}
			rev = append(rev, trailing...)
			break
		}
		i = p
	}
	slices.Reverse(rev)
	if s.newOffChainResult(oldLen, rev) {
		return nil, false
	}
	return rev, true
}

// trailing returns, from row i back to the row after oldLeaf, the rows
// between the old leaf and the last old row that the old leaf's choice
// (message) stepped back over: system rows after oldLeaf that are no
// message and no compact boundary (turn_duration, stop hook summaries),
// whose parent chain reaches oldLeaf. Rows that are messages (an
// attachment) are placed by the whole path (withOffChainRows).
func (s *state) trailing(i, oldLeaf int) ([]int, bool) {
	var rows []int
	for steps := 0; i > oldLeaf && steps < 64; steps++ {
		n := &s.nodes[i]
		if n.typ != "system" || n.subtype == "compact_boundary" || n.msg != nil || !n.hasParent || n.parent == "" {
			return nil, false
		}
		rows = append(rows, i)
		p, ok := s.lookup(n.parent)
		if !ok {
			return nil, false
		}
		if p == oldLeaf {
			return rows, true
		}
		i = p
	}
	return nil, false
}

// newOffChainResult reports whether a record from oldLen on, off seg (the
// new rows of the chain) but in the leaf's thread, is one Claude Code's
// loader may join to the chain (see withOffChainRows): a tool result, or
// a row of a response. Only the whole path places it.
func (s *state) newOffChainResult(oldLen int, seg []int) bool {
	side := s.leaf >= 0 && s.nodes[s.leaf].sidechain
	var inSeg map[int]bool
	for i := oldLen; i < len(s.nodes); i++ {
		n := &s.nodes[i]
		if n.sidechain != side || n.msg == nil || !(n.typ == "user" && holdsResult(n.msg) || n.typ == "assistant" && n.msg.ID != "") {
			continue
		}
		if inSeg == nil {
			inSeg = make(map[int]bool, len(seg))
			for _, j := range seg {
				inSeg[j] = true
			}
		}
		if !inSeg[i] {
			return true
		}
	}
	return false
}

// appendMessages adds the messages of records seg to msgs, merging split
// assistant lines into the message they continue, and returns how many
// leading messages of msgs it left unchanged. msgs belongs to an earlier
// transcript whose readers must never see a change: a merge into one of
// its messages copies the slice first. That copy is the one cost of an
// append that grows with the transcript (a memmove of its message
// headers, not of their parts); a slice whose element changes cannot
// share that element's backing array with the old one.
func (s *state) appendMessages(msgs []transcript.Message, seg []int) ([]transcript.Message, int, error) {
	shared := len(msgs)
	kept := len(msgs)
	for _, i := range seg {
		n := &s.nodes[i]
		if n.msg == nil {
			continue
		}
		m := *n.msg
		if s.preservedRows[i] {
			// Claude Code zeroes the usage of the rows a compaction
			// preserved: it measured the context before it.
			m.Usage = nil
		}
		if j := s.mergeTarget(msgs, &m); j >= 0 {
			if j < s.trimmedMsgs {
				return nil, 0, fmt.Errorf("a response line continues message %d: %w", j, format.ErrTrimmed)
			}
			if j < shared {
				// Room for the rest of seg, so it does not copy again.
				msgs = append(make([]transcript.Message, 0, len(msgs)+len(seg)), msgs...)
				shared = 0
			}
			kept = min(kept, j)
			t := msgs[j]
			t.Records = append(slices.Clip(t.Records), i)
			t.Parts = append(slices.Clip(t.Parts), s.named(m.Parts)...)
			if m.Usage != nil {
				t.Usage = m.Usage
			}
			msgs[j] = t
			continue
		}
		m.Parts = s.named(m.Parts)
		msgs = append(msgs, m)
	}
	return msgs, kept, nil
}

// mergeTarget finds the message a split assistant line belongs to: the
// last message with the same id, looking back over tool results only.
func (s *state) mergeTarget(msgs []transcript.Message, m *transcript.Message) int {
	if m.Role != transcript.RoleAssistant || m.ID == "" {
		return -1
	}
	for j := len(msgs) - 1; j >= 0; j-- {
		switch {
		case msgs[j].Role == transcript.RoleAssistant && msgs[j].ID == m.ID:
			return j
		case msgs[j].Origin == transcript.OriginToolResult:
			continue
		}
		return -1
	}
	return -1
}

// named records tool names of calls and fills them in on results.
func (s *state) named(parts []transcript.Part) []transcript.Part {
	copied := false
	for k := range parts {
		p := &parts[k]
		switch p.Kind {
		case transcript.PartToolCall:
			s.toolNames[p.ToolCallID] = p.ToolName
		case transcript.PartToolResult:
			if _, known := s.toolNames[p.ToolCallID]; !known && s.pruned > 0 && p.ToolName == "" {
				s.lost = true // the call may be one Suspend dropped
			}
			if name := s.toolNames[p.ToolCallID]; name != "" && p.ToolName == "" {
				if !copied {
					parts = slices.Clone(parts)
					copied = true
					p = &parts[k]
				}
				p.ToolName = name
			}
		}
	}
	return parts
}

// extendTurns recomputes only the last turn onwards.
func extendTurns(prev []transcript.Turn, msgs []transcript.Message, oldMsgs int) []transcript.Turn {
	start := 0
	keep := 0
	if len(prev) > 0 {
		keep = len(prev) - 1
		start = prev[keep].Start
	}
	if start > len(msgs) || oldMsgs > len(msgs) {
		return transcript.BuildTurns(msgs)
	}
	out := make([]transcript.Turn, keep, keep+4)
	copy(out, prev[:keep])
	for _, tn := range transcript.BuildTurns(msgs[start:]) {
		out = append(out, transcript.Turn{Start: tn.Start + start, End: tn.End + start})
	}
	return out
}
