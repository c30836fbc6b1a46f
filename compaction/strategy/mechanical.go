package strategy

import (
	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/transcript"
)

// loc locates a part in the run's messages.
type loc struct{ msg, part int }

var noLoc = loc{-1, -1}

// toolPair is a tool call and its result, as found in the current messages.
type toolPair struct {
	id     string
	name   string
	call   loc
	result loc
	// copies are further results of the same call (Gemini CLI records
	// each tool response twice).
	copies []loc
}

// pairs indexes tool calls in order, with their results. Results without a
// call are left for sanitize.
func (r *run) pairs() []*toolPair {
	var out []*toolPair
	byID := map[string]*toolPair{}
	for i := range r.msgs {
		if r.gone[i] {
			continue
		}
		for j := range r.msgs[i].Parts {
			p := &r.msgs[i].Parts[j]
			if r.tok[i][j] == removedPart || p.ToolCallID == "" {
				continue
			}
			switch p.Kind {
			case transcript.PartToolCall:
				tp := &toolPair{id: p.ToolCallID, name: p.ToolName, call: loc{i, j}, result: noLoc}
				byID[p.ToolCallID] = tp
				out = append(out, tp)
			case transcript.PartToolResult:
				if tp := byID[p.ToolCallID]; tp != nil && tp.result == noLoc {
					tp.result = loc{i, j}
				} else if tp != nil {
					// A second copy of the result (Gemini CLI records each
					// twice): it goes and changes with the first.
					tp.copies = append(tp.copies, loc{i, j})
				}
			}
		}
	}
	return out
}

func (r *run) part(l loc) *transcript.Part { return &r.msgs[l.msg].Parts[l.part] }

// pairEditable reports whether a strategy may change this pair: both halves
// are before the keep-last boundary and outside protected messages.
func (r *run) pairEditable(tp *toolPair) bool {
	for _, l := range []loc{tp.call, tp.result} {
		if l == noLoc {
			continue
		}
		if !r.editable(l.msg) || r.protected[l.msg] {
			return false
		}
	}
	return true
}

// removePair removes a call and its result together.
func (r *run) removePair(tp *toolPair) {
	r.removePart(tp.call.msg, tp.call.part)
	if tp.result != noLoc {
		r.removeResult(tp.result)
	}
	for _, c := range tp.copies {
		r.removeResult(c)
	}
}

// removeResult removes a tool result with the attachments it carries: an
// image a tool returned is a part beside the result, in its record (Codex's
// output list), or nested in its block (Claude Code's tool_result), and
// left alone it would stay without the result it belongs to.
func (r *run) removeResult(l loc) int {
	res := r.part(l)
	n := r.removePart(l.msg, l.part)
	for j := range r.msgs[l.msg].Parts {
		p := &r.msgs[l.msg].Parts[j]
		if j == l.part || p.ToolCallID != "" || p.Ref.Record != res.Ref.Record {
			continue
		}
		if res.Ref.Block < 0 || p.Ref.Block == res.Ref.Block {
			n += r.removePart(l.msg, j)
		}
	}
	return n
}

// stripReasoning drops reasoning and opaque (encrypted, redacted) parts
// whole: signed reasoning may be dropped but never edited.
func (r *run) stripReasoning() (int, error) {
	for i := range r.msgs {
		if !r.editable(i) || r.protected[i] {
			continue
		}
		for j, p := range r.msgs[i].Parts {
			if p.Kind == transcript.PartReasoning || p.Kind == transcript.PartOpaque {
				r.removePart(i, j)
			}
		}
	}
	return 0, nil
}

// StripFloor is the size in tokens below which strip-tool-results leaves a
// result as it is: a placeholder for it would save a few tokens and lose
// what it said ("ok: 2 tests passed", a one-line error).
const StripFloor = 100

// stripToolResults replaces tool output with a one-line placeholder, and
// bulky request arguments where the tool's hint says strip.
func (r *run) stripToolResults() (int, error) {
	stripped := 0
	for _, tp := range r.pairs() {
		if !r.pairEditable(tp) {
			continue
		}
		h := r.hints.get(tp.name)
		call := r.part(tp.call)
		if h.response != HintKeep && tp.result != noLoc && r.tok[tp.result.msg][tp.result.part] >= StripFloor {
			res := r.part(tp.result)
			if !facts.IsPlaceholder(res.Text) {
				text := r.recallable(resultPlaceholder(call, res, r.tok[tp.result.msg][tp.result.part]), res.Text)
				if r.counter.Text(text) < r.tok[tp.result.msg][tp.result.part] {
					r.setText(tp.result.msg, tp.result.part, text)
					stripped++
					for _, c := range tp.copies {
						if r.tok[c.msg][c.part] != removedPart && r.editable(c.msg) && !facts.IsPlaceholder(r.part(c).Text) {
							r.setText(c.msg, c.part, text)
						}
					}
				}
			}
		}
		if h.request == HintStrip {
			if args, ok := stripArgs(call.Args, r.counter.Text, r.recallable); ok {
				r.setArgs(tp.call.msg, tp.call.part, args)
				stripped++
			}
		}
	}
	return stripped, nil
}

