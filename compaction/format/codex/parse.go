package codex

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
// proportional to the new bytes. The calls map is shared between
// successive transcripts and only gains entries; a lookup checks that the
// entry points inside the transcript at hand.
type state struct {
	meta transcript.Meta
	// model is the model of the current turn (turn_context).
	model string
	calls map[string]call
	// system is the message holding the base instructions, which every
	// compaction keeps; nil when the rollout has none.
	system *transcript.Message
	// sawMeta is set by the first session_meta: later ones (a forked
	// rollout copies its parent's) describe other sessions.
	sawMeta bool
	// window is the context window the history belongs to (the window_id
	// of the last compacted record that named one).
	window string
	// trimmed messages lost their parts to Trim.
	trimmed int
	// recorded is the usage the last token_usage_record attached: the
	// token_count written after the response's tool outputs repeats it.
	recorded tokenUsage
}

type call struct {
	name string
	rec  int
}

func (s *state) clone() *state {
	c := *s
	return &c
}

// Detach implements format.Trimmer: the map successive transcripts
// share, copied.
func (Codec) Detach(t *transcript.Transcript) *transcript.Transcript {
	st, ok := t.State.(*state)
	if !ok {
		return format.Detached(t, t.State)
	}
	c := st.clone()
	c.calls = maps.Clone(st.calls)
	return format.Detached(t, c)
}

func empty() *transcript.Transcript {
	return &transcript.Transcript{Format: transcript.FormatCodex, State: &state{calls: map[string]call{}}, Frame: &jsonl.Frame{}}
}

// builder accumulates one Append's effect on the message list, copying the
// previous transcript's messages before changing any of them.
type builder struct {
	msgs []transcript.Message
	// shared is how many leading elements of msgs belong to the previous
	// transcript.
	shared int
	// replaced is set when a compaction replaced the history.
	replaced bool
	// kept is how many leading messages of the previous transcript are
	// still exactly as they were (Transcript.Kept).
	kept int
}

// own copies the previous transcript's messages before message i of them
// changes (a token_count attaching usage to the last answer).
func (b *builder) own(i int) {
	b.kept = min(b.kept, i)
	if b.shared > 0 {
		b.msgs = slices.Clone(b.msgs)
		b.shared = 0
	}
}

func (c Codec) append(prev *transcript.Transcript, tail []byte, whole bool) (*transcript.Transcript, error) {
	ps := prev.State.(*state)
	st := ps.clone()
	pf, _ := prev.Frame.(*jsonl.Frame)
	if pf == nil {
		pf = &jsonl.Frame{}
	}
	t := &transcript.Transcript{
		Format:   transcript.FormatCodex,
		Records:  prev.Records,
		Problems: prev.Problems,
		Skipped:  prev.Skipped,
		Size:     prev.Size,
	}
	oldLen := len(prev.Records)
	b := builder{msgs: prev.Messages, shared: len(prev.Messages), kept: len(prev.Messages)}

	consume := tail
	if !whole {
		// Only complete lines: the rest waits for the writer to finish.
		consume = jsonl.CompleteLines(tail)
	}
	type result struct {
		d   decoded
		err error
		k   int
	}
	runs := jsonl.NewRuns(consume, prev.Size)
	fr, consumed := jsonl.SplitParallel(*pf, consume, prev.Size, oldLen, pf.Lines(oldLen), func(k int, l jsonl.Line) result {
		d, err := decodeLine(l.Raw, oldLen+k)
		return result{d, err, k}
	}, func(l jsonl.Line, r result) jsonl.Verdict {
		idx := len(t.Records)
		d, err := r.d, r.err
		if err != nil && !l.Terminated {
			return jsonl.Wait // a write in progress: keep it for Write, do not consume it
		}
		d.rec.Start, d.rec.End = l.Start, l.End
		// A line of a type Codex does not write with no id: apply reads
		// nothing from it.
		if runs.Join(t, l, &d.rec, err != nil || d.rec.Kind == transcript.RecordUnknown && d.rec.ID == "") {
			return jsonl.Join
		}
		if predicted := oldLen + r.k; predicted != idx {
			jsonl.Renumber(d.msg, predicted, idx)
			for i := range d.replacement {
				jsonl.Renumber(&d.replacement[i], predicted, idx)
			}
		}
		t.Records = append(t.Records, d.rec)
		if err != nil {
			t.Skipped++
			t.Problems = append(t.Problems, transcript.Problem{Record: idx, Line: l.Number, Message: fmt.Sprintf("line %d: %v", l.Number, err)})
			return jsonl.Take
		}
		st.apply(&b, t, idx, &d)
		return jsonl.Take
	})
	runs.Finish(t)
	t.Size = prev.Size + int64(consumed)
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
	t.Messages = b.msgs
	if !b.replaced {
		t.Kept = b.kept
	}
	if b.replaced {
		t.Turns = transcript.BuildTurns(t.Messages)
	} else {
		t.Turns = extendTurns(prev.Turns, t.Messages, len(prev.Messages))
	}
	return t, nil
}

