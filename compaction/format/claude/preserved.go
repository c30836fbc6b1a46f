package claude

// Rows a compaction preserved.
//
// Claude Code's /compact (2.1.3xx) keeps the last rows before it verbatim:
// its compact_boundary lists them (compactMetadata.preservedMessages, or
// preservedSegment from head to tail) with an anchor, the summary row
// after the boundary. The rows stay where they were written, before the
// boundary, and keep their parents; resuming, Claude Code's loader links
// them after the anchor, and what hung from the anchor after them. So the
// model sees the summary, the preserved rows, then what followed.

// preservation is what a compact boundary says it preserved.
type preservation struct {
	// anchor is the row the preserved rows follow (the summary).
	anchor string
	// uuids are the rows in order, when the boundary lists them.
	uuids []string
	// head and tail bound the segment otherwise: from tail back along
	// parents to head.
	head, tail string
}

func preservationOf(list *struct {
	AnchorUUID string   `json:"anchorUuid"`
	UUIDs      []string `json:"uuids"`
}, seg *struct {
	HeadUUID   string `json:"headUuid"`
	AnchorUUID string `json:"anchorUuid"`
	TailUUID   string `json:"tailUuid"`
}) *preservation {
	switch {
	case list != nil && list.AnchorUUID != "":
		return &preservation{anchor: list.AnchorUUID, uuids: list.UUIDs}
	case seg != nil && seg.AnchorUUID != "" && seg.HeadUUID != "" && seg.TailUUID != "":
		return &preservation{anchor: seg.AnchorUUID, head: seg.HeadUUID, tail: seg.TailUUID}
	}
	return nil
}

// preserved resolves what boundary b preserved to rows of s, in order;
// nil when it preserved nothing or names a row the file lacks (Claude Code
// then links nothing).
func (s *state) preserved(b int) []int {
	p := s.nodes[b].kept
	if p == nil {
		return nil
	}
	var out []int
	if p.uuids != nil {
		for _, u := range p.uuids {
			i, ok := s.lookup(u)
			if !ok {
				return nil
			}
			out = append(out, i)
		}
		return out
	}
	seen := map[int]bool{}
	for i, ok := s.lookup(p.tail); ok && !seen[i]; {
		seen[i] = true
		out = append(out, i)
		if s.nodes[i].uuid == p.head {
			for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
				out[l], out[r] = out[r], out[l]
			}
			return out
		}
		n := &s.nodes[i]
		if !n.hasParent || n.parent == "" {
			break
		}
		i, ok = s.lookup(n.parent)
	}
	return nil
}
