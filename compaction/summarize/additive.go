package summarize

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/compactd/compactd/compaction/transcript"
)

// An Archive keeps a conversation's summaries between compactions, so each
// archived span is summarized once. daemon/store backs it with SQLite;
// MemoryArchive serves tests and one-shot CLI runs.
type Archive interface {
	// Load returns the conversation's summaries ordered by FromTurn, or
	// none (and no error) for a conversation never summarized.
	Load(ctx context.Context, conversation string) ([]Summary, error)
	// Save replaces the conversation's summaries with summaries, atomically.
	Save(ctx context.Context, conversation string, summaries []Summary) error
}

// MemoryArchive is an in-memory Archive. The zero value is ready to use and
// safe for concurrent use.
type MemoryArchive struct {
	mu sync.Mutex
	m  map[string][]Summary
}

// Load implements Archive.
func (a *MemoryArchive) Load(_ context.Context, conversation string) ([]Summary, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Summary(nil), a.m[conversation]...), nil
}

// Save implements Archive.
func (a *MemoryArchive) Save(_ context.Context, conversation string, summaries []Summary) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string][]Summary{}
	}
	a.m[conversation] = append([]Summary(nil), summaries...)
	return nil
}

// DefaultBufferTurns is how many recent turns stay verbatim by default.
const DefaultBufferTurns = 4

// A Partition splits turns into the span to summarize and the buffer zone
// kept verbatim: turns [0, Archive) and [Archive, len(turns)).
type Partition struct {
	Archive int
	// BufferTurns is how many turns the buffer kept after degrading.
	BufferTurns int
	// BufferTokens is what the buffer costs.
	BufferTokens int
}

// Plan chooses the buffer zone: the last bufferTurns turns (negative means
// DefaultBufferTurns), fewer when their tokens pass capTokens (0 = no cap),
// degrading N → N-1 → … → 0 so a few huge turns never keep the context
// over its limit. counts[i] is turn i's token count.
func Plan(turns []transcript.Turn, counts []int, bufferTurns, capTokens int) Partition {
	if bufferTurns < 0 {
		bufferTurns = DefaultBufferTurns
	}
	n := min(bufferTurns, len(turns))
	for ; n > 0; n-- {
		total := 0
		for i := len(turns) - n; i < len(turns); i++ {
			if i < len(counts) {
				total += counts[i]
			}
		}
		if capTokens <= 0 || total <= capTokens {
			return Partition{Archive: len(turns) - n, BufferTurns: n, BufferTokens: total}
		}
	}
	return Partition{Archive: len(turns)}
}

// Additive summarizes archived spans additively: each span once, kept in
// the Archive with its metadata; when the kept summaries together pass
// Budget tokens they are folded into one, recursively.
type Additive struct {
	Summarizer Summarizer
	Archive    Archive
	// Budget is the most tokens all summaries together may take before
	// they are merged (0 = never merge).
	Budget int
	// Counter measures summaries; nil estimates.
	Counter TokenCounter
}

// Summarize brings conversation's summaries up to toTurn. msgs are the
// transcript's messages and turns its turns (summary turns numbered as in
// the source); [0, toTurn) is the archived history. Turns already covered
// by a kept summary are not summarized again. It returns the summaries
// that now stand for [0, toTurn), oldest first, and saves them.
//
// On failure nothing is saved, so a retry redoes only the missing span.
func (a *Additive) Summarize(ctx context.Context, conversation string, msgs []transcript.Message, turns []transcript.Turn, toTurn int) ([]Summary, error) {
	kept, err := a.Archive.Load(ctx, conversation)
	if err != nil {
		return nil, fmt.Errorf("load summaries of %s: %w", conversation, err)
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].FromTurn < kept[j].FromTurn })
	// A summary reaching past toTurn describes history the caller now
	// keeps verbatim (a rewind, a larger buffer): it no longer applies.
	var valid []Summary
	covered := 0
	for _, s := range kept {
		if s.ToTurn > toTurn || s.FromTurn != covered {
			break
		}
		valid = append(valid, s)
		covered = s.ToTurn
	}
	toTurn = min(toTurn, len(turns))
	if covered < toTurn {
		span := msgs[turns[covered].Start:turns[toTurn-1].End]
		s, err := a.Summarizer.Summarize(ctx, Request{Messages: span, FromTurn: covered, ToTurn: toTurn})
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(s.Text) == "" {
			return nil, fmt.Errorf("summarize turns %d–%d with %s: %w", covered, toTurn-1, a.Summarizer.Name(), ErrBlank)
		}
		s.FromTurn, s.ToTurn, s.Level = covered, toTurn, 0
		if s.Tokens == 0 {
			s.Tokens = countTokens(a.Counter, s.Text)
		}
		valid = append(valid, s)
	}
	if a.Budget > 0 && len(valid) > 1 && totalTokens(valid) > a.Budget {
		merged, err := a.merge(ctx, valid)
		if err != nil {
			return nil, err
		}
		valid = []Summary{merged}
	}
	if err := a.Archive.Save(ctx, conversation, valid); err != nil {
		return nil, fmt.Errorf("save summaries of %s: %w", conversation, err)
	}
	return valid, nil
}

// merge folds summaries into one (recursive summarization).
func (a *Additive) merge(ctx context.Context, ss []Summary) (Summary, error) {
	msgs := make([]transcript.Message, len(ss))
	level := 0
	redacted := 0
	for i, s := range ss {
		msgs[i] = SummaryMessage(s)
		level = max(level, s.Level)
		redacted += s.Redacted
	}
	from, to := ss[0].FromTurn, ss[len(ss)-1].ToTurn
	m, err := a.Summarizer.Summarize(ctx, Request{Messages: msgs, FromTurn: from, ToTurn: to, Budget: a.Budget, Merge: true})
	if err != nil {
		return Summary{}, fmt.Errorf("merge %d summaries of turns %d–%d: %w", len(ss), from, to-1, err)
	}
	if strings.TrimSpace(m.Text) == "" {
		return Summary{}, fmt.Errorf("merge %d summaries of turns %d–%d: %w", len(ss), from, to-1, ErrBlank)
	}
	m.FromTurn, m.ToTurn, m.Level = from, to, level+1
	m.Redacted += redacted
	if m.Tokens == 0 {
		m.Tokens = countTokens(a.Counter, m.Text)
	}
	return m, nil
}

// SummaryMessage renders a kept summary as the user-role message that
// stands for its turns, the way agents inject their own compact summaries.
func SummaryMessage(s Summary) transcript.Message {
	return transcript.Message{
		Role:      transcript.RoleUser,
		Origin:    transcript.OriginSummary,
		Timestamp: s.Created,
		Parts:     []transcript.Part{{Kind: transcript.PartText, Text: s.Text, Ref: transcript.Ref{Record: -1, Block: -1}}},
	}
}

func totalTokens(ss []Summary) int {
	n := 0
	for _, s := range ss {
		n += s.Tokens
	}
	return n
}

func mergeLevel(req Request) int {
	if req.Merge {
		return 1
	}
	return 0
}
