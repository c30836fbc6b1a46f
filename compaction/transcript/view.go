package transcript

// A View is a compacted rendering of a Transcript: the messages that remain,
// in order, with parts removed or replaced, and optionally a summary standing
// in for the history that was cut. Strategies produce Views; codecs write
// them back in the source's own format (Fork).
//
// Messages are copies: a strategy may change a message's Parts (setting
// Part.Changed when it rewrites Text or Args) without touching the source.
// A message whose Parts all still match the source is written back from its
// original records byte for byte.
type View struct {
	Source   *Transcript
	Messages []Message
	// Summaries stand in for archived history. Codecs write them the way
	// the format expects (Claude isCompactSummary after a compact_boundary,
	// Codex compacted.message, jp compaction.summary, a plain user message
	// for API arrays).
	Summaries []Summary
	// Cut is true when leading history was removed, so formats that mark
	// such cuts (Claude compact_boundary) do so even without a summary.
	Cut bool
}

// A Summary stands for messages removed from the view.
type Summary struct {
	Text string
	// Before is the index in View.Messages the summary is placed before.
	Before int
	// FromTurn and ToTurn are the source turns it covers, [FromTurn, ToTurn).
	FromTurn, ToTurn int
}

// NewView returns a View showing every message of t unchanged.
func NewView(t *Transcript) *View {
	msgs := make([]Message, len(t.Messages))
	for i, m := range t.Messages {
		m.Parts = append([]Part(nil), m.Parts...)
		msgs[i] = m
	}
	return &View{Source: t, Messages: msgs}
}

// Clone returns a deep copy of v's message list so a strategy can edit it.
func (v *View) Clone() *View {
	out := &View{Source: v.Source, Cut: v.Cut, Summaries: append([]Summary(nil), v.Summaries...)}
	out.Messages = make([]Message, len(v.Messages))
	for i, m := range v.Messages {
		m.Parts = append([]Part(nil), m.Parts...)
		m.Records = append([]int(nil), m.Records...)
		out.Messages[i] = m
	}
	return out
}

// Turns returns the turns of the view's messages.
func (v *View) Turns() []Turn { return BuildTurns(v.Messages) }

// UnchangedPrefix returns how many leading messages of the view are the
// source's leading messages, untouched. API-reported usage on a message
// describes the context up to it, so it stays true in a fork only inside
// this prefix, and codecs of API dumps drop it from later messages. Codecs
// of agent sessions (Claude Code, Gemini CLI) drop it everywhere: the
// agent resumes a fork as a new session, whose gauge is its own count plus
// the overhead measured on its source (gauge.Options.Overhead), never the
// source's last usage.
func (v *View) UnchangedPrefix() int {
	src := v.Source.Messages
	n := 0
	for n < len(v.Messages) && n < len(src) {
		if n == 0 && v.Cut {
			break
		}
		if v.summaryBefore(n) || !sameMessage(&v.Messages[n], &src[n]) {
			break
		}
		n++
	}
	return n
}

func (v *View) summaryBefore(i int) bool {
	for _, s := range v.Summaries {
		if s.Before <= i {
			return true
		}
	}
	return false
}

func sameMessage(a, b *Message) bool {
	if len(a.Records) != len(b.Records) || len(a.Parts) != len(b.Parts) {
		return false
	}
	for i := range a.Records {
		if a.Records[i] != b.Records[i] {
			return false
		}
	}
	for i := range a.Parts {
		if a.Parts[i].Changed || a.Parts[i].Ref != b.Parts[i].Ref {
			return false
		}
	}
	return true
}
