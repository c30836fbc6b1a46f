package transcript

// StartsTurn reports whether m opens a new turn: a prompt typed by a human
// (or a compact summary, which stands in for the history before it).
// Tool results and harness injections travel in user-role messages too but
// continue the current turn.
func StartsTurn(m *Message) bool {
	if m.Role != RoleUser {
		return false
	}
	if m.Origin != OriginHuman && m.Origin != OriginSummary {
		return false
	}
	for _, p := range m.Parts {
		if p.Kind == PartToolResult {
			return false
		}
	}
	return true
}

// BuildTurns splits messages into turns. Messages before the first prompt
// form a turn of their own.
func BuildTurns(msgs []Message) []Turn {
	var turns []Turn
	start := 0
	for i := range msgs {
		if i > start && StartsTurn(&msgs[i]) {
			turns = append(turns, Turn{Start: start, End: i})
			start = i
		}
	}
	if start < len(msgs) {
		turns = append(turns, Turn{Start: start, End: len(msgs)})
	}
	return turns
}

// TurnOf returns the index of the turn holding message i, or -1.
func TurnOf(turns []Turn, i int) int {
	lo, hi := 0, len(turns)
	for lo < hi {
		mid := (lo + hi) / 2
		switch {
		case i < turns[mid].Start:
			hi = mid
		case i >= turns[mid].End:
			lo = mid + 1
		default:
			return mid
		}
	}
	return -1
}

// MessageOfRecord returns the index of the message that holds record r, or -1.
func (t *Transcript) MessageOfRecord(r int) int {
	for i := range t.Messages {
		for _, x := range t.Messages[i].Records {
			if x == r {
				return i
			}
		}
	}
	return -1
}

// LastUsage returns the index of the last message carrying API-reported usage, or -1.
func (t *Transcript) LastUsage() int {
	for i := len(t.Messages) - 1; i >= 0; i-- {
		if t.Messages[i].Usage != nil {
			return i
		}
	}
	return -1
}

// ToolCalls counts tool_call parts in the model-visible messages.
func (t *Transcript) ToolCalls() int {
	n := 0
	for i := range t.Messages {
		for _, p := range t.Messages[i].Parts {
			if p.Kind == PartToolCall {
				n++
			}
		}
	}
	return n
}
