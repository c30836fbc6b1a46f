package jobs

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// The loss ledger: every compaction the agent made of a conversation,
// with what its summary dropped of the history it replaced — standing
// instructions, files whose contents are gone, open tasks, errors,
// identifiers — and how the compactions went together (a loop). It reads
// the file only; it needs no store.

// MaxMeasured is how many of a session's most recent agent compactions the
// ledger measures: each measure extracts the facts of the whole history
// before it, and a session that compacts in a loop has hundreds.
const MaxMeasured = 20

// AgentLoss is one of the agent's own compactions and what it lost.
type AgentLoss struct {
	// Compaction is its history label ("a2"); Kind and Trigger the
	// format's words for it.
	Compaction string `json:"compaction"`
	Kind       string `json:"kind"`
	Trigger    string `json:"trigger,omitempty"`
	// Line is the 0-based line of its record in the file, Offset its byte.
	Line      int       `json:"line"`
	Offset    int64     `json:"offset"`
	Timestamp time.Time `json:"timestamp"`
	// TokensBefore and TokensAfter are the context's size just before and
	// right after: the agent's own figures where it records them, else
	// the first usage reported after it, else compactd's count.
	TokensBefore int `json:"tokensBefore"`
	TokensAfter  int `json:"tokensAfter"`
	// Measured says the loss was computed (the most recent MaxMeasured
	// are); Retention is what the agent's summary kept of the key facts
	// of the history before it, Lost what it dropped, by kind.
	Measured  bool                `json:"measured"`
	Retention *strategy.Retention `json:"retention,omitempty"`
	Lost      []LostKind          `json:"lost,omitempty"`
	// Summary says it in one sentence.
	Summary string `json:"summary"`
}

// LostKind is what a compaction lost of one kind of fact.
type LostKind struct {
	// Kind is "instruction", "file contents", "task", "error",
	// "identifier", "path", "command", "decision".
	Kind  string `json:"kind"`
	Count int    `json:"count"`
	// Examples are a few of them, shortest first.
	Examples []string `json:"examples"`
}

// AgentLedger is a conversation's agent compactions and their health.
type AgentLedger struct {
	Path        string       `json:"path"`
	Compactions []AgentLoss  `json:"compactions"`
	Health      gauge.Health `json:"health"`
}

// lostOrder is the order the ledger names what was lost in, and the words.
var lostOrder = []struct{ kind, one, many string }{
	{facts.Instruction, "standing instruction", "standing instructions"},
	{"file contents", "file's contents", "files' contents"},
	{facts.Task, "open task", "open tasks"},
	{facts.Error, "error", "errors"},
	{facts.Identifier, "identifier", "identifiers"},
	{facts.Decision, "decision", "decisions"},
	{facts.Path, "path", "paths"},
	{facts.Command, "command", "commands"},
}

// AgentLedger lists the agent's compactions of the transcript at path and
// what each lost, measuring the most recent MaxMeasured, and judges their
// health in a window of window tokens (0: the model's). It reads the file
// once.
func (r *Runner) AgentLedger(ctx context.Context, path string, window int) (*AgentLedger, error) {
	return r.AgentLedgerOf(ctx, path, window, MaxMeasured)
}

// AgentLedgerOf is AgentLedger measuring only the measure most recent
// compactions: announcing a new one needs its own loss alone.
func (r *Runner) AgentLedgerOf(ctx context.Context, path string, window, measure int) (*AgentLedger, error) {
	path, err := absPath(path)
	if err != nil {
		return nil, err
	}
	src, err := readSource(path)
	if err != nil {
		return nil, err
	}
	out := &AgentLedger{Path: path, Compactions: []AgentLoss{}}
	reader, list := agentCompactions(src)
	if window <= 0 {
		window = gauge.Resolve(src.t, gauge.Options{}).ContextWindow
	}
	points := make([]gauge.CompactionPoint, 0, len(list))
	for i, c := range list {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		loss := AgentLoss{Compaction: AgentLabel(i), Kind: c.Kind, Trigger: c.Trigger, Timestamp: c.Timestamp,
			TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter}
		if c.Record >= 0 && c.Record < len(src.t.Records) {
			loss.Offset = src.t.Records[c.Record].Start
			loss.Line = bytes.Count(src.data[:min(int(loss.Offset), len(src.data))], []byte("\n"))
		}
		if loss.TokensAfter == 0 {
			loss.TokensAfter = r.usageAfter(src, c)
		}
		overhead := 0 // what the agent sent beside the conversation before it
		if i >= len(list)-measure {
			if b, err := beforeAgentOf(src, reader, list, i); err == nil {
				kept := agentKept(b)
				loss.Measured, loss.Retention, loss.Lost = true, &kept, lostKinds(kept)
				if loss.TokensBefore == 0 {
					loss.TokensBefore = r.countOf(ctx, b.before.t, b.before.t.Messages)
				}
				if loss.TokensAfter == 0 {
					if counter, err := r.tokenCounter(b.before.t); err == nil {
						overhead, _ = r.sourceOverhead(ctx, src.path, b.before.t, counter, nil)
					}
				}
			}
		}
		if loss.TokensAfter == 0 && len(c.After) > 0 {
			// The system prompt and tools stay beside what the
			// compaction left.
			loss.TokensAfter = r.countOf(ctx, src.t, c.After) + overhead
		}
		loss.Summary = lossSentence(loss)
		out.Compactions = append(out.Compactions, loss)
		points = append(points, gauge.CompactionPoint{At: c.Timestamp, Before: loss.TokensBefore, After: loss.TokensAfter})
	}
	out.Health = gauge.HealthOf(points, window)
	return out, nil
}

