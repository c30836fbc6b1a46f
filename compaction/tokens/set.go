package tokens

import (
	"sync"
)

// ID names what a counter's message counts depend on: the encoding, and
// the image pricing when it is not OpenAI's (so keys written before image
// pricing was chosen per provider stay valid). Caches of message counts
// key on it.
func (c *Counter) ID() string {
	switch c.images {
	case ImageAnthropic:
		return c.encoding + "+anthropic-images"
	case ImageGemini:
		return c.encoding + "+gemini-images"
	default:
		return c.encoding
	}
}

// A CounterSet hands out one Counter per encoding and image pricing, all
// built with the same options, so each transcript is counted the way its
// model is billed while transcripts of the same kind share a counter (and
// its loaded ranks and caches). It is safe for concurrent use.
type CounterSet struct {
	opts []Option

	mu       sync.Mutex
	counters map[string]*Counter
}

// NewCounterSet returns a set whose counters are built with opts.
func NewCounterSet(opts ...Option) *CounterSet {
	return &CounterSet{opts: opts, counters: map[string]*Counter{}}
}

// For returns the counter for m: m's encoding and its provider's image
// pricing.
func (s *CounterSet) For(m Model) (*Counter, error) {
	key := m.Encoding + "/" + string(m.Provider)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.counters[key]; ok {
		return c, nil
	}
	c, err := NewForModel(m, s.opts...)
	if err != nil {
		return nil, err
	}
	s.counters[key] = c
	return c, nil
}

// Stats sums the totals of every counter handed out.
func (s *CounterSet) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out Stats
	for _, c := range s.counters {
		st := c.Stats()
		out.Texts += st.Texts
		out.CacheHits += st.CacheHits
		out.ApproxTexts += st.ApproxTexts
		out.Bytes += st.Bytes
	}
	return out
}
