package index

import (
	"sort"
	"time"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/transcript"
)

// A Snapshot is the immutable state of one transcript at one moment. The
// index replaces it atomically when the file changes; readers (hover, code
// lens, the gauge) never wait on the indexer and never recompute. It is
// the one value every view reads, hence its many fields.
type Snapshot struct {
	Path   string
	Format transcript.Format
	Model  string
	// Window is the context window in tokens; Tokens the gauge's figure.
	Window int
	Tokens int
	Ratio  float64
	Level  Level
	// Source is SourceUsage or SourceEstimate.
	Source string
	// Approx: part of the count was estimated (long unbroken runs).
	Approx bool
	// AutoCompact is where the agent compacts by itself, read from its
	// settings as the agent reads them; nil when unknown.
	AutoCompact *gauge.AutoCompact
	// CriticalAt is the ratio at which the level becomes critical.
	CriticalAt float64
	UpdatedAt  time.Time
	// Size is the bytes of the file the snapshot covers.
	Size     int64
	Messages int
	Problems int
	// Turns are the model-visible turns with their token counts.
	Turns []TurnInfo
	// Savings are the dry-run savings in tokens per strategy, filled in the
	// background after the gauge is live; SavingsPending says they are
	// still being computed for this content, SavingsErr why some are missing.
	Savings        map[string]int
	SavingsPending bool
	SavingsErr     string
	// Seq grows with every snapshot of the same file.
	Seq uint64
	// Status says in one sentence what compactd could not read of the
	// file (a line too long to hold, a run of NUL bytes), "" when it read
	// it all. Problems counts those lines with the malformed records.
	Status string
	// Insight is what fills the window and what it costs (insight.go).
	Insight Insight
	// Gauge is the gauge the figures above come from (gauge.Live: no
	// estimate error, no per-turn figures; Insight has the error).
	Gauge gauge.Gauge
	// AgentCompacted is the byte where an agent compaction this snapshot
	// brought begins (its summary's record, appended since the previous
	// snapshot); -1 when it brought none. The first snapshot of a file
	// brings none: compactions already there are history, not news.
	AgentCompacted int64

	// lineStarts[i] is the byte offset where line i begins.
	lineStarts []int64
	// naturalWindow is the window without the settings' overrides.
	naturalWindow int
}

// withSettings re-derives the window, ratio and level under new settings
// (for transcripts whose parsed form was evicted).
func (s *Snapshot) withSettings(set *Settings, seq uint64) *Snapshot {
	next := *s
	next.Seq, next.UpdatedAt, next.AgentCompacted = seq, time.Now(), -1
	w := s.naturalWindow
	if set.Gauge.ContextWindow > 0 {
		w = set.Gauge.ContextWindow
	} else if o := longestPrefix(set.windows, s.Model); o > 0 {
		w = o
	}
	if w <= 0 {
		return &next
	}
	next.Window = w
	next.Ratio = float64(s.Tokens) / float64(w)
	next.Insight = s.Insight.withWindow(w)
	next.CriticalAt = set.Gauge.Critical
	warnAt := set.Gauge.Warn
	if at := s.AutoCompactAt(); at > 0 {
		next.CriticalAt = min(next.CriticalAt, at)
		warnAt = min(warnAt, at*0.9)
	}
	switch {
	case next.Ratio >= next.CriticalAt:
		next.Level = LevelCritical
	case next.Ratio >= warnAt:
		next.Level = LevelWarn
	default:
		next.Level = LevelOK
	}
	return &next
}

// TurnInfo is one turn's share of the conversation.
type TurnInfo struct {
	Index int
	// StartLine is the 0-based line where the turn's first record begins;
	// StartByte that record's offset.
	StartLine int
	StartByte int64
	Messages  int
	Tokens    int
	// Cumulative is the tokens of this turn and every one before it.
	Cumulative int
	// Prompt is the start of the turn's first user text, for labels.
	Prompt string
	// startMsg and endMsg are the turn's message range, to reuse the
	// entry when the next snapshot has the same turn.
	startMsg, endMsg int
}

// Lines is the number of lines the snapshot knows.
func (s *Snapshot) Lines() int { return len(s.lineStarts) }

// LineSpan returns the byte range of a 0-based line; ok is false past the
// last line the snapshot knows.
func (s *Snapshot) LineSpan(line int) (start, end int64, ok bool) {
	if line < 0 || line >= len(s.lineStarts) {
		return 0, 0, false
	}
	start, end = s.lineStarts[line], -1
	if line+1 < len(s.lineStarts) {
		end = s.lineStarts[line+1]
	}
	return start, end, true
}

// LineOf returns the 0-based line holding byte offset off.
func (s *Snapshot) LineOf(off int64) int {
	i := sort.Search(len(s.lineStarts), func(i int) bool { return s.lineStarts[i] > off })
	return max(i-1, 0)
}

// TurnAtLine returns the turn a line belongs to: the last turn starting at
// or before it. Lines before the first turn (metadata, history the agent
// compacted away) belong to no turn.
func (s *Snapshot) TurnAtLine(line int) (TurnInfo, bool) {
	if line < 0 || line >= len(s.lineStarts) || len(s.Turns) == 0 {
		return TurnInfo{}, false
	}
	off := s.lineStarts[line]
	i := sort.Search(len(s.Turns), func(i int) bool { return s.Turns[i].StartByte > off })
	if i == 0 {
		return TurnInfo{}, false
	}
	return s.Turns[i-1], true
}

// AutoCompactAt is where the agent compacts as a ratio of the window, 0
// when unknown or off.
func (s *Snapshot) AutoCompactAt() float64 {
	if s.AutoCompact == nil || s.AutoCompact.At <= 0 || s.Window <= 0 {
		return 0
	}
	return float64(s.AutoCompact.At) / float64(s.Window)
}

// Mark is the agent's compaction point as views show it; nil when unknown.
func (s *Snapshot) Mark() *gauge.Mark { return gauge.MarkOf(s.AutoCompact, s.Tokens, s.Window) }

// Text renders the gauge for a status bar: "156k / 200k · 78 %".
func (s *Snapshot) Text() string { return GaugeText(s.Tokens, s.Window) }

// AutoSavings is the estimated saving of the auto pipeline, -1 when unknown.
func (s *Snapshot) AutoSavings() int {
	if n, ok := s.Savings["auto"]; ok {
		return n
	}
	return -1
}
