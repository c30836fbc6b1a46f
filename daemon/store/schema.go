package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
)

// A migration moves the schema from version i to i+1 inside one transaction.
type migration func(ctx context.Context, tx *sql.Tx) error

// migrations[i] upgrades user_version i to i+1. Fresh stores run them all,
// so every migration is exercised on every new install.
var migrations = []migration{
	migrateCreateV1,
	migrateContentAddressed,
	migrateSummaries,
	migrateNormalized,
	migrateRecalls,
	migratePins,
	migrateSearch,
}

// SchemaVersion is the schema this build writes.
var SchemaVersion = len(migrations)

// migrateCreateV1 is the first schema: whole version contents inline.
// Kept verbatim so stores created by early builds upgrade through the same path.
func migrateCreateV1(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`CREATE TABLE conversations (
			id          INTEGER PRIMARY KEY,
			key         TEXT NOT NULL UNIQUE,
			source_path TEXT NOT NULL,
			created_at  TEXT NOT NULL
		)`,
		`CREATE TABLE versions (
			id              INTEGER PRIMARY KEY,
			conversation_id INTEGER NOT NULL REFERENCES conversations(id),
			label           TEXT NOT NULL,
			parent_id       INTEGER REFERENCES versions(id),
			source_path     TEXT NOT NULL,
			fork_path       TEXT NOT NULL DEFAULT '',
			report          TEXT NOT NULL DEFAULT '{}',
			created_at      TEXT NOT NULL,
			content         BLOB NOT NULL,
			UNIQUE (conversation_id, label)
		)`,
	)
}

