package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A RecallContent is one content a compaction replaced with a placeholder
// or a summary, under the handle the stand-in names (compaction/recall).
type RecallContent struct {
	Handle string
	// Sum is the content's SHA-256.
	Sum     [32]byte
	Content []byte
}

// A Recalled is a stored content and where it comes from.
type Recalled struct {
	RecallContent
	// Versions are the recorded versions naming the handle ("path v3"),
	// oldest first.
	Versions []RecallSource
}

// A RecallSource is one version whose content names a handle.
type RecallSource struct {
	Conversation string `json:"conversation"`
	SourcePath   string `json:"sourcePath"`
	Version      string `json:"version"`
	ForkPath     string `json:"forkPath,omitempty"`
}

// UnknownHandleError is returned for a handle the store does not hold.
type UnknownHandleError struct {
	Handle string
	Store  string
}

func (e *UnknownHandleError) Error() string {
	return fmt.Sprintf("no recall handle %s in the store %s: the compaction that wrote it recorded it in another store (COMPACTD_STORE), or this store lost it", e.Handle, e.Store)
}

// HandleOf returns the handle the store gives the content of this sum.
func (s *Store) HandleOf(ctx context.Context, sum [32]byte) (string, bool, error) {
	var h string
	err := s.db.QueryRowContext(ctx, `SELECT handle FROM recalls WHERE hash = ?`, sum[:]).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up a recall handle in store %s: %w", s.path, err)
	}
	return h, true, nil
}

// SumOf returns the sum of the content the store names handle.
func (s *Store) SumOf(ctx context.Context, handle string) ([32]byte, bool, error) {
	var sum [32]byte
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT hash FROM recalls WHERE handle = ?`, handle).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return sum, false, nil
	}
	if err != nil {
		return sum, false, fmt.Errorf("look up recall handle %s in store %s: %w", handle, s.path, err)
	}
	copy(sum[:], b)
	return sum, true, nil
}

// packedRecall is a RecallContent compressed for the store, before the
// write transaction (which holds the lock for lookups and inserts only).
type packedRecall struct {
	RecallContent
	data []byte
}

func packRecalls(rs []RecallContent) ([]packedRecall, error) {
	out := make([]packedRecall, len(rs))
	for i, r := range rs {
		if sha256.Sum256(r.Content) != r.Sum {
			return nil, fmt.Errorf("recall %s: content does not match its sum", r.Handle)
		}
		out[i] = packedRecall{r, compress(r.Content)}
	}
	return out, nil
}

// putRecalls stores the contents a version's stand-ins name and links
// them to the version, inside the version's transaction. A content keeps
// the handle it has; a handle another content took in the meantime (two
// compactions naming different contents alike at once) fails the record.
func putRecalls(ctx context.Context, tx *sql.Tx, versionID int64, rs []packedRecall, now time.Time) error {
	for _, r := range rs {
		var have string
		err := tx.QueryRowContext(ctx, `SELECT handle FROM recalls WHERE hash = ?`, r.Sum[:]).Scan(&have)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, `INSERT INTO recalls(handle, hash, size, data, codec, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
				r.Handle, r.Sum[:], len(r.Content), r.data, codecZstd, now.UTC().Format(timeLayout))
			if err != nil {
				return fmt.Errorf("record recall %s (another compaction may have taken the handle at the same moment; compact again): %w", r.Handle, err)
			}
		case err != nil:
			return err
		case have != r.Handle:
			return fmt.Errorf("record recall %s: the store names this content %s", r.Handle, have)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO version_recalls(version_id, handle) VALUES (?, ?)`, versionID, r.Handle); err != nil {
			return err
		}
	}
	return nil
}

// Recall returns the content handle names, verified against its sum, and
// the versions that name it. A handle the store lacks is an
// *UnknownHandleError; a content that does not read back whole is
// ErrDamaged.
func (s *Store) Recall(ctx context.Context, handle string) (*Recalled, error) {
	var hash, data []byte
	var size int64
	var codec int
	err := s.db.QueryRowContext(ctx, `SELECT hash, size, data, codec FROM recalls WHERE handle = ?`, handle).Scan(&hash, &size, &data, &codec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &UnknownHandleError{Handle: handle, Store: s.path}
	}
	if err != nil {
		return nil, fmt.Errorf("read recall %s from store %s: %w", handle, s.path, s.Explain(err))
	}
	content, err := inflate(data, codec, size)
	if err == nil && sha256.Sum256(content) != [32]byte(hash) {
		err = errCorruptBlob
	}
	if err != nil {
		return nil, fmt.Errorf("read recall %s from store %s: its content does not read back whole: %w", handle, s.path, ErrDamaged)
	}
	out := &Recalled{RecallContent: RecallContent{Handle: handle, Sum: [32]byte(hash), Content: content}}
	rows, err := s.db.QueryContext(ctx, `SELECT c.key, c.source_path, v.label, v.fork_path
		FROM version_recalls r JOIN versions v ON v.id = r.version_id JOIN conversations c ON c.id = v.conversation_id
		WHERE r.handle = ? ORDER BY v.id`, handle)
	if err != nil {
		return nil, fmt.Errorf("read recall %s from store %s: %w", handle, s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var src RecallSource
		if err := rows.Scan(&src.Conversation, &src.SourcePath, &src.Version, &src.ForkPath); err != nil {
			return nil, err
		}
		out.Versions = append(out.Versions, src)
	}
	return out, rows.Err()
}

// VersionHandles lists the handles a version names.
func (s *Store) VersionHandles(ctx context.Context, versionID int64) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT handle FROM version_recalls WHERE version_id = ? ORDER BY handle`, versionID)
	if err != nil {
		return nil, fmt.Errorf("list recall handles: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// AddRecalls stores contents an existing version's compaction named (an
// agent's compaction compactd answered in the agent's place, whose result
// lives in the agent's own file) and links them to it.
func (s *Store) AddRecalls(ctx context.Context, versionID int64, rs []RecallContent) error {
	packed, err := packRecalls(rs)
	if err != nil {
		return err
	}
	err = s.tx(ctx, func(tx *sql.Tx) error { return putRecalls(ctx, tx, versionID, packed, time.Now()) })
	if err != nil {
		return fmt.Errorf("record recall contents in store %s: %w", s.path, err)
	}
	return nil
}
