package tokens

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/compactd/compactd/compaction/transcript"
)

// Encodings counted offline.
const (
	O200kBase  = "o200k_base"
	CL100kBase = "cl100k_base"
)

// MessageOverhead is the per-message framing cost (role, separators) of chat
// APIs, as OpenAI documents it for its chat format.
const MessageOverhead = 4

// MinCachedBytes is the smallest text whose count is cached: below it the
// BPE is about as cheap as a cache lookup and the entries would only bloat
// the store.
const MinCachedBytes = 64

// A Count is a number of tokens, and whether it is exact. Approx is set
// when part of the text was a long run the counter cut at a fixed width
// or extrapolated, or a piece had to be cut at a non-exact point.
type Count struct {
	N      int
	Approx bool
}

// Add returns the sum of two counts.
func (c Count) Add(o Count) Count { return Count{N: c.N + o.N, Approx: c.Approx || o.Approx} }

// A Counter counts tokens with one encoding. It is safe for concurrent use.
// The BPE ranks are embedded tables read in place (ranks.go), and a
// counter keeps a cache of merged
// pieces per goroutine counting with it (a few MB at most each), so
// create one per encoding and share it.
type Counter struct {
	encoding string
	// bpe is loaded on the first count (loaded): a command that finds
	// nothing new to count (a status line after no append) never loads it.
	bpe atomic.Pointer[bpe]
	// slashJoins is true for encodings whose regex lets a '/' follow
	// newlines in one piece (o200k_base), which moves the exact split points.
	slashJoins bool
	cache      Cache
	workers    int
	images     ImagePricing

	// merged pools the goroutines' mergedCounts caches.
	merged sync.Pool

	texts, cacheHits, approxTexts, bytes atomic.Int64
}

// An Option configures a Counter.
type Option func(*Counter)

// WithCache makes the counter look texts up in c before counting them and
// store what it counts. Without it nothing is cached.
func WithCache(c Cache) Option { return func(k *Counter) { k.cache = c } }

// WithWorkers sets how many goroutines count in parallel (default
// runtime.GOMAXPROCS(0)); 1 counts sequentially.
func WithWorkers(n int) Option {
	return func(k *Counter) {
		if n > 0 {
			k.workers = n
		}
	}
}

// WithImagePricing selects how images are priced (default ImageOpenAI).
func WithImagePricing(p ImagePricing) Option { return func(k *Counter) { k.images = p } }

