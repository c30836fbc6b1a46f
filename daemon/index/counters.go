package index

import (
	"fmt"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// newCounterSet returns counters sharing the count cache, so texts counted
// for one transcript are not counted again for another of the same kind.
func newCounterSet(cache tokens.Cache) *tokens.CounterSet {
	if cache == nil {
		return tokens.NewCounterSet()
	}
	return tokens.NewCounterSet(tokens.WithCache(cache))
}

// counterFor returns the counter for t (the transcript at path): the pinned one when the daemon was
// given one, else the one for t's model (the user's model setting first,
// then what t names, then its format's default), the same model the
// gauge's window comes from. st are t's current figures.
func (ix *indexer) counterFor(path string, t *transcript.Transcript, st transcript.Stats) *tokens.Counter {
	if ix.forced != nil {
		return ix.forced
	}
	m := gauge.Resolve(t, gauge.Options{Model: ix.settings(path).Gauge.Model, Registry: ix.registry, Stats: &st}).Info
	c, err := ix.counters.For(m)
	if err != nil {
		// A model configured with an encoding we do not ship: count with
		// the default rather than not at all.
		ix.log.Debug("no counter for the model; counting with o200k_base", "model", m.Name, "err", err)
		c, _ = ix.fallback()
	}
	return c
}

// fallback is the o200k_base counter with OpenAI image pricing; New loads
// it up front so a broken tokenizer fails at start, not on the first file.
func (ix *indexer) fallback() (*tokens.Counter, error) {
	if ix.forced != nil {
		return ix.forced, nil
	}
	c, err := ix.counters.For(tokens.Model{Encoding: tokens.O200kBase})
	if err != nil {
		return nil, fmt.Errorf("load the o200k_base tokenizer: %w", err)
	}
	return c, nil
}

// counterStats sums what the index's counters did.
func (ix *indexer) counterStats() tokens.Stats {
	if ix.forced != nil {
		return ix.forced.Stats()
	}
	return ix.counters.Stats()
}
