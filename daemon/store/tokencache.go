package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// TokenKey is the sha256 of a record's or part's text.
type TokenKey = [32]byte

// GetTokens returns the cached counts for keys under encoding; keys not
// cached are absent from the map.
func (s *Store) GetTokens(ctx context.Context, encoding string, keys []TokenKey) (map[TokenKey]int, error) {
	out := make(map[TokenKey]int, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	stmt, err := s.db.PrepareContext(ctx, `SELECT tokens FROM token_cache WHERE hash = ? AND encoding = ?`)
	if err != nil {
		return nil, fmt.Errorf("token cache: %w", err)
	}
	defer stmt.Close()
	for _, k := range keys {
		var n int
		switch err := stmt.QueryRowContext(ctx, k[:], encoding).Scan(&n); {
		case err == nil:
			out[k] = n
		case errors.Is(err, sql.ErrNoRows):
		default:
			return nil, fmt.Errorf("token cache: %w", err)
		}
	}
	return out, nil
}

// PutTokens caches counts under encoding in one transaction.
func (s *Store) PutTokens(ctx context.Context, encoding string, counts map[TokenKey]int) error {
	if len(counts) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx,
			`INSERT INTO token_cache(hash, encoding, tokens) VALUES (?, ?, ?)
			 ON CONFLICT(hash, encoding) DO UPDATE SET tokens = excluded.tokens`)
		if err != nil {
			return fmt.Errorf("token cache: %w", err)
		}
		defer stmt.Close()
		for k, n := range counts {
			if _, err := stmt.ExecContext(ctx, k[:], encoding, n); err != nil {
				return fmt.Errorf("token cache: %w", err)
			}
		}
		return nil
	})
}
