package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/summarize"
)

// SummaryArchive keeps conversations' summaries in the store: the
// summarize.Archive that lets summarize.Additive summarize each archived
// span once across compaction cycles and across processes.
type SummaryArchive struct{ s *Store }

var _ summarize.Archive = SummaryArchive{}

// Summaries returns the store's summary archive.
func (s *Store) Summaries() SummaryArchive { return SummaryArchive{s: s} }

// Load returns conversation's summaries ordered by FromTurn (then by when
// they were saved); none and no error for a conversation never summarized.
func (a SummaryArchive) Load(ctx context.Context, conversation string) ([]summarize.Summary, error) {
	rows, err := a.s.db.QueryContext(ctx,
		`SELECT text, from_turn, to_turn, tokens, model, created_at, redacted, level
		 FROM summaries WHERE conversation_key = ? ORDER BY from_turn, id`, conversation)
	if err != nil {
		return nil, fmt.Errorf("load summaries of %s from store %s: %w", conversation, a.s.path, err)
	}
	defer rows.Close()
	var out []summarize.Summary
	for rows.Next() {
		var sum summarize.Summary
		var created string
		if err := rows.Scan(&sum.Text, &sum.FromTurn, &sum.ToTurn, &sum.Tokens, &sum.Model, &created, &sum.Redacted, &sum.Level); err != nil {
			return nil, fmt.Errorf("load summaries of %s from store %s: %w", conversation, a.s.path, err)
		}
		sum.Created, _ = time.Parse(timeLayout, created)
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load summaries of %s from store %s: %w", conversation, a.s.path, err)
	}
	return out, nil
}

// Save replaces conversation's summaries with summaries in one
// transaction: a reader sees the old set or the new one, never a mix, and
// a failure (a blank summary, a bad span, a crash) leaves the old set.
func (a SummaryArchive) Save(ctx context.Context, conversation string, summaries []summarize.Summary) error {
	for i, sum := range summaries {
		if strings.TrimSpace(sum.Text) == "" {
			return fmt.Errorf("save summaries of %s: summary %d (turns %d–%d): %w", conversation, i, sum.FromTurn, sum.ToTurn, summarize.ErrBlank)
		}
		if sum.FromTurn < 0 || sum.ToTurn < sum.FromTurn {
			return fmt.Errorf("save summaries of %s: summary %d has an invalid turn span %d–%d", conversation, i, sum.FromTurn, sum.ToTurn)
		}
	}
	err := a.s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM summaries WHERE conversation_key = ?`, conversation); err != nil {
			return err
		}
		for _, sum := range summaries {
			created := sum.Created
			if created.IsZero() {
				created = time.Now()
			}
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO summaries(conversation_key, text, from_turn, to_turn, tokens, model, created_at, redacted, level)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				conversation, sum.Text, sum.FromTurn, sum.ToTurn, sum.Tokens, sum.Model,
				created.UTC().Format(timeLayout), sum.Redacted, sum.Level); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save summaries of %s in store %s: %w", conversation, a.s.path, err)
	}
	return nil
}
