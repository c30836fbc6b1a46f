package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A Conversation is one agent session across all its versions and forks.
type Conversation struct {
	ID int64
	// Key identifies it: "session:<id>" where the format has session ids,
	// else "path:<absolute source path>".
	Key        string
	Format     string
	SourcePath string
	SessionID  string
	Created    time.Time
}

// Version kinds.
const (
	KindSource  = "source"  // the source file as it was read
	KindCompact = "compact" // a compaction result
	KindRestore = "restore" // a stored version written back out
	// KindHandoff is the conversation carried into another agent: a new
	// session in that agent's format (Version.Format) and place.
	KindHandoff = "handoff"
)

// A Version is one recorded state of a conversation.
//
// It is one row of the versions table, field for column: hence more than a dozen.
type Version struct {
	ID             int64  `json:"-"`
	ConversationID int64  `json:"-"`
	Label          string `json:"version"`
	Parent         string `json:"parent,omitempty"`
	ParentID       int64  `json:"-"`
	Kind           string `json:"kind"`
	// SourcePath and SourceHash are the source as it was when this version
	// was made; ContentHash is this version's own bytes.
	SourcePath  string   `json:"sourcePath"`
	SourceHash  string   `json:"sourceHash"`
	ContentHash string   `json:"contentHash"`
	Size        int64    `json:"size"`
	Format      string   `json:"format"`
	Pipeline    []string `json:"pipeline"`
	// Options and Report are what the recorder stored (jobs reads them
	// back into its own types; the raw bytes never go on the wire).
	Options      json.RawMessage `json:"-"`
	Report       json.RawMessage `json:"report,omitempty"`
	TokensBefore int             `json:"tokensBefore"`
	TokensAfter  int             `json:"tokensAfter"`
	// ForkPath is where this version was written ("" for a source
	// version read in place; the source path itself for in-place results).
	ForkPath string    `json:"forkPath,omitempty"`
	Created  time.Time `json:"created"`
}

// NewVersion is what RecordVersion needs.
//
// It is a row to insert, field for column: hence more than a dozen.
type NewVersion struct {
	Conversation Conversation
	Kind         string
	// ParentID is the version this one derives from; 0 for none.
	ParentID     int64
	SourcePath   string
	SourceHash   string
	Format       string
	Pipeline     []string
	Options      any
	Report       any
	TokensBefore int
	TokensAfter  int
	ForkPath     string
	// Content is the version's exact bytes; Cuts are the offsets where its
	// records start, so versions that share records share storage.
	Content []byte
	Cuts    []int64
	// ContentHash is Content's ContentHash when the caller has it ("" has
	// it computed): a compaction hashed the source it read, and hashing
	// 100 MB again cost a tenth of a second.
	ContentHash string
	Created     time.Time
	// Recalls are the contents the version's placeholders and summaries
	// name by handle; they are stored with it.
	Recalls []RecallContent
}

// UnknownVersionError is returned when a label names no version.
type UnknownVersionError struct {
	Label string
	Known []string
}

func (e *UnknownVersionError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("no version %q: this conversation has no recorded versions", e.Label)
	}
	return fmt.Sprintf("no version %q; known versions: %s", e.Label, strings.Join(e.Known, ", "))
}

// ErrNoConversation is returned when nothing in the store matches a path.
var ErrNoConversation = errors.New("no recorded versions for this transcript")

const timeLayout = time.RFC3339Nano

