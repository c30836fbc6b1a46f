package jsonx

import "github.com/compactd/compactd/compaction/transcript"

// A Slot is one element of a forked record array, in output order: a view
// message, a summary, or a source record the model never saw (unknown
// record types, metadata) passed through where it stood.
type Slot struct {
	// Message indexes View.Messages, or is -1.
	Message int
	// Summary indexes View.Summaries, or is -1.
	Summary int
	// Record is a source record copied as is, or -1.
	Record int
}

// PlanFork orders a view's output elements. Summaries go before the
// message they name. A record that belongs to no source message is kept
// when the next source message is kept (or, after the last message, when
// the last message is kept), so unknown records survive with the history
// around them and vanish with cut history. skip lists source records that
// must not be passed through (records the codec writes itself).
func PlanFork(v *transcript.View, skip map[int]bool) []Slot {
	src := v.Source
	inView := map[int]bool{}
	for _, m := range v.Messages {
		for _, r := range m.Records {
			inView[r] = true
		}
	}
	owned := map[int]bool{}
	for _, m := range src.Messages {
		for _, r := range m.Records {
			owned[r] = true
		}
	}
	// Passthrough records attach to the next message record in file order.
	attach := map[int][]int{} // message record → passthrough records before it
	var pending, tail []int
	lastMsgRec := -1
	for r := range src.Records {
		if skip[r] {
			continue
		}
		if owned[r] {
			attach[r] = append(attach[r], pending...)
			pending = nil
			lastMsgRec = r
			continue
		}
		pending = append(pending, r)
	}
	if lastMsgRec < 0 || inView[lastMsgRec] {
		tail = pending
	}
	var out []Slot
	summariesAt := func(i int) {
		for s := range v.Summaries {
			if v.Summaries[s].Before == i {
				out = append(out, Slot{Message: -1, Summary: s, Record: -1})
			}
		}
	}
	for i, m := range v.Messages {
		summariesAt(i)
		if len(m.Records) > 0 {
			for _, r := range attach[m.Records[0]] {
				out = append(out, Slot{Message: -1, Summary: -1, Record: r})
			}
		}
		out = append(out, Slot{Message: i, Summary: -1, Record: -1})
	}
	summariesAt(len(v.Messages))
	for s := range v.Summaries {
		if b := v.Summaries[s].Before; b < 0 || b > len(v.Messages) {
			out = append(out, Slot{Message: -1, Summary: s, Record: -1})
		}
	}
	for _, r := range tail {
		out = append(out, Slot{Message: -1, Summary: -1, Record: r})
	}
	return out
}

// SourceParts counts each record's parts in the source's messages, so a
// fork can tell whether a view message still holds all of them.
func SourceParts(t *transcript.Transcript) map[int]int {
	n := map[int]int{}
	for _, m := range t.Messages {
		for _, p := range m.Parts {
			n[p.Ref.Record]++
		}
	}
	return n
}

// PartsByRecord groups the source's message parts by record, in order,
// so a fork can re-render a record from all of its parts.
func PartsByRecord(t *transcript.Transcript) map[int][]transcript.Part {
	out := map[int][]transcript.Part{}
	for _, m := range t.Messages {
		for _, p := range m.Parts {
			out[p.Ref.Record] = append(out[p.Ref.Record], p)
		}
	}
	return out
}

// KeptParts groups a view message's parts by record, in order.
func KeptParts(m *transcript.Message) map[int][]transcript.Part {
	out := map[int][]transcript.Part{}
	for _, p := range m.Parts {
		out[p.Ref.Record] = append(out[p.Ref.Record], p)
	}
	return out
}

// Untouched reports whether a record can be copied byte for byte: every
// source part of it is kept and none changed.
func Untouched(kept []transcript.Part, sourceCount int) bool {
	if len(kept) != sourceCount {
		return false
	}
	for _, p := range kept {
		if p.Changed {
			return false
		}
	}
	return true
}

// ByBlock groups parts by their block index, keeping order.
func ByBlock(parts []transcript.Part) (order []int, blocks map[int][]transcript.Part) {
	blocks = map[int][]transcript.Part{}
	for _, p := range parts {
		if _, seen := blocks[p.Ref.Block]; !seen {
			order = append(order, p.Ref.Block)
		}
		blocks[p.Ref.Block] = append(blocks[p.Ref.Block], p)
	}
	return order, blocks
}

// PassUnknownOnly is PlanFork's skip list for a codec that passes through
// only the records of unknown types no source message holds: the others
// (metadata, markers) are what the fork writes itself or drops. current,
// when not nil, also skips the unknown records it says are no longer part
// of the conversation (on a branch left behind).
func PassUnknownOnly(src *transcript.Transcript, current func(rec int) bool) map[int]bool {
	owned := map[int]bool{}
	for _, m := range src.Messages {
		for _, r := range m.Records {
			owned[r] = true
		}
	}
	skip := map[int]bool{}
	for i, r := range src.Records {
		if !owned[i] && (r.Kind != transcript.RecordUnknown || current != nil && !current(i)) {
			skip[i] = true
		}
	}
	return skip
}