// apply records what a decoded line says about the session and the
// model-visible history.
func (s *state) apply(b *builder, t *transcript.Transcript, idx int, d *decoded) {
	switch {
	case d.meta != nil:
		if s.sawMeta {
			return
		}
		s.sawMeta = true
		m := &s.meta
		m.SessionID = d.rec.ID
		m.Cwd = d.meta.Cwd
		m.ForkedFrom = d.meta.ForkedFromID
		m.AgentVersion = d.meta.CLIVersion
		if text := instructionsText(d.meta); text != "" {
			sys := transcript.Message{Role: transcript.RoleSystem, Origin: transcript.OriginInjected, Timestamp: d.ts, Records: []int{idx}, Pinned: true,
				Parts: []transcript.Part{{Kind: transcript.PartText, Text: text, Ref: transcript.Ref{Record: idx, Block: -1}}}}
			s.system = &sys
			b.msgs = append(b.msgs, sys)
			t.Records[idx].Kind = transcript.RecordMessage
		}
	case d.turn != nil:
		if d.turn.Model != "" {
			s.model, s.meta.Model = d.turn.Model, d.turn.Model
		}
		if s.meta.Cwd == "" {
			s.meta.Cwd = d.turn.Cwd
		}
	case d.msg != nil:
		m := *d.msg
		if m.Role == transcript.RoleAssistant {
			m.Model = s.model
		}
		m.Parts = s.named(m.Parts, idx, len(t.Records))
		b.msgs = append(b.msgs, m)
	case d.event != nil:
		s.applyEvent(b, d.event)
	case d.compaction != nil:
		// The history is replaced wholesale; the base instructions are
		// sent with every request and stay. A new context window starts
		// from them alone when the record carries nothing else.
		c := d.compaction
		newWindow := c.WindowID != "" && c.WindowID != s.window && (s.window != "" || c.PreviousWindowID != "" || c.WindowNumber > 1)
		if c.WindowID != "" {
			s.window = c.WindowID
		}
		if !hasReplacement(c) && c.Message == "" && !newWindow {
			return // a marker that states nothing: the history stands
		}
		msgs := make([]transcript.Message, 0, len(d.replacement)+1)
		if s.system != nil {
			msgs = append(msgs, *s.system)
		}
		for _, m := range d.replacement {
			if m.Role == transcript.RoleAssistant {
				m.Model = s.model
			}
			m.Parts = s.named(m.Parts, idx, len(t.Records))
			msgs = append(msgs, m)
		}
		b.msgs, b.shared, b.replaced, b.kept = msgs, 0, true, 0
		s.trimmed = 0 // a new message list, every message whole
	}
}

func (s *state) applyEvent(b *builder, ev *event) {
	switch ev.Type {
	case typeTokenUsageRecord:
		// Written right after the response's items, before its tools run
		// (Codex 0.169): the usage belongs to that response, and a tool
		// compactd serves mid-turn (context_status) sees it there.
		if u := ev.Usage; u != nil && u.Total > 0 && len(b.msgs) > 0 {
			s.attachUsage(b, u)
			s.recorded = *u
		}
	case "token_count":
		if ev.Info == nil {
			return
		}
		if ev.Info.ModelContextWindow > 0 {
			s.meta.ContextWindow = ev.Info.ModelContextWindow
		}
		u := ev.Info.LastTokenUsage
		if u == nil || (u.Total == 0 && u.Input == 0) || len(b.msgs) == 0 {
			return
		}
		if *u == s.recorded {
			// The token_usage_record before it attached this usage to
			// its response already.
			s.recorded = tokenUsage{}
			return
		}
		s.attachUsage(b, u)
	case "task_started":
		if ev.ModelContextWindow > 0 {
			s.meta.ContextWindow = ev.ModelContextWindow
		}
	case "thread_name_updated":
		if ev.ThreadName != "" {
			s.meta.Title = ev.ThreadName
		}
	case "thread_rolled_back":
		rollBack(b, ev.NumTurns)
	}
}

// rollBack drops the last n user turns from the history, as Codex does
// when it rebuilds a rollout holding a thread_rolled_back (the user
// backtracked to an earlier message, or a client called thread/rollback):
// everything from the n-th last message the user typed on, and the
// context updates Codex injected just before it. Messages before the
// user's first stay; n beyond the user's turns keeps only those.
func rollBack(b *builder, n int) {
	if n <= 0 {
		return
	}
	var users []int
	for i := range b.msgs {
		if m := &b.msgs[i]; m.Origin == transcript.OriginHuman && transcript.StartsTurn(m) {
			users = append(users, i)
		}
	}
	if len(users) == 0 {
		return
	}
	cut := users[0]
	if n < len(users) {
		cut = users[len(users)-n]
	}
	for cut > users[0] && b.msgs[cut-1].Origin == transcript.OriginInjected && !b.msgs[cut-1].Pinned {
		cut--
	}
	b.msgs = slices.Clone(b.msgs[:cut])
	b.shared, b.replaced, b.kept = 0, true, min(b.kept, cut)
}

// attachUsage gives the last message the usage of the response that
// ended with it.
func (s *state) attachUsage(b *builder, u *tokenUsage) {
	// OpenAI's input_tokens include the cached ones; Usage counts them
	// apart, like Anthropic's.
	usage := &transcript.Usage{Input: max(u.Input-u.Cached, 0), CacheRead: min(u.Cached, u.Input), Output: u.Output, Reasoning: u.Reasoning, Total: u.Total}
	last := len(b.msgs) - 1
	if last < b.shared {
		b.own(last)
	}
	b.kept = min(b.kept, last)
	b.msgs[last].Usage = usage
}

// named records tool names of calls and fills them in on results. records
// is the length of the transcript being built: entries past it come from
// another transcript extended from the same one.
func (s *state) named(parts []transcript.Part, idx, records int) []transcript.Part {
	for k := range parts {
		p := &parts[k]
		switch p.Kind {
		case transcript.PartToolCall:
			if p.ToolCallID != "" {
				s.calls[p.ToolCallID] = call{name: p.ToolName, rec: idx}
			}
		case transcript.PartToolResult:
			if c, ok := s.calls[p.ToolCallID]; ok && p.ToolName == "" && c.rec < records {
				p.ToolName = c.name
			}
		}
	}
	return parts
}

// extendTurns recomputes only the last turn onwards.
func extendTurns(prev []transcript.Turn, msgs []transcript.Message, oldMsgs int) []transcript.Turn {
	start, keep := 0, 0
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