// EnsureConversation returns the conversation with c.Key, creating it from c.
func (s *Store) EnsureConversation(ctx context.Context, c Conversation) (Conversation, error) {
	if c.Created.IsZero() {
		c.Created = time.Now()
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO conversations(key, source_path, created_at, format, session_id) VALUES (?, ?, ?, ?, ?)
			 ON CONFLICT(key) DO NOTHING`,
			c.Key, c.SourcePath, c.Created.UTC().Format(timeLayout), c.Format, c.SessionID)
		return err
	})
	if err != nil {
		return Conversation{}, fmt.Errorf("record conversation %s: %w", c.Key, err)
	}
	got, ok, err := s.conversationWhere(ctx, `key = ?`, c.Key)
	if err != nil {
		return Conversation{}, err
	}
	if !ok {
		return Conversation{}, fmt.Errorf("record conversation %s: vanished after insert", c.Key)
	}
	return got, nil
}

func (s *Store) conversationWhere(ctx context.Context, where string, args ...any) (Conversation, bool, error) {
	var c Conversation
	var created string
	err := s.db.QueryRowContext(ctx,
		`SELECT id, key, format, source_path, session_id, created_at FROM conversations WHERE `+where+` ORDER BY id LIMIT 1`, args...).
		Scan(&c.ID, &c.Key, &c.Format, &c.SourcePath, &c.SessionID, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, false, nil
	}
	if err != nil {
		return Conversation{}, false, fmt.Errorf("look up conversation: %w", err)
	}
	c.Created, _ = time.Parse(timeLayout, created)
	return c, true, nil
}

// FindConversation finds the conversation a file belongs to: a version
// written to that path first (forks and in-place results), then the key,
// then the conversation's source path.
func (s *Store) FindConversation(ctx context.Context, absPath, key string) (Conversation, bool, error) {
	var id int64
	err := s.db.QueryRowContext(ctx,
		`SELECT conversation_id FROM versions WHERE fork_path = ? ORDER BY id DESC LIMIT 1`, absPath).Scan(&id)
	switch {
	case err == nil:
		return s.conversationWhere(ctx, `id = ?`, id)
	case !errors.Is(err, sql.ErrNoRows):
		return Conversation{}, false, fmt.Errorf("look up %s: %w", absPath, err)
	}
	if key != "" {
		if c, ok, err := s.conversationWhere(ctx, `key = ?`, key); ok || err != nil {
			return c, ok, err
		}
	}
	return s.conversationWhere(ctx, `source_path = ?`, absPath)
}

// Conversations lists every conversation.
func (s *Store) Conversations(ctx context.Context) ([]Conversation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, key, format, source_path, session_id, created_at FROM conversations ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	var out []Conversation
	for rows.Next() {
		var c Conversation
		var created string
		if err := rows.Scan(&c.ID, &c.Key, &c.Format, &c.SourcePath, &c.SessionID, &created); err != nil {
			return nil, err
		}
		c.Created, _ = time.Parse(timeLayout, created)
		out = append(out, c)
	}
	return out, rows.Err()
}

// RecordVersion stores a version and its content in one transaction. A
// source version whose bytes the conversation already has is not recorded
// again: the existing version is returned with reused = true.
func (s *Store) RecordVersion(ctx context.Context, nv NewVersion) (v Version, reused bool, err error) {
	if nv.Created.IsZero() {
		nv.Created = time.Now()
	}
	opts, err := json.Marshal(nv.Options)
	if err != nil {
		return Version{}, false, fmt.Errorf("record version: options: %w", err)
	}
	report, err := json.Marshal(nv.Report)
	if err != nil {
		return Version{}, false, fmt.Errorf("record version: report: %w", err)
	}
	pipeline, _ := json.Marshal(append([]string{}, nv.Pipeline...))
	hash := nv.ContentHash
	if hash == "" {
		hash = ContentHash(nv.Content)
	}
	prefix := ""
	if nv.Kind == KindSource {
		// The last read of this source: a transcript that grew is
		// recorded as what it added. A hint: read before the write
		// transaction, like all of the content's preparing.
		err := s.db.QueryRowContext(ctx,
			`SELECT content_hash FROM versions WHERE conversation_id = ? AND kind = ? AND source_path = ? ORDER BY id DESC LIMIT 1`,
			nv.Conversation.ID, KindSource, nv.SourcePath).Scan(&prefix)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return Version{}, false, fmt.Errorf("record version of %s in store %s: %w", nv.SourcePath, s.path, err)
		}
	}
	recalls, err := packRecalls(nv.Recalls)
	if err != nil {
		return Version{}, false, fmt.Errorf("record version of %s in store %s: %w", nv.SourcePath, s.path, err)
	}
	prepared, err := prepareContent(ctx, s.db, nv.Content, nv.Cuts, prefix, hash)
	if err != nil {
		return Version{}, false, fmt.Errorf("record version of %s in store %s: %w", nv.SourcePath, s.path, err)
	}
	var id int64
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if nv.Kind == KindSource {
			err := tx.QueryRowContext(ctx,
				`SELECT id FROM versions WHERE conversation_id = ? AND content_hash = ? ORDER BY id DESC LIMIT 1`,
				nv.Conversation.ID, hash).Scan(&id)
			if err == nil {
				reused = true
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if _, err := prepared.put(ctx, tx); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM versions WHERE conversation_id = ?`, nv.Conversation.ID).Scan(&n); err != nil {
			return err
		}
		var parent any
		if nv.ParentID != 0 {
			parent = nv.ParentID
		}
		res, err := tx.ExecContext(ctx,
			`INSERT INTO versions(conversation_id, label, parent_id, source_path, fork_path, report, created_at,
				kind, source_hash, content_hash, size, format, pipeline, options, tokens_before, tokens_after)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			nv.Conversation.ID, "v"+strconv.Itoa(n+1), parent, nv.SourcePath, nv.ForkPath, string(report),
			nv.Created.UTC().Format(timeLayout), nv.Kind, nv.SourceHash, hash, len(nv.Content), nv.Format,
			string(pipeline), string(opts), nv.TokensBefore, nv.TokensAfter)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		return putRecalls(ctx, tx, id, recalls, nv.Created)
	})
	if err != nil {
		return Version{}, false, fmt.Errorf("record version of %s in store %s: %w", nv.SourcePath, s.path, err)
	}
	v, err = s.versionWhere(ctx, `v.id = ?`, id)
	return v, reused, err
}

const versionColumns = `v.id, v.conversation_id, v.label, coalesce(p.label, ''), coalesce(v.parent_id, 0), v.kind,
	v.source_path, v.source_hash, v.content_hash, v.size, v.format, v.pipeline, v.options, v.report,
	v.tokens_before, v.tokens_after, v.fork_path, v.created_at`

type scanner interface{ Scan(...any) error }

func scanVersion(r scanner) (Version, error) {
	var v Version
	var pipeline, opts, report, created string
	err := r.Scan(&v.ID, &v.ConversationID, &v.Label, &v.Parent, &v.ParentID, &v.Kind,
		&v.SourcePath, &v.SourceHash, &v.ContentHash, &v.Size, &v.Format, &pipeline, &opts, &report,
		&v.TokensBefore, &v.TokensAfter, &v.ForkPath, &created)
	if err != nil {
		return v, err
	}
	json.Unmarshal([]byte(pipeline), &v.Pipeline)
	v.Options = json.RawMessage(opts)
	v.Report = json.RawMessage(report)
	v.Created, _ = time.Parse(timeLayout, created)
	return v, nil
}

func (s *Store) versionWhere(ctx context.Context, where string, args ...any) (Version, error) {
	row := s.db.QueryRowContext(ctx,
		`SELECT `+versionColumns+` FROM versions v LEFT JOIN versions p ON p.id = v.parent_id WHERE `+where, args...)
	v, err := scanVersion(row)
	if err != nil {
		return Version{}, fmt.Errorf("read version: %w", err)
	}
	return v, nil
}

// Versions lists a conversation's versions, oldest first.
func (s *Store) Versions(ctx context.Context, conversationID int64) ([]Version, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+versionColumns+` FROM versions v LEFT JOIN versions p ON p.id = v.parent_id
		 WHERE v.conversation_id = ? ORDER BY v.id`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("list versions: %w", err)
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		v, err := scanVersion(rows)
		if err != nil {
			return nil, fmt.Errorf("list versions: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Version returns the version labelled label ("v3", or "3"). An unknown
// label yields an *UnknownVersionError listing the known ones.
func (s *Store) Version(ctx context.Context, conversationID int64, label string) (Version, error) {
	if _, err := strconv.Atoi(label); err == nil {
		label = "v" + label
	}
	v, err := s.versionWhere(ctx, `v.conversation_id = ? AND v.label = ?`, conversationID, label)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Version{}, err
	}
	all, lerr := s.Versions(ctx, conversationID)
	if lerr != nil {
		return Version{}, lerr
	}
	known := make([]string, len(all))
	for i, v := range all {
		known[i] = v.Label
	}
	return Version{}, &UnknownVersionError{Label: label, Known: known}
}

// AllVersions lists every version of every conversation (for doctor).
func (s *Store) AllVersions(ctx context.Context) ([]Version, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+versionColumns+` FROM versions v LEFT JOIN versions p ON p.id = v.parent_id ORDER BY v.id`)
	if err != nil {
		return nil, fmt.Errorf("list versions: %w", err)
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		v, err := scanVersion(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// DeleteUnwritten removes a version recorded ahead of a write that then
// failed, so history never lists a result that never reached the disk. It
// refuses a version another version derives from. Its content stays in
// the shared segments (other versions may use them).
func (s *Store) DeleteUnwritten(ctx context.Context, id int64) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var children int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM versions WHERE parent_id = ?`, id).Scan(&children); err != nil {
			return err
		}
		if children > 0 {
			return fmt.Errorf("version %d has %d derived versions", id, children)
		}
		// Only the conversation's newest version may go: labels are
		// numbered by count, so removing an older one would reuse a label.
		var newer int
		if err := tx.QueryRowContext(ctx,
			`SELECT count(*) FROM versions WHERE conversation_id = (SELECT conversation_id FROM versions WHERE id = ?) AND id > ?`, id, id).Scan(&newer); err != nil {
			return err
		}
		if newer > 0 {
			return fmt.Errorf("version %d is not its conversation's newest", id)
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM versions WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("remove unwritten version from store %s: %w", s.path, err)
	}
	return nil
}

// LatestForkVersion returns the newest version written to path (a fork, a
// restored copy, or a file compacted in place); ok is false when compactd
// wrote nothing there.
func (s *Store) LatestForkVersion(ctx context.Context, path string) (Version, bool, error) {
	v, err := s.versionWhere(ctx, `v.fork_path = ? ORDER BY v.id DESC LIMIT 1`, path)
	if errors.Is(err, sql.ErrNoRows) {
		return Version{}, false, nil
	}
	if err != nil {
		return Version{}, false, err
	}
	return v, true, nil
}
