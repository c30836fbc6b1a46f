package strategy

import (
	"errors"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// Invariant violations, as named in Check's errors.
const (
	violOrphanResult = "tool result without its call"
	violDanglingCall = "tool call without its result"
	violSplitPair    = "tool result not right after its call"
	violSignedEdited = "signed or opaque content altered"
	violReasoning    = "reasoning item separated from the item that follows it"
	violAlternation  = "two adjacent messages with the same role"
)

type violation struct {
	kind      string
	msg, part int
	// partner is the other half of a split pair.
	partner loc
	detail  string
}

// sourceIndex maps view messages and parts back to the source.
type sourceIndex struct {
	src *transcript.Transcript
	// byRecord lists the source messages decoded from each first record:
	// usually one, but a record may hold several (Gemini CLI's model
	// message with its tool calls' results is an assistant message and a
	// user one).
	byRecord map[int][]int
}

func newSourceIndex(t *transcript.Transcript) *sourceIndex {
	x := &sourceIndex{src: t, byRecord: make(map[int][]int, len(t.Messages))}
	for i, m := range t.Messages {
		if len(m.Records) > 0 {
			x.byRecord[m.Records[0]] = append(x.byRecord[m.Records[0]], i)
		}
	}
	return x
}

func (x *sourceIndex) message(m *transcript.Message) int {
	if len(m.Records) == 0 {
		return -1
	}
	candidates := x.byRecord[m.Records[0]]
	if len(candidates) <= 1 {
		if len(candidates) == 0 {
			return -1
		}
		return candidates[0]
	}
	// Of the messages one record holds, the one with the same role and a
	// part in common; else the first with the same role.
	same := -1
	for _, i := range candidates {
		sm := &x.src.Messages[i]
		if sm.Role != m.Role {
			continue
		}
		if same < 0 {
			same = i
		}
		for _, p := range m.Parts {
			for _, sp := range sm.Parts {
				if sp.Ref == p.Ref {
					return i
				}
			}
		}
	}
	if same >= 0 {
		return same
	}
	return candidates[0]
}

func (x *sourceIndex) part(si int, p *transcript.Part) int {
	if si < 0 {
		return -1
	}
	// A rewritten part keeps its Ref but may change kind (an image that
	// became a text stand-in); same kind wins when a Ref is shared.
	found := -1
	parts := x.src.Messages[si].Parts
	for j := range parts {
		if parts[j].Ref != p.Ref || parts[j].ToolCallID != p.ToolCallID {
			continue
		}
		if parts[j].Kind == p.Kind {
			return j
		}
		if found < 0 && p.Changed {
			found = j
		}
	}
	return found
}

// answeredCalls lists the call ids t holds a result for.
func answeredCalls(t *transcript.Transcript) map[string]bool {
	answered := map[string]bool{}
	for i := range t.Messages {
		for _, p := range t.Messages[i].Parts {
			if p.Kind == transcript.PartToolResult && p.ToolCallID != "" {
				answered[p.ToolCallID] = true
			}
		}
	}
	return answered
}

// findViolations checks msgs (a view of src) against the API invariants.
// answered names the calls whose result a dangling call lost: a call its
// source never answered is not compaction's doing (Cursor's agent
// transcripts record tool calls and never their results).
func findViolations(msgs []transcript.Message, src *transcript.Transcript, x *sourceIndex, answered map[string]bool) []violation {
	var out []violation
	rules := format.RulesOf(src.Format)
	type callAt struct {
		loc
		answered bool
	}
	calls := map[string]*callAt{}
	var order []string
	// lastAssistant is the index of the latest assistant message seen.
	lastAssistant := -1
	for i := range msgs {
		m := &msgs[i]
		for j := range m.Parts {
			p := &m.Parts[j]
			if p.ToolCallID == "" {
				continue
			}
			switch p.Kind {
			case transcript.PartToolCall:
				if _, dup := calls[p.ToolCallID]; !dup {
					order = append(order, p.ToolCallID)
				}
				calls[p.ToolCallID] = &callAt{loc: loc{i, j}}
			case transcript.PartToolResult:
				c := calls[p.ToolCallID]
				switch {
				case c == nil || c.answered:
					out = append(out, violation{kind: violOrphanResult, msg: i, part: j, detail: p.ToolCallID})
				case rules.AdjacentResults && lastAssistant > c.msg:
					c.answered = true
					out = append(out, violation{kind: violSplitPair, msg: i, part: j, partner: c.loc, detail: p.ToolCallID})
				default:
					c.answered = true
				}
			}
		}
		if m.Role == transcript.RoleAssistant {
			lastAssistant = i
		}
	}
	for _, id := range order {
		c := calls[id]
		if c.answered || pendingAtEnd(msgs, c.msg) || !answered[id] {
			continue
		}
		out = append(out, violation{kind: violDanglingCall, msg: c.msg, part: c.part, detail: id})
	}

	// Signed and opaque parts must match the source byte for byte, and
	// reasoning must keep its source successor where the API binds them.
	type ident struct{ msg, part int }
	var flat []ident
	srcOf := make([][]int, len(msgs))
	for i := range msgs {
		si := x.message(&msgs[i])
		srcOf[i] = make([]int, len(msgs[i].Parts))
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			pj := x.part(si, p)
			srcOf[i][j] = pj
			flat = append(flat, ident{i, j})
			if !(p.Signed || p.Kind == transcript.PartOpaque) {
				continue
			}
			if pj < 0 {
				out = append(out, violation{kind: violSignedEdited, msg: i, part: j, detail: "no source part"})
				continue
			}
			sp := &src.Messages[si].Parts[pj]
			if p.Changed || p.Text != sp.Text || p.Opaque != sp.Opaque || p.Kind != sp.Kind {
				out = append(out, violation{kind: violSignedEdited, msg: i, part: j})
			}
		}
	}
	if rules.ReasoningBound {
		for k, id := range flat {
			p := &msgs[id.msg].Parts[id.part]
			if p.Kind != transcript.PartReasoning && p.Kind != transcript.PartOpaque {
				continue
			}
			si, pj := x.message(&msgs[id.msg]), srcOf[id.msg][id.part]
			if si < 0 || pj < 0 {
				continue
			}
			want, ok := sourceSuccessor(src, si, pj)
			if !ok {
				continue
			}
			got := ident{-1, -1}
			if k+1 < len(flat) {
				n := flat[k+1]
				got = ident{x.message(&msgs[n.msg]), srcOf[n.msg][n.part]}
			}
			if got != ident(want) {
				out = append(out, violation{kind: violReasoning, msg: id.msg, part: id.part})
			}
		}
	}
	if rules.Alternation {
		for i := 1; i < len(msgs); i++ {
			a, b := &msgs[i-1], &msgs[i]
			if a.Role != b.Role || (a.Role != transcript.RoleUser && a.Role != transcript.RoleAssistant) {
				continue
			}
			if sa, sb := x.message(a), x.message(b); sa >= 0 && sb == sa+1 {
				continue // adjacent in the source too: not ours to fix
			}
			out = append(out, violation{kind: violAlternation, msg: i, part: -1})
		}
	}
	return out
}

