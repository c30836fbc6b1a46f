package claude

import (
	"bytes"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/vmihailenco/msgpack/v5"
)

// Suspend and Resume carry a trimmed transcript's state to another
// process (format.Suspender). What is kept is what an append that
// continues the conversation reads: the nodes from the first one Trim
// left whole (the last messages' rows, where the active branch ends and
// where the next rows hang), their uuids, the names of the calls they
// make, and the scalars. The nodes before are placeholders in the
// resumed state, and any walk or lookup that would need one (a rewind to
// an older row, a result for a call made long ago, a row whose parent is
// unknown) makes Append fail with format.ErrTrimmed.

// suspended is the encoded state: MessagePack, each struct an array of
// its fields (the state is read by the build that wrote it; gob's
// per-stream type setup was most of a status line's resume).
type suspended struct {
	First, Len   int
	Nodes        []suspendedNode
	ByUUID       map[string]int
	ToolNames    map[string]string
	Leaf         int
	LastConv     int
	Hint         int
	HintUUID     string
	HintPinned   bool
	DescFrom     int
	DescTo       int
	DescOK       bool
	MainThread   int
	LastSide     int
	Meta         transcript.Meta
	CustomTitle  bool
	TrimmedMsgs  int
	TrimmedNodes int
	Boundary     int
	SideBoundary int
	ForwardRef   bool
	Preserved    []int
	Frame        jsonl.Frame
	// HintNode is the row at HintAt a last-prompt names, kept when it
	// lies before First.
	HintAt   int
	HintNode *suspendedNode
}

func ptr[T any](v T) *T { return &v }

type suspendedNode struct {
	Kind                          transcript.RecordKind
	Typ, Subtype, UUID, Parent    string
	HasParent                     bool
	LogicalParent, Source         string
	Sidechain, Meta, Conversation bool
	Msg                           *transcript.Message
	Leaf                          string
	Pinned                        bool
	Kept                          *suspendedKept
}

type suspendedKept struct {
	Anchor     string
	UUIDs      []string
	Head, Tail string
}

func suspendNode(n *node) suspendedNode {
	w := suspendedNode{Kind: n.kind, Typ: n.typ, Subtype: n.subtype, UUID: n.uuid, Parent: n.parent,
		HasParent: n.hasParent, LogicalParent: n.logicalParent, Source: n.source, Sidechain: n.sidechain, Meta: n.meta,
		Conversation: n.conversation, Msg: n.msg, Leaf: n.leaf, Pinned: n.pinned}
	if k := n.kept; k != nil {
		w.Kept = &suspendedKept{Anchor: k.anchor, UUIDs: k.uuids, Head: k.head, Tail: k.tail}
	}
	return w
}

func (w *suspendedNode) node() node {
	n := node{kind: w.Kind, typ: w.Typ, subtype: w.Subtype, uuid: w.UUID, parent: w.Parent,
		hasParent: w.HasParent, logicalParent: w.LogicalParent, source: w.Source, sidechain: w.Sidechain, meta: w.Meta,
		conversation: w.Conversation, msg: w.Msg, leaf: w.Leaf, pinned: w.Pinned}
	if k := w.Kept; k != nil {
		n.kept = &preservation{anchor: k.Anchor, uuids: k.UUIDs, head: k.Head, tail: k.Tail}
	}
	return n
}