// countOf is compactd's token count of msgs (messages of t); 0 when they
// cannot be counted.
func (r *Runner) countOf(ctx context.Context, t *transcript.Transcript, msgs []transcript.Message) int {
	counter, err := r.tokenCounter(t)
	if err != nil {
		return 0
	}
	counts, err := counter.CountMessages(ctx, msgs)
	if err != nil {
		return 0
	}
	return tokens.Sum(counts).N
}

// usageAfter is the context size the first usage reported after
// compaction c records, 0 when none follows it.
func (r *Runner) usageAfter(src *source, c format.AgentCompaction) int {
	if c.Record < 0 || c.Record >= len(src.t.Records) {
		return 0
	}
	start := src.t.Records[c.Record].Start
	for _, m := range src.t.Messages {
		if m.Usage == nil || len(m.Records) == 0 {
			continue
		}
		if rec := m.Records[0]; rec >= 0 && rec < len(src.t.Records) && src.t.Records[rec].Start > start {
			return m.Usage.ContextTokens()
		}
	}
	return 0
}

// lostKinds groups what a retention lost by kind, in lostOrder.
func lostKinds(ret strategy.Retention) []LostKind {
	by := map[string][]string{}
	for _, f := range ret.Lost {
		by[f.Kind] = append(by[f.Kind], f.Text)
	}
	if len(ret.ContentsLost) > 0 {
		by["file contents"] = ret.ContentsLost
	}
	var out []LostKind
	for _, k := range lostOrder {
		texts := by[k.kind]
		if len(texts) == 0 {
			continue
		}
		ex := make([]string, 0, 3)
		for _, t := range texts {
			if len(ex) == 3 {
				break
			}
			ex = append(ex, clipText(t, 60))
		}
		out = append(out, LostKind{Kind: k.kind, Count: len(texts), Examples: ex})
	}
	return out
}

// lossSentence says what a compaction lost: "Claude Code's compaction a2
// (auto, 167k → 9.4k) lost 2 standing instructions ("never push to
// main", …), 3 files' contents (calc.go, …), 1 open task".
func lossSentence(l AgentLoss) string {
	head := "compaction " + l.Compaction
	var fig []string
	if l.Trigger != "" {
		fig = append(fig, l.Trigger)
	}
	if l.TokensBefore > 0 || l.TokensAfter > 0 {
		fig = append(fig, gauge.Short(l.TokensBefore)+" → "+gauge.Short(l.TokensAfter))
	}
	if len(fig) > 0 {
		head += " (" + strings.Join(fig, ", ") + ")"
	}
	switch {
	case !l.Measured:
		return head + ": not measured (the ledger measures the last " + fmt.Sprint(MaxMeasured) + ")"
	case len(l.Lost) == 0:
		return head + " lost none of the key facts compactd tracks"
	}
	parts := make([]string, 0, len(l.Lost))
	for _, k := range l.Lost {
		word := ""
		for _, o := range lostOrder {
			if o.kind == k.Kind {
				word = o.many
				if k.Count == 1 {
					word = o.one
				}
			}
		}
		part := fmt.Sprintf("%d %s", k.Count, word)
		if len(k.Examples) > 0 {
			q := k.Examples[0]
			if k.Kind != "file contents" && k.Kind != facts.Path {
				q = fmt.Sprintf("%q", q)
			}
			if k.Count > 1 {
				q += ", …"
			}
			part += " (" + q + ")"
		}
		parts = append(parts, part)
	}
	return head + " lost " + strings.Join(parts, ", ")
}

// clipText keeps the first n runes of s on one line.
func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