// migrateContentAddressed moves version contents into shared, compressed,
// content-addressed segments and adds the columns lineage and reports need,
// plus the token cache.
func migrateContentAddressed(ctx context.Context, tx *sql.Tx) error {
	err := execAll(ctx, tx,
		`CREATE TABLE blobs (
			id   INTEGER PRIMARY KEY,
			hash BLOB NOT NULL UNIQUE,
			size INTEGER NOT NULL,
			data BLOB NOT NULL
		)`,
		`CREATE TABLE contents (
			hash     TEXT PRIMARY KEY,
			size     INTEGER NOT NULL,
			segments BLOB NOT NULL
		) WITHOUT ROWID`,
		`CREATE TABLE token_cache (
			hash     BLOB NOT NULL,
			encoding TEXT NOT NULL,
			tokens   INTEGER NOT NULL,
			approx   INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY (hash, encoding)
		) WITHOUT ROWID`,
		`ALTER TABLE conversations ADD COLUMN format TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE conversations ADD COLUMN session_id TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE versions ADD COLUMN kind TEXT NOT NULL DEFAULT 'source'`,
		`ALTER TABLE versions ADD COLUMN source_hash TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE versions ADD COLUMN content_hash TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE versions ADD COLUMN size INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE versions ADD COLUMN format TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE versions ADD COLUMN pipeline TEXT NOT NULL DEFAULT '[]'`,
		`ALTER TABLE versions ADD COLUMN options TEXT NOT NULL DEFAULT '{}'`,
		`ALTER TABLE versions ADD COLUMN tokens_before INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE versions ADD COLUMN tokens_after INTEGER NOT NULL DEFAULT 0`,
	)
	if err != nil {
		return err
	}
	// Move each inline content into segments, cut at line ends: every
	// format v1 stored was line-oriented, and lines are what versions share.
	rows, err := tx.QueryContext(ctx, `SELECT id, content FROM versions`)
	if err != nil {
		return err
	}
	type old struct {
		id      int64
		content []byte
	}
	var olds []old
	for rows.Next() {
		var o old
		if err := rows.Scan(&o.id, &o.content); err != nil {
			rows.Close()
			return err
		}
		olds = append(olds, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, o := range olds {
		h, err := putContentV1(ctx, tx, o.content, LineCuts(o.content))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE versions SET content_hash = ?, source_hash = ?, size = ? WHERE id = ?`,
			h, h, len(o.content), o.id); err != nil {
			return err
		}
	}
	return execAll(ctx, tx,
		`ALTER TABLE versions DROP COLUMN content`,
		`CREATE INDEX versions_conversation ON versions(conversation_id, id)`,
		`CREATE INDEX versions_fork_path ON versions(fork_path)`,
		`CREATE INDEX conversations_source_path ON conversations(source_path)`,
	)
}

// migrateSummaries adds the summaries archive: each conversation's kept
// summaries, so a span summarized by a model is summarized once across
// compaction cycles (summarize.Additive). Rows are keyed by the
// conversation's key rather than its row id so the archive also serves
// callers that summarize before a conversation is recorded.
func migrateSummaries(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`CREATE TABLE summaries (
			id               INTEGER PRIMARY KEY,
			conversation_key TEXT NOT NULL,
			text             TEXT NOT NULL,
			from_turn        INTEGER NOT NULL,
			to_turn          INTEGER NOT NULL,
			tokens           INTEGER NOT NULL DEFAULT 0,
			model            TEXT NOT NULL DEFAULT '',
			created_at       TEXT NOT NULL,
			redacted         INTEGER NOT NULL DEFAULT 0,
			level            INTEGER NOT NULL DEFAULT 0,
			CHECK (from_turn >= 0 AND to_turn >= from_turn)
		)`,
		`CREATE INDEX summaries_conversation ON summaries(conversation_key, from_turn)`,
	)
}

// migrateNormalized lets records be stored normalized (ids and usage cut
// out into per-version patches, so forks share their records with the
// source) and compressed with zstd. Contents and blobs already stored
// stay as they are: no patches, deflated.
func migrateNormalized(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`ALTER TABLE blobs ADD COLUMN codec INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE contents ADD COLUMN patches BLOB`,
	)
}

// migrateRecalls adds what recall handles name: each content a compaction
// replaced with a placeholder or a summary, once, under its handle (see
// compaction/recall), and which versions name which handles.
func migrateRecalls(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`CREATE TABLE recalls (
			handle     TEXT PRIMARY KEY,
			hash       BLOB NOT NULL UNIQUE,
			size       INTEGER NOT NULL,
			data       BLOB NOT NULL,
			codec      INTEGER NOT NULL,
			created_at TEXT NOT NULL
		)`,
		`CREATE TABLE version_recalls (
			version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
			handle     TEXT NOT NULL REFERENCES recalls(handle),
			PRIMARY KEY (version_id, handle)
		)`,
		`CREATE INDEX version_recalls_handle ON version_recalls(handle)`,
	)
}

// migratePins adds the messages a user pinned ("keep verbatim in every
// compaction"), per conversation key (like summaries, so a pin set before
// the conversation's first version counts), by message key
// (strategy.PinKey).
func migratePins(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`CREATE TABLE pins (
			conversation_key TEXT NOT NULL,
			message_key      TEXT NOT NULL,
			created_at       TEXT NOT NULL,
			PRIMARY KEY (conversation_key, message_key)
		)`,
	)
}

// migrateSearch adds the search index (store/search.go): the sources
// indexed, their pieces, and the pieces' terms in a contentless FTS5 table
// with detail=none — which pieces hold a term, not where, so the index
// stays near a sixth of the text it holds (detail=full kept positions at
// over a quarter); phrases are checked against the source. contentless_delete lets a deleted or rewritten session's
// pieces go; the pieces' ids never come back (AUTOINCREMENT), so an id
// always names one piece. The tokenizer folds case but keeps diacritics,
// as the check of a phrase against the source does.
func migrateSearch(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`CREATE TABLE search_docs (
			id           INTEGER PRIMARY KEY,
			source       TEXT NOT NULL UNIQUE,
			kind         INTEGER NOT NULL,
			format       TEXT NOT NULL,
			agent        TEXT NOT NULL DEFAULT '',
			project      TEXT NOT NULL DEFAULT '',
			session_id   TEXT NOT NULL DEFAULT '',
			title        TEXT NOT NULL DEFAULT '',
			conversation TEXT NOT NULL DEFAULT '',
			version      TEXT NOT NULL DEFAULT '',
			whole        INTEGER NOT NULL DEFAULT 0,
			size         INTEGER NOT NULL DEFAULT 0,
			mtime        INTEGER NOT NULL DEFAULT 0,
			indexed      INTEGER NOT NULL DEFAULT 0,
			fingerprint  TEXT NOT NULL DEFAULT '',
			lines        INTEGER NOT NULL DEFAULT 0,
			text_bytes   INTEGER NOT NULL DEFAULT 0,
			updated      INTEGER NOT NULL DEFAULT 0,
			evicted      INTEGER NOT NULL DEFAULT 0
		)`,
		`CREATE INDEX search_docs_updated ON search_docs(updated)`,
		`CREATE TABLE search_chunks (
			id         INTEGER PRIMARY KEY AUTOINCREMENT,
			doc        INTEGER NOT NULL,
			lo         INTEGER NOT NULL,
			hi         INTEGER NOT NULL,
			bytes_from INTEGER NOT NULL DEFAULT 0,
			bytes_to   INTEGER NOT NULL DEFAULT 0,
			verbatim   INTEGER NOT NULL DEFAULT 0,
			line       INTEGER NOT NULL DEFAULT 0,
			time       INTEGER NOT NULL,
			text_bytes INTEGER NOT NULL
		)`,
		`CREATE INDEX search_chunks_doc ON search_chunks(doc, hi)`,
		`CREATE VIRTUAL TABLE search_text USING fts5(text, content='', contentless_delete=1, detail=none,
			tokenize='unicode61 remove_diacritics 0')`,
	)
}

func execAll(ctx context.Context, tx *sql.Tx, stmts ...string) error {
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// migrate checks the file is ours and brings it to SchemaVersion.
func (s *Store) migrate(ctx context.Context) error {
	var version int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	if version > SchemaVersion {
		return fmt.Errorf("store %s has schema %d, newer than this compactd understands (%d); upgrade compactd", s.path, version, SchemaVersion)
	}
	for v := version; v < SchemaVersion; v++ {
		err := s.tx(ctx, func(tx *sql.Tx) error {
			// Re-read inside the write lock: another process may have migrated.
			var cur int
			if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&cur); err != nil {
				return err
			}
			if cur != v {
				return nil
			}
			if err := migrations[v](ctx, tx); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA application_id = %d`, applicationID))
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate store %s to schema %d: %w", s.path, v+1, err)
		}
	}
	return nil
}

// checkOwnership refuses a database that is not compactd's, reading it
// through a read-only handle so that nothing (not even the switch to WAL)
// touches a foreign file.
func checkOwnership(ctx context.Context, path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() == 0 {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	defer db.Close()
	var appID, tables, ours int
	if err := db.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	if appID != 0 && appID != applicationID {
		return fmt.Errorf("%s is an SQLite database of another application (application_id %#x), not a compactd store; refusing to touch it", path, appID)
	}
	if appID == 0 {
		// Early stores were not stamped; an unstamped database is ours only
		// if it has our tables, or no tables at all.
		if err := db.QueryRowContext(ctx,
			`SELECT count(*), coalesce(sum(name IN ('conversations','versions')),0) FROM sqlite_master WHERE type='table'`).Scan(&tables, &ours); err != nil {
			return fmt.Errorf("open store %s: %w", path, err)
		}
		if tables > 0 && ours != 2 {
			return fmt.Errorf("%s is an SQLite database of another application, not a compactd store; refusing to touch it", path)
		}
	}
	return nil
}