// Suspend implements format.Suspender.
func (Codec) Suspend(t *transcript.Transcript) ([]byte, int, error) {
	st, ok := t.State.(*state)
	if !ok {
		return nil, 0, fmt.Errorf("suspend: not a transcript this codec parsed")
	}
	// The rows the next append's walks start from stay: the leaf, the
	// last conversation rows (the leaf's choice steps back from them),
	// and every row after the first of them.
	first := min(max(st.trimmedNodes, st.pruned), len(st.nodes))
	for _, i := range []int{st.leaf, st.lastConv, st.lastSide} {
		if i >= st.pruned && i < first {
			first = i
		}
	}
	s := suspended{
		First: first, Len: len(st.nodes), ByUUID: map[string]int{}, ToolNames: map[string]string{},
		Leaf: st.leaf, LastConv: st.lastConv, Hint: st.hint, HintUUID: st.hintUUID, HintPinned: st.hintPinned,
		DescFrom: st.desc.from, DescTo: st.desc.to, DescOK: st.desc.ok,
		MainThread: st.mainThread, LastSide: st.lastSide, Meta: st.meta, CustomTitle: st.customTitle,
		TrimmedMsgs: st.trimmedMsgs, TrimmedNodes: st.trimmedNodes, Boundary: st.boundary, SideBoundary: st.sideBoundary, ForwardRef: st.forwardRef,
	}
	for i := range st.preservedRows {
		s.Preserved = append(s.Preserved, i)
	}
	if f, ok := t.Frame.(*jsonl.Frame); ok && f != nil {
		s.Frame = *f
	}
	// The row a last-prompt names is looked up on every append.
	if h, ok := st.byUUID[st.hintUUID]; ok && st.hint >= 0 && h < first && h >= st.pruned && h < len(st.nodes) {
		s.HintAt, s.HintNode = h, ptr(suspendNode(&st.nodes[h]))
	}
	s.Nodes = make([]suspendedNode, 0, len(st.nodes)-first)
	for i := first; i < len(st.nodes); i++ {
		n := &st.nodes[i]
		s.Nodes = append(s.Nodes, suspendNode(n))
		if n.msg != nil {
			for _, p := range n.msg.Parts {
				if p.Kind == transcript.PartToolCall {
					if name, ok := st.toolNames[p.ToolCallID]; ok {
						s.ToolNames[p.ToolCallID] = name
					}
				}
			}
		}
	}
	for uuid, i := range st.byUUID {
		if i >= first && i < len(st.nodes) || s.HintNode != nil && i == s.HintAt {
			s.ByUUID[uuid] = i
		}
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseArrayEncodedStructs(true)
	if err := enc.Encode(&s); err != nil {
		return nil, 0, fmt.Errorf("suspend: %w", err)
	}
	return buf.Bytes(), first, nil
}

// Resume implements format.Suspender.
func (Codec) Resume(t *transcript.Transcript, data []byte) error {
	var s suspended
	if err := msgpack.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if s.First < 0 || s.First > s.Len || s.Len-s.First != len(s.Nodes) || s.Len != len(t.Records) {
		return fmt.Errorf("resume: the state describes %d records, the transcript has %d: %w", s.Len, len(t.Records), format.ErrTrimmed)
	}
	st := &state{
		nodes: make([]node, s.Len, s.Len+s.Len/8), byUUID: s.ByUUID, toolNames: s.ToolNames,
		leaf: s.Leaf, lastConv: s.LastConv, hint: s.Hint, hintUUID: s.HintUUID, hintPinned: s.HintPinned,
		desc:       descent{from: s.DescFrom, to: s.DescTo, ok: s.DescOK},
		mainThread: s.MainThread, lastSide: s.LastSide, meta: s.Meta, customTitle: s.CustomTitle,
		trimmedMsgs: s.TrimmedMsgs, trimmedNodes: s.TrimmedNodes, pruned: s.First,
		boundary: s.Boundary, sideBoundary: s.SideBoundary, forwardRef: s.ForwardRef,
	}
	if len(s.Preserved) > 0 {
		st.preservedRows = make(map[int]bool, len(s.Preserved))
		for _, i := range s.Preserved {
			st.preservedRows[i] = true
		}
	}
	if st.byUUID == nil {
		st.byUUID = map[string]int{}
	}
	if st.toolNames == nil {
		st.toolNames = map[string]string{}
	}
	for k := range s.Nodes {
		st.nodes[s.First+k] = s.Nodes[k].node()
	}
	if n := s.HintNode; n != nil && s.HintAt >= 0 && s.HintAt < s.First {
		st.nodes[s.HintAt] = n.node()
	}
	frame := s.Frame
	t.Frame, t.State, t.Meta = &frame, st, s.Meta
	return nil
}
