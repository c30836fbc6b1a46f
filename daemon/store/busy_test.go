package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/tokens"
)

// A transaction a panic cut short ends with it: it held the store's write
// lock, and another compactd's writers (here a second handle on the same
// file) waited for it until their busy timeout ran out.
func TestPanicInTransactionLetsTheStoreGo(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	func() {
		defer func() { _ = recover() }()
		_ = s.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO token_cache(hash, encoding, tokens, approx) VALUES (?, 'x', 1, 0)`, []byte("k")); err != nil {
				t.Fatal(err)
			}
			panic("a bug while writing")
		})
	}()
	other, err := Open(ctx, s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	start := time.Now()
	k := tokens.Key{Sum: sha256.Sum256([]byte("k")), Encoding: "o200k_base"}
	if err := other.PutTokens(ctx, map[tokens.Key]tokens.Count{k: {N: 3}}); err != nil {
		t.Fatalf("the other writer after the panic: %v", err)
	}
	if took := time.Since(start); took >= busyTimeout {
		t.Fatalf("the other writer waited %v: the panicked transaction held the lock", took)
	}
	var n int
	if err := other.DB().QueryRowContext(ctx, `SELECT count(*) FROM token_cache WHERE encoding = 'x'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the panicked transaction's row: %d, %v; want rolled back", n, err)
	}
}

// Counts a flush could not write (the store busy) are written by the next.
func TestTokenCacheKeepsWhatAFlushCouldNotWrite(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	c := s.NewTokenCache(0)
	k := tokens.Key{Sum: sha256.Sum256([]byte("k")), Encoding: "o200k_base"}
	c.Put(k, tokens.Count{N: 5})
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Flush(cancelled); err == nil {
		t.Fatal("a flush that could not write said nothing")
	}
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetTokens(ctx, []tokens.Key{k})
	if err != nil || got[k].N != 5 {
		t.Fatalf("after the failed flush and the next: %+v, %v", got, err)
	}
}
