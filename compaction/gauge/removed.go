package gauge

import (
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// TurnChange is what a compaction does to one turn of the source.
type TurnChange struct {
	Turn int `json:"turn"`
	// Before is the turn's tokens in the source, After what remains of it
	// in the compacted view (summaries standing for it included).
	Before int `json:"before"`
	After  int `json:"after"`
}

// Removed is what the compaction took from the turn.
func (c TurnChange) Removed() int { return c.Before - c.After }

// TurnChanges maps a compacted view of t back onto t's turns: for each
// turn, its tokens before (counts[i] for t.Messages[i]) and after. A view
// message is the source message whose first record it keeps; count counts
// a view message as it is now (its parts may be stripped). A summary's
// tokens go to the first turn it stands for.
func TurnChanges(t *transcript.Transcript, counts []tokens.Count, v *transcript.View, count func(*transcript.Message) int, countText func(string) int) []TurnChange {
	turns := t.Turns
	if turns == nil {
		turns = transcript.BuildTurns(t.Messages)
	}
	out := make([]TurnChange, len(turns))
	// The source message of each record's first occurrence.
	byRecord := make(map[int]int, len(t.Messages))
	for i := range t.Messages {
		if rs := t.Messages[i].Records; len(rs) > 0 {
			byRecord[rs[0]] = i
		}
	}
	for k, tu := range turns {
		out[k].Turn = k
		for i := tu.Start; i < tu.End && i < len(counts); i++ {
			out[k].Before += counts[i].N
		}
	}
	for i := range v.Messages {
		m := &v.Messages[i]
		if len(m.Records) == 0 {
			continue
		}
		src, ok := byRecord[m.Records[0]]
		if !ok {
			continue
		}
		if k := transcript.TurnOf(turns, src); k >= 0 {
			out[k].After += count(m)
		}
	}
	for _, s := range v.Summaries {
		if s.FromTurn >= 0 && s.FromTurn < len(out) && countText != nil {
			out[s.FromTurn].After += countText(s.Text) + tokens.MessageOverhead
		}
	}
	return out
}
