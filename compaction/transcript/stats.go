package transcript

// Stats are the figures over a transcript's messages that a live gauge
// shows on every change. StatsOf walks every message; Advance carries the
// figures from one parse of a growing file to the next in time
// proportional to what changed, which keeps an append to a huge
// transcript as cheap as one to a small one.
type Stats struct {
	// Messages is how many messages the figures cover.
	Messages int
	// ToolCalls counts tool_call parts.
	ToolCalls int
	// LastUsage is the index of the last message carrying API-reported
	// usage, -1 when none does.
	LastUsage int
	// Model is what the last message naming a model names ("<synthetic>"
	// excluded), at index ModelAt; "" and -1 when none does.
	Model   string
	ModelAt int
}

// StatsOf computes the figures of msgs.
func StatsOf(msgs []Message) Stats {
	return Stats{LastUsage: -1, ModelAt: -1}.Advance(nil, msgs, 0)
}

// Advance returns the figures of next from s, the figures of prev, when
// next's first kept messages are prev's unchanged (Transcript.Kept after
// an incremental parse). Only prev[kept:] and next[kept:] are read,
// except when the last usage or model lay in the changed part and next's
// changed part has none: then the search goes on backwards from kept.
// Figures that do not describe prev (s.Messages != len(prev)) are
// recomputed from scratch.
func (s Stats) Advance(prev, next []Message, kept int) Stats {
	if s.Messages != len(prev) || kept < 0 || kept > len(prev) || kept > len(next) {
		return StatsOf(next)
	}
	if s.Messages == 0 {
		// The zero Stats describe no messages: nothing to carry over.
		s.LastUsage, s.ModelAt, s.Model = -1, -1, ""
	}
	out := Stats{Messages: len(next), ToolCalls: s.ToolCalls - toolCalls(prev[kept:]) + toolCalls(next[kept:]), LastUsage: -1, ModelAt: -1}

	// The last usage: in the changed part if any; else the previous one
	// if it lies in the kept part; else search the kept part backwards.
	if i := lastUsage(next, kept, len(next)); i >= 0 {
		out.LastUsage = i
	} else if s.LastUsage < kept {
		out.LastUsage = s.LastUsage
	} else {
		out.LastUsage = lastUsage(next, 0, kept)
	}
	if i := lastModel(next, kept, len(next)); i >= 0 {
		out.ModelAt, out.Model = i, next[i].Model
	} else if s.ModelAt < kept {
		out.ModelAt, out.Model = s.ModelAt, s.Model
	} else if i := lastModel(next, 0, kept); i >= 0 {
		out.ModelAt, out.Model = i, next[i].Model
	}
	return out
}

func toolCalls(msgs []Message) int {
	n := 0
	for i := range msgs {
		for k := range msgs[i].Parts {
			if msgs[i].Parts[k].Kind == PartToolCall {
				n++
			}
		}
	}
	return n
}

// lastUsage returns the last message of msgs[from:to] carrying usage, or -1.
func lastUsage(msgs []Message, from, to int) int {
	for i := to - 1; i >= from; i-- {
		if msgs[i].Usage != nil {
			return i
		}
	}
	return -1
}

// lastModel returns the last message of msgs[from:to] naming a real model, or -1.
func lastModel(msgs []Message, from, to int) int {
	for i := to - 1; i >= from; i-- {
		if m := msgs[i].Model; m != "" && m != "<synthetic>" {
			return i
		}
	}
	return -1
}
