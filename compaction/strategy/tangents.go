package strategy

import (
	"context"
	"fmt"
	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/tokens"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
)

// A TangentClassifier names the turns of a conversation that are unrelated
// to its current task. The pipeline numbers the turns of msgs from
// firstTurn; Classify returns numbers in that span (others are ignored).
// It is an interface so this package stays pure: the daemon backs it with
// a language model (see ModelClassifier).
type TangentClassifier interface {
	// Name says who classified, for the report's notes.
	Name() string
	Classify(ctx context.Context, msgs []transcript.Message, firstTurn int) ([]int, error)
}

// ModelClassifier classifies tangents with a language model through
// summarize.ClassifyTangents, which redacts secrets before the prompt
// leaves the process. It opens no connection itself: Model does.
type ModelClassifier struct {
	Model summarize.Model
	// Instructions are appended to summarize.TangentPrompt.
	Instructions string
}

// Name is the model's configured name.
func (c *ModelClassifier) Name() string { return c.Model.Name() }

// Classify asks the model which turns are tangents.
func (c *ModelClassifier) Classify(ctx context.Context, msgs []transcript.Message, firstTurn int) ([]int, error) {
	got, err := summarize.ClassifyTangents(ctx, c.Model, msgs, firstTurn, c.Instructions)
	if err != nil {
		return nil, err
	}
	return got.Turns, nil
}

// A Tangent is one turn the classifier judged unrelated to the current
// task: a dry run lists it and an editor asks before it goes.
type Tangent struct {
	// Turn is the turn's index in the source transcript, the number the
	// dry-run diff shows and Options.ConfirmedTangents takes.
	Turn int `json:"turn"`
	// Tokens is what removing the turn saves, as the turn stood when it
	// was classified (after the steps before it).
	Tokens int `json:"tokens"`
	// Preview is the first line of the turn's prompt, secrets redacted.
	Preview string `json:"preview"`
	// Removed says whether this run removed it (it was confirmed).
	Removed bool `json:"removed"`
}

// maxPreviewBytes bounds a tangent's one-line preview.
const maxPreviewBytes = 100

// classifyTangents asks the classifier for tangent turns, lists them in the
// report, and removes the confirmed ones whole. It never touches the
// keep-last turns, the first prompt's turn, turns holding protected
// content, or turns that do not start with a human prompt (the preamble,
// an earlier compaction's summary), whatever the classifier says. With no
// classifier, or a failing one, the step changes nothing and says why in
// a note.
func (r *run) classifyTangents() (int, error) {
	cls := r.opts.Tangents
	if cls == nil {
		r.note("classify-tangents skipped: no model is configured to classify turns (set [summarize] model)")
		return 0, nil
	}
	turns := r.turns()
	if len(turns) < 2 {
		r.note("classify-tangents: only %d turn, which is the current task; nothing to classify", len(turns))
		return 0, nil
	}
	srcTurns := r.src.Turns
	if len(srcTurns) == 0 {
		srcTurns = transcript.BuildTurns(r.src.Messages)
	}
	// srcTurn[k] is the source turn the current turn k belongs to. Earlier
	// steps may have cut history, so the current turns need not be
	// numbered like the source's; the model sees them numbered from the
	// first one's source number and answers are mapped back through k.
	srcTurn := make([]int, len(turns))
	for k, t := range turns {
		srcTurn[k] = transcript.TurnOf(srcTurns, r.srcIdx[t.Start])
	}
	first := max(srcTurn[0], 0)
	named, err := cls.Classify(r.ctx, r.msgs, first)
	if err != nil {
		r.note("classify-tangents skipped: %s failed: %v", cls.Name(), err)
		return 0, nil
	}

	firstPrompt := r.firstPromptTurn(srcTurns)
	// at is the current turn index of a found tangent.
	type candidate struct {
		Tangent
		at int
	}
	var found []candidate
	refused := map[string][]int{}
	seen := map[int]bool{}    // current turns named
	seenSrc := map[int]bool{} // their source numbers
	for _, n := range named {
		k := n - first
		if k < 0 || k >= len(turns) || seen[k] {
			continue
		}
		seen[k] = true
		seenSrc[srcTurn[k]] = true
		if why := r.tangentRefusal(turns[k], srcTurn[k], firstPrompt); why != "" {
			refused[why] = append(refused[why], srcTurn[k])
			continue
		}
		found = append(found, candidate{Tangent{Turn: srcTurn[k], Tokens: r.turnTokens(turns[k]), Preview: r.turnPreview(turns[k])}, k})
	}
	for _, why := range []string{refuseKeepLast, refuseFirstPrompt, refuseProtected, refuseNoPrompt} {
		if ts := refused[why]; len(ts) > 0 {
			slices.Sort(ts)
			r.note("classify-tangents: %s named %s too, kept: %s", cls.Name(), turnList(ts), why)
		}
	}
	slices.SortFunc(found, func(a, b candidate) int { return a.Turn - b.Turn })
	listed := make([]Tangent, 0, len(found))
	var kept []int
	keptTokens := 0
	for _, c := range found {
		if r.tangentConfirmed(c.Turn) {
			if r.removeTurn(turns[c.at], &c.Tokens) {
				c.Removed = true
			} else {
				r.note("classify-tangents: turn %d kept: removing it would leave two messages of the same role side by side, which the %s API rejects", c.Turn, r.src.Format)
			}
		} else {
			kept = append(kept, c.Turn)
			keptTokens += c.Tokens
		}
		listed = append(listed, c.Tangent)
	}
	if len(found) == 0 {
		r.note("classify-tangents: %s found no tangent turns to remove", cls.Name())
	}
	r.tangents = append(r.tangents, listed...)
	if len(kept) > 0 {
		r.note("classify-tangents: %s judged %s unrelated to the current task (%s tokens); kept, since removal was not confirmed",
			cls.Name(), turnList(kept), tokens.Thousands(keptTokens))
	}
	r.confirmedButUnnamed(seenSrc)
	return 0, nil
}

