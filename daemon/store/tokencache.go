package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/compactd/compactd/compaction/tokens"
)

// GetTokens returns the cached counts for keys; keys not cached are absent.
func (s *Store) GetTokens(ctx context.Context, keys []tokens.Key) (map[tokens.Key]tokens.Count, error) {
	out := make(map[tokens.Key]tokens.Count, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	s.tokenLookupOnce.Do(func() {
		// Background: the statement outlives this call's context.
		s.tokenLookup, s.tokenLookupErr = s.db.PrepareContext(context.Background(), `SELECT tokens, approx FROM token_cache WHERE hash = ? AND encoding = ?`)
	})
	stmt, err := s.tokenLookup, s.tokenLookupErr
	if err != nil {
		return nil, fmt.Errorf("token cache: %w", err)
	}
	for _, k := range keys {
		var c tokens.Count
		switch err := stmt.QueryRowContext(ctx, k.Sum[:], k.Encoding).Scan(&c.N, &c.Approx); {
		case err == nil:
			out[k] = c
		case errors.Is(err, sql.ErrNoRows):
		default:
			return nil, fmt.Errorf("token cache: %w", err)
		}
	}
	return out, nil
}

// PutTokens caches counts in one transaction.
func (s *Store) PutTokens(ctx context.Context, counts map[tokens.Key]tokens.Count) error {
	if len(counts) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx,
			`INSERT INTO token_cache(hash, encoding, tokens, approx) VALUES (?, ?, ?, ?)
			 ON CONFLICT(hash, encoding) DO UPDATE SET tokens = excluded.tokens, approx = excluded.approx`)
		if err != nil {
			return fmt.Errorf("token cache: %w", err)
		}
		defer stmt.Close()
		for k, c := range counts {
			if _, err := stmt.ExecContext(ctx, k.Sum[:], k.Encoding, c.N, c.Approx); err != nil {
				return fmt.Errorf("token cache: %w", err)
			}
		}
		return nil
	})
}

// TokenCache adapts the store to tokens.Cache: an in-memory LRU in front of
// the token_cache table, with writes batched so counting a large file costs
// a few transactions rather than one per record. Call Flush (or Close)
// before exiting; counts not flushed are merely recounted next time.
type TokenCache struct {
	store *Store
	mem   *tokens.MemoryCache

	mu      sync.Mutex
	pending map[tokens.Key]tokens.Count
	// flushAt is how many pending counts make Put flush: flushEvery, or
	// flushEvery more than were left by a flush that failed (not one try
	// per Put while the store is busy).
	flushAt int
	// err is the last write failure; caching is best effort, so it is kept
	// for Flush to return rather than breaking counting.
	err error
}

// flushEvery is how many new counts are batched per write transaction.
const flushEvery = 1024

// NewTokenCache returns a cache backed by s, remembering up to memEntries
// counts in memory (0 = tokens' default).
func (s *Store) NewTokenCache(memEntries int) *TokenCache {
	return &TokenCache{store: s, mem: tokens.NewMemoryCache(memEntries), pending: map[tokens.Key]tokens.Count{}, flushAt: flushEvery}
}

var _ tokens.Cache = (*TokenCache)(nil)

// Get looks in memory, then in the store.
func (c *TokenCache) Get(k tokens.Key) (tokens.Count, bool) {
	if n, ok := c.mem.Get(k); ok {
		return n, true
	}
	c.mu.Lock()
	n, ok := c.pending[k]
	c.mu.Unlock()
	if ok {
		return n, true
	}
	got, err := c.store.GetTokens(context.Background(), []tokens.Key{k})
	if err != nil {
		return tokens.Count{}, false
	}
	n, ok = got[k]
	if ok {
		c.mem.Put(k, n)
	}
	return n, ok
}

// Put remembers a count and queues it for the store.
func (c *TokenCache) Put(k tokens.Key, n tokens.Count) {
	c.mem.Put(k, n)
	c.mu.Lock()
	c.pending[k] = n
	full := len(c.pending) >= c.flushAt
	c.mu.Unlock()
	if full {
		c.Flush(context.Background())
	}
}

// maxPending bounds the counts kept for a later flush when one fails.
const maxPending = 16 * flushEvery

// Flush writes queued counts to the store. Counts a failed write could
// not store (the store busy with another compactd's write, say) stay
// queued for the next flush, up to maxPending.
func (c *TokenCache) Flush(ctx context.Context) error {
	c.mu.Lock()
	batch := c.pending
	c.pending = map[tokens.Key]tokens.Count{}
	c.mu.Unlock()
	if err := c.store.PutTokens(ctx, batch); err != nil {
		c.mu.Lock()
		c.err = err
		for k, n := range batch {
			if len(c.pending) >= maxPending {
				break
			}
			if _, newer := c.pending[k]; !newer {
				c.pending[k] = n
			}
		}
		c.flushAt = len(c.pending) + flushEvery
		c.mu.Unlock()
	} else {
		c.mu.Lock()
		c.flushAt = flushEvery
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.err
	c.err = nil
	return err
}