// pruneTools removes whole call/result pairs of tools hinted remove. For a
// state tool (its later call subsumes the earlier), the latest call stays:
// it is the current state, e.g. the open todo list.
func (r *run) pruneTools() (int, error) {
	pairs := r.pairs()
	latest := map[string]int{}
	for k, tp := range pairs {
		latest[tp.name] = k
	}
	for k, tp := range pairs {
		h := r.hints.get(tp.name)
		if h.request != HintRemove && h.response != HintRemove {
			continue
		}
		if h.subsumes && stateTools[tp.name] && latest[tp.name] == k {
			continue
		}
		if r.pairEditable(tp) {
			r.removePair(tp)
		}
	}
	return 0, nil
}

// stateTools replace their whole state on every call, so any later call
// subsumes every earlier one.
var stateTools = map[string]bool{"TodoWrite": true, "update_plan": true, "todo_write": true}

// dedupTools removes the earlier of two calls where the later one makes it
// obsolete: identical arguments, or (for tools whose hint says subsumes) a
// later read covering the earlier one's line range. The later call must
// have a result; an earlier call that failed is kept (its error is history).
func (r *run) dedupTools() (int, error) {
	pairs := r.pairs()
	type seen struct {
		exact map[string]bool
		reads map[string][]facts.LineRange
		state map[string]bool
	}
	s := seen{exact: map[string]bool{}, reads: map[string][]facts.LineRange{}, state: map[string]bool{}}
	cwd := r.src.Meta.Cwd
	for k := len(pairs) - 1; k >= 0; k-- {
		tp := pairs[k]
		if tp.result == noLoc {
			continue
		}
		h := r.hints.get(tp.name)
		call, res := r.part(tp.call), r.part(tp.result)
		key := tp.name + "\x00" + canonicalJSON(call.Args)
		read, isRead := facts.ParseRead(tp.name, call.Args, cwd)
		if h.dedup && !res.IsError && r.pairEditable(tp) {
			obsolete := s.exact[key]
			if !obsolete && h.subsumes {
				if stateTools[tp.name] {
					obsolete = s.state[tp.name]
				} else if isRead {
					for _, later := range s.reads[read.Path] {
						if later.Covers(read.Lines) {
							obsolete = true
							break
						}
					}
				}
			}
			if obsolete {
				r.removePair(tp)
				continue
			}
		}
		s.exact[key] = true
		s.state[tp.name] = true
		if isRead && !res.IsError {
			s.reads[read.Path] = append(s.reads[read.Path], read.Lines)
		}
	}
	return 0, nil
}

// stripAttachments replaces images, documents and injected file contents
// with a one-line placeholder; standing instructions are protected.
func (r *run) stripAttachments() (int, error) {
	stripped := 0
	for i := range r.msgs {
		if !r.editable(i) || r.protected[i] {
			continue
		}
		parts := r.msgs[i].Parts
		for j := range parts {
			p := &parts[j]
			if p.Signed {
				continue // the codec can drop it but not rewrite it
			}
			switch p.Kind {
			case transcript.PartImage, transcript.PartDocument:
			case transcript.PartAttachment:
				if facts.IsStandingInstruction(p.Text) {
					continue
				}
			default:
				continue
			}
			if sharesRef(parts, j) {
				// Nested in another block (an image inside a tool result):
				// a text stand-in cannot take its place, so it goes, and
				// the result says what it held — a result left with no
				// text at all is one the Messages API refuses (when it is
				// an error) or the model cannot read.
				if k := nestingResult(parts, j); k >= 0 && !parts[k].Signed {
					text := r.recallable(attachmentPlaceholder(p, r.tok[i][j]), r.original(p))
					if parts[k].Text != "" {
						text = parts[k].Text + "\n" + text
					}
					r.setText(i, k, text)
				}
				r.removePart(i, j)
				continue
			}
			text := r.recallable(attachmentPlaceholder(p, r.tok[i][j]), r.original(p))
			// Injected text is stripped only when that saves tokens. Images
			// and documents always go: every API bills them far above a
			// one-line stand-in, whatever the local counter says.
			if p.Kind == transcript.PartAttachment && r.counter.Text(text) >= r.tok[i][j] {
				continue
			}
			if p.Kind != transcript.PartAttachment {
				p.Kind = transcript.PartText
				p.MIME, p.Width, p.Height, p.Size = "", 0, 0, 0
			}
			r.setText(i, j, text)
			stripped++
		}
	}
	return stripped, nil
}

// nestingResult is the tool result part that part j sits in (same Ref),
// -1 when none.
func nestingResult(parts []transcript.Part, j int) int {
	for k := range parts {
		if k != j && parts[k].Ref == parts[j].Ref && parts[k].Kind == transcript.PartToolResult {
			return k
		}
	}
	return -1
}

func sharesRef(parts []transcript.Part, j int) bool {
	for k := range parts {
		if k != j && parts[k].Ref == parts[j].Ref {
			return true
		}
	}
	return false
}