// New returns a counter for a BPE encoding name (O200kBase, CL100kBase).
func New(encoding string, opts ...Option) (*Counter, error) {
	if _, ok := rankFiles[encoding]; !ok {
		return nil, fmt.Errorf("unknown token encoding %q (known: %s, %s)", encoding, O200kBase, CL100kBase)
	}
	c := &Counter{
		encoding:   encoding,
		slashJoins: encoding == O200kBase,
		workers:    runtime.GOMAXPROCS(0),
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// NewForModel returns a counter with the model's encoding and its
// provider's image pricing; opts come after and may override them.
func NewForModel(m Model, opts ...Option) (*Counter, error) {
	return New(m.Encoding, append([]Option{WithImagePricing(m.Provider.ImagePricing())}, opts...)...)
}

// Encoding names the counter's BPE encoding.
func (c *Counter) Encoding() string { return c.encoding }

// Stats are a counter's running totals, for progress and benchmarks.
type Stats struct {
	// Texts counted with the BPE (cache misses), and cache hits.
	Texts, CacheHits int64
	// ApproxTexts is how many counted texts came out approximate.
	ApproxTexts int64
	// Bytes handed to the BPE.
	Bytes int64
}

// Stats returns the counter's totals so far.
func (c *Counter) Stats() Stats {
	return Stats{Texts: c.texts.Load(), CacheHits: c.cacheHits.Load(), ApproxTexts: c.approxTexts.Load(), Bytes: c.bytes.Load()}
}

// Text counts the tokens of s. See CountText for whether it is exact.
func (c *Counter) Text(s string) int { return c.CountText(s).N }

// CountText counts the tokens of s as ordinary text (special-token markers
// such as <|endoftext|> count as the text they are, the way APIs treat
// user content).
func (c *Counter) CountText(s string) Count {
	if s == "" {
		return Count{}
	}
	key, cached := c.lookup(s)
	if cached != nil {
		return *cached
	}
	pieces := plan(s, c.slashJoins)
	var n Count
	if len(pieces) > 1 && c.workers > 1 {
		counts := make([]Count, len(pieces))
		c.parallel(len(pieces), func(i int) { counts[i] = c.countPiece(pieces[i]) })
		for _, k := range counts {
			n = n.Add(k)
		}
	} else {
		for _, p := range pieces {
			n = n.Add(c.countPiece(p))
		}
	}
	c.store(key, s, n)
	return n
}

// lookup returns the cache key of s and its cached count, if any.
func (c *Counter) lookup(s string) (Key, *Count) {
	if c.cache == nil || len(s) < MinCachedBytes {
		return Key{}, nil
	}
	key := Key{Sum: sha256.Sum256([]byte(s)), Encoding: c.encoding}
	if n, ok := c.cache.Get(key); ok {
		c.cacheHits.Add(1)
		return key, &n
	}
	return key, nil
}

func (c *Counter) store(key Key, s string, n Count) {
	c.texts.Add(1)
	if n.Approx {
		c.approxTexts.Add(1)
	}
	if c.cache != nil && len(s) >= MinCachedBytes {
		c.cache.Put(key, n)
	}
}

// countPiece runs the BPE on one piece; long runs are cut at RunChunk and
// extrapolated past RunSample.
func (c *Counter) countPiece(p piece) Count {
	cache, _ := c.merged.Get().(mergedCounts)
	if cache == nil {
		cache = mergedCounts{}
	}
	defer c.merged.Put(cache)
	if !p.run {
		c.bytes.Add(int64(len(p.s)))
		return Count{N: c.loaded().count(p.s, cache), Approx: p.inexact}
	}
	n, counted := 0, 0
	s := p.s
	for len(s) > 0 && counted < RunSample {
		cut := min(RunChunk, len(s))
		for cut < len(s) && cut > 1 && !isRuneStart(s[cut]) {
			cut--
		}
		n += c.loaded().count(s[:cut], cache)
		counted += cut
		s = s[cut:]
	}
	c.bytes.Add(int64(counted))
	if len(s) > 0 {
		n = int(float64(n) * float64(len(p.s)) / float64(counted))
	}
	return Count{N: n, Approx: true}
}

// loaded returns the counter's BPE, loading it the first time. The ranks
// are embedded in the binary (and TestRanksAsTheOfflineLoaderReadsThem
// reads them): failing to read them is a broken build, not an input.
func (c *Counter) loaded() *bpe {
	if b := c.bpe.Load(); b != nil {
		return b
	}
	b, err := loadBPE(c.encoding)
	if err != nil {
		panic(err)
	}
	c.bpe.Store(b)
	return b
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// CountPart counts one message part as the model receives it.
func (c *Counter) CountPart(p *transcript.Part) Count {
	n := c.CountText(p.Text)
	switch p.Kind {
	case transcript.PartToolCall:
		n = n.Add(c.CountText(p.ToolName)).Add(c.CountText(p.Args))
	case transcript.PartImage:
		n.N += ImageTokens(c.images, p.Width, p.Height)
	case transcript.PartDocument:
		if p.Text == "" {
			n.N += UnknownDocumentTokens
		}
	}
	n.N += OpaqueTokens(p.Opaque)
	return n
}

// Part counts one message part as the model receives it.
func (c *Counter) Part(p *transcript.Part) int { return c.CountPart(p).N }

// CountMessage counts a message: its parts plus the per-message overhead.
func (c *Counter) CountMessage(m *transcript.Message) Count {
	n := Count{N: MessageOverhead}
	for i := range m.Parts {
		n = n.Add(c.CountPart(&m.Parts[i]))
	}
	return n
}

// Message counts a message: its parts plus the per-message overhead.
func (c *Counter) Message(m *transcript.Message) int { return c.CountMessage(m).N }
