package store

import (
	"context"
	"fmt"
	"time"
)

// Pins returns the message keys pinned in a conversation (strategy.PinKey),
// in the order they were pinned; none and no error when nothing is.
func (s *Store) Pins(ctx context.Context, conversation string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT message_key FROM pins WHERE conversation_key = ? ORDER BY created_at, message_key`, conversation)
	if err != nil {
		return nil, fmt.Errorf("load pins of %s from store %s: %w", conversation, s.path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("load pins of %s from store %s: %w", conversation, s.path, err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load pins of %s from store %s: %w", conversation, s.path, err)
	}
	return out, nil
}

// SetPin pins (on) or unpins a message of a conversation; pinning twice or
// unpinning what is not pinned changes nothing.
func (s *Store) SetPin(ctx context.Context, conversation, message string, on bool) error {
	var err error
	if on {
		_, err = s.db.ExecContext(ctx, `INSERT OR IGNORE INTO pins (conversation_key, message_key, created_at) VALUES (?, ?, ?)`,
			conversation, message, time.Now().UTC().Format(timeLayout))
	} else {
		_, err = s.db.ExecContext(ctx, `DELETE FROM pins WHERE conversation_key = ? AND message_key = ?`, conversation, message)
	}
	if err != nil {
		return fmt.Errorf("pin %s in %s (store %s): %w", message, conversation, s.path, err)
	}
	return nil
}