// removeTurn marks turn t gone. Where the API needs roles to alternate
// and the messages around the turn share a role, one message of the other
// role stays as a one-line stand-in, and saved drops by what it costs; if
// the turn has none, nothing is removed and removeTurn reports false.
func (r *run) removeTurn(t transcript.Turn, saved *int) bool {
	if r.alternation {
		prev, next := t.Start-1, t.End
		for prev >= 0 && r.gone[prev] {
			prev--
		}
		for next < len(r.msgs) && r.gone[next] {
			next++
		}
		if prev >= 0 && next < len(r.msgs) && r.msgs[prev].Role == r.msgs[next].Role {
			bridge := -1
			for k := t.Start; k < t.End && bridge < 0; k++ {
				if r.msgs[k].Role != r.msgs[next].Role && len(r.msgs[k].Parts) > 0 {
					bridge = k
				}
			}
			if bridge < 0 {
				return false
			}
			for m := t.Start; m < t.End; m++ {
				r.gone[m] = m != bridge
			}
			m := &r.msgs[bridge]
			text := recall.Placeholder(placeholderPrefix+"a turn unrelated to the task was removed]", r.recallSpan(r.srcIdx[t.Start], r.srcIdx[t.End-1]+1))
			p := transcript.Part{Kind: transcript.PartText, Text: text, Ref: m.Parts[0].Ref, Changed: true}
			m.Parts = []transcript.Part{p}
			r.tok[bridge] = []int{r.counter.Part(&p)}
			*saved -= r.msgTokens(bridge)
			return true
		}
	}
	for m := t.Start; m < t.End; m++ {
		r.gone[m] = true
	}
	return true
}

// Why a turn the classifier named is kept anyway.
const (
	refuseKeepLast    = "within the keep-last turns"
	refuseFirstPrompt = "the first prompt's turn sets the task"
	refuseProtected   = "they hold protected content (standing instructions, system or pinned messages)"
	refuseNoPrompt    = "they do not start with a prompt (the preamble or an earlier summary)"
)

// tangentRefusal says why turn t may not be removed as a tangent, or "".
func (r *run) tangentRefusal(t transcript.Turn, srcTurn, firstPrompt int) string {
	switch {
	case t.End > r.boundary():
		return refuseKeepLast
	case srcTurn == firstPrompt:
		return refuseFirstPrompt
	}
	m := &r.msgs[t.Start]
	if m.Role != transcript.RoleUser || m.Origin != transcript.OriginHuman || !transcript.StartsTurn(m) {
		return refuseNoPrompt
	}
	for i := t.Start; i < t.End; i++ {
		if r.protected[i] {
			return refuseProtected
		}
	}
	return ""
}

// firstPromptTurn is the source turn of the first human prompt, -1 if none.
func (r *run) firstPromptTurn(srcTurns []transcript.Turn) int {
	for i := range r.src.Messages {
		m := &r.src.Messages[i]
		if m.Origin == transcript.OriginHuman && transcript.StartsTurn(m) {
			return transcript.TurnOf(srcTurns, i)
		}
	}
	return -1
}

// tangentConfirmed reports whether the run may remove source turn n.
func (r *run) tangentConfirmed(n int) bool {
	return r.opts.ConfirmAllTangents || slices.Contains(r.opts.ConfirmedTangents, n)
}

// confirmedButUnnamed notes confirmed turns this run's classifier did not
// name (named ones it refused have their own note): a confirmation approves removing a tangent, it does not make one,
// so they stay (the model may answer differently between a dry run and the
// real one, or the turn numbers may be stale).
func (r *run) confirmedButUnnamed(named map[int]bool) {
	var missing []int
	for _, n := range r.opts.ConfirmedTangents {
		if slices.Contains(missing, n) || named[n] {
			continue
		}
		missing = append(missing, n)
	}
	if len(missing) == 0 {
		return
	}
	slices.Sort(missing)
	r.note("classify-tangents: %s confirmed for removal but not named as tangents this time; kept", turnList(missing))
}

func (r *run) turnTokens(t transcript.Turn) int {
	n := 0
	for i := t.Start; i < t.End; i++ {
		if !r.gone[i] {
			n += r.msgTokens(i)
		}
	}
	return n
}

// turnPreview is the first line of the turn's prompt, redacted and valid
// UTF-8, for a one-line listing.
func (r *run) turnPreview(t transcript.Turn) string {
	for i := t.Start; i < t.End; i++ {
		if line := firstLine(messageText(&r.msgs[i])); line != "" {
			line, _ = summarize.Redact(strings.ToValidUTF8(line, "\uFFFD"))
			return facts.Truncate(line, maxPreviewBytes)
		}
	}
	return ""
}

// turnList formats turn numbers for a note: "turn 3", "turns 3, 5 and 9".
func turnList(ts []int) string {
	if len(ts) == 1 {
		return fmt.Sprintf("turn %d", ts[0])
	}
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = fmt.Sprint(t)
	}
	return "turns " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