// pendingAtEnd reports whether a call in message i is still running: no
// assistant message and no new prompt follows it.
func pendingAtEnd(msgs []transcript.Message, i int) bool {
	for k := i + 1; k < len(msgs); k++ {
		if msgs[k].Role == transcript.RoleAssistant || transcript.StartsTurn(&msgs[k]) {
			return false
		}
	}
	return true
}

// sourceSuccessor is the part after source part (si, pj) in message order.
func sourceSuccessor(src *transcript.Transcript, si, pj int) (loc, bool) {
	if pj+1 < len(src.Messages[si].Parts) {
		return loc{si, pj + 1}, true
	}
	for k := si + 1; k < len(src.Messages); k++ {
		if len(src.Messages[k].Parts) > 0 {
			return loc{k, 0}, true
		}
	}
	return loc{}, false
}

// Check verifies that a view satisfies the API invariants of its source's
// format: every tool result has its call (and, for Anthropic-style APIs,
// comes right after it), every call has its result unless it is still
// running at the end, signed reasoning and opaque content are byte-exact,
// OpenAI reasoning items keep the item that followed them, and roles
// alternate where the API needs it. The error lists every violation.
func Check(v *transcript.View) error {
	if v == nil || v.Source == nil {
		return errors.New("check: view has no source transcript")
	}
	return violationsError(findViolations(v.Messages, v.Source, newSourceIndex(v.Source), answeredCalls(v.Source)))
}

