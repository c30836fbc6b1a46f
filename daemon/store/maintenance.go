package store

import (
	"context"
	"fmt"
	"os"
)

// IntegrityCheck runs PRAGMA integrity_check and returns its findings;
// nil means the database is sound.
func (s *Store) IntegrityCheck(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("integrity check of %s: %w", s.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	return problems, rows.Err()
}

// Size is the bytes the store occupies on disk, WAL included.
func (s *Store) Size() (int64, error) {
	var total int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		fi, err := os.Stat(s.path + suffix)
		if err != nil {
			if suffix != "" && os.IsNotExist(err) {
				continue
			}
			return 0, fmt.Errorf("size of store %s: %w", s.path, err)
		}
		total += fi.Size()
	}
	return total, nil
}

// Checkpoint folds the WAL into the database file, so Size reflects the
// data rather than transient log pages.
func (s *Store) Checkpoint(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpoint store %s: %w", s.path, err)
	}
	return nil
}