// CheckFork verifies a fork, re-parsed, the way CheckTranscript does, with
// one difference: a call the original answered must be answered in the
// fork too. Checked against itself, a fork whose codec wrote a result as
// something else (a Codex output as a user message) would pass, its call
// left without the result the original gave it.
//
// Both are read as their agent reads them on resume where its codec says
// how (format.Loader: Claude Code joins tool results that hang off its
// parentUuid chain): checked on compactd's own parse, a fork that lost
// such a result passed when the parse of the source had lost it too.
func CheckFork(fork, original *transcript.Transcript) error {
	if fork == nil || original == nil {
		return errors.New("check: no transcript")
	}
	seen, err := agentReading(fork)
	if err != nil {
		return fmt.Errorf("check: the agent cannot load it: %w", err)
	}
	if o, err := agentReading(original); err == nil {
		original = o
	}
	return violationsError(findViolations(seen.Messages, seen, newSourceIndex(seen), answeredCalls(original)))
}

// agentReading is t as its agent reads it on resume: what the codec's
// Loader rebuilds, else t itself.
func agentReading(t *transcript.Transcript) (*transcript.Transcript, error) {
	c, ok := format.Lookup(t.Format)
	if !ok {
		return t, nil
	}
	l, ok := c.(format.Loader)
	if !ok {
		return t, nil
	}
	msgs, err := l.Load(t)
	if err != nil {
		return nil, err
	}
	return &transcript.Transcript{Format: t.Format, Meta: t.Meta, Messages: msgs}, nil
}

func violationsError(viols []violation) error {
	if len(viols) == 0 {
		return nil
	}
	const show = 20
	errs := make([]error, 0, show+1)
	for k, vi := range viols {
		if k == show {
			errs = append(errs, fmt.Errorf("and %d more violations", len(viols)-show))
			break
		}
		msg := fmt.Sprintf("message %d: %s", vi.msg, vi.kind)
		if vi.detail != "" {
			msg += " (" + vi.detail + ")"
		}
		errs = append(errs, errors.New(msg))
	}
	return fmt.Errorf("%d invariant violations: %w", len(viols), errors.Join(errs...))
}

// CheckTranscript verifies a parsed transcript (a fork re-parsed) the same
// way Check verifies a view, read as its agent reads it (see CheckFork).
func CheckTranscript(t *transcript.Transcript) error {
	if t == nil {
		return errors.New("check: no transcript")
	}
	seen, err := agentReading(t)
	if err != nil {
		return fmt.Errorf("check: the agent cannot load it: %w", err)
	}
	return Check(transcript.NewView(seen))
}

// sanitize repairs the working view until it satisfies Check, removing the
// fewest parts: an orphan result or a dangling call goes alone, a split
// pair goes together, altered signed content and detached reasoning go
// whole. It may touch the keep-last turns: the API's rules come first.
func (r *run) sanitize() Step {
	before := r.total()
	removed := 0
	x := newSourceIndex(r.src)
	answered := answeredCalls(r.src)
	for pass := 0; pass < 8; pass++ {
		viols := findViolations(r.msgs, r.src, x, answered)
		fixed := 0
		for _, v := range viols {
			switch v.kind {
			case violOrphanResult, violDanglingCall, violSignedEdited, violReasoning:
				fixed += r.removePart(v.msg, v.part)
			case violSplitPair:
				fixed += r.removePart(v.msg, v.part)
				fixed += r.removePart(v.partner.msg, v.partner.part)
			}
		}
		if fixed == 0 {
			for _, v := range viols {
				if v.kind == violAlternation {
					r.note("sanitize: message %d follows another of the same role; the %s API may merge or reject them", v.msg, r.src.Format)
				}
			}
			break
		}
		removed += r.flush()
	}
	return Step{Strategy: "sanitize", EventsRemoved: removed, TokensSaved: before - r.total()}
}
