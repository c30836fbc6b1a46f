package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The search index's tables (migrateSearch): one row per indexed source
// (search_docs: a transcript on disk, a session in an agent's database,
// a stored version), one per piece of its text (search_chunks: where in
// the source the piece's records are), and the full-text index of the
// pieces (search_text, FTS5). The index holds no text: it is contentless
// with detail=none (which terms each piece holds, not where), about a
// sixth of the text it indexes; daemon/search reads a candidate piece
// again from its source to check a phrase and cut a snippet.

// SearchKind says where an indexed source's bytes are.
type SearchKind int

const (
	// SearchFile is a transcript file (Source is its path).
	SearchFile SearchKind = iota
	// SearchDatabase is a session an agent keeps in its database (Source
	// is "<database path>#<session id>").
	SearchDatabase
	// SearchVersion is a stored version (Source is "version:<row id>").
	SearchVersion
)

// A SearchDoc is one indexed source and what the index knows of it.
// Beside its identity and what a hit shows (agent, project, session,
// title, version), it holds the state incremental indexing resumes from
// (Size, MTime, Indexed, Fingerprint), hence its fields.
type SearchDoc struct {
	ID     int64
	Source string
	Kind   SearchKind
	Format string
	// Agent is the registry's name of the agent whose session it is (""
	// for a format no registered agent writes).
	Agent     string
	Project   string
	SessionID string
	Title     string
	// Conversation and Version name a stored version (its conversation's
	// key, its label).
	Conversation string
	Version      string
	// Whole: the source is indexed whole on every change (a JSON
	// document); else its pieces are byte ranges and an append indexes
	// what was appended.
	Whole bool
	// Size and MTime are the source as last indexed; Indexed is how many
	// of its bytes the pieces cover; Fingerprint tells a source that was
	// rewritten from one that grew.
	Size, MTime, Indexed int64
	Fingerprint          string
	// Lines are the line ends in the Indexed bytes (a hit's line).
	Lines int64
	// TextBytes is the text indexed from it.
	TextBytes int64
	// Updated is its last activity (its newest message, else the file's
	// modification time).
	Updated time.Time
	// Evicted: its pieces were dropped to keep the index within its
	// size; it is indexed again when it changes.
	Evicted bool
}

// A SearchChunk is one piece of a source's text: Lo and Hi locate its
// records (bytes of the source, or messages of a whole one), From and To
// the bytes of the source they are in (Lo and Hi again for bytes), Time
// is its newest message's.
type SearchChunk struct {
	Lo, Hi   int64
	From, To int64
	// Verbatim: the bytes From to To hold the text as written (in JSON
	// strings, escapes aside), so a query's words can be looked for there
	// before the records are parsed.
	Verbatim bool
	// Line is the line Lo is on (1-based; 0 for a whole source).
	Line int64
	Time time.Time
	Text string
	// Terms are indexed beside Text: search's own terms, which no text
	// holds (its phrase keys).
	Terms string
	// TextBytes is the length of the text it was indexed from (read
	// back: the index keeps no text).
	TextBytes int64
}

// ErrSearchStale says a source's index entry changed since it was read:
// another process indexed it first.
var ErrSearchStale = errors.New("the source was indexed meanwhile")

const searchDocColumns = `id, source, kind, format, agent, project, session_id, title, conversation, version,
	whole, size, mtime, indexed, fingerprint, lines, text_bytes, updated, evicted`

func scanSearchDoc(r scanner) (SearchDoc, error) {
	var d SearchDoc
	var updated int64
	err := r.Scan(&d.ID, &d.Source, &d.Kind, &d.Format, &d.Agent, &d.Project, &d.SessionID, &d.Title, &d.Conversation, &d.Version,
		&d.Whole, &d.Size, &d.MTime, &d.Indexed, &d.Fingerprint, &d.Lines, &d.TextBytes, &updated, &d.Evicted)
	d.Updated = time.UnixMilli(updated)
	return d, err
}

// SearchDocs lists every indexed source.
func (s *Store) SearchDocs(ctx context.Context) ([]SearchDoc, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+searchDocColumns+` FROM search_docs`)
	if err != nil {
		return nil, fmt.Errorf("read the search index of %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []SearchDoc
	for rows.Next() {
		d, err := scanSearchDoc(rows)
		if err != nil {
			return nil, fmt.Errorf("read the search index of %s: %w", s.path, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// SearchDocByID returns the indexed sources with these ids.
func (s *Store) SearchDocsByID(ctx context.Context, ids []int64) (map[int64]SearchDoc, error) {
	out := make(map[int64]SearchDoc, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500)
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		rows, err := s.db.QueryContext(ctx, `SELECT `+searchDocColumns+` FROM search_docs WHERE id IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read the search index of %s: %w", s.path, err)
		}
		for rows.Next() {
			d, err := scanSearchDoc(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[d.ID] = d
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

// SearchDoc returns the indexed source named source.
func (s *Store) SearchDoc(ctx context.Context, source string) (SearchDoc, bool, error) {
	d, err := scanSearchDoc(s.db.QueryRowContext(ctx, `SELECT `+searchDocColumns+` FROM search_docs WHERE source = ?`, source))
	if errors.Is(err, sql.ErrNoRows) {
		return SearchDoc{}, false, nil
	}
	if err != nil {
		return SearchDoc{}, false, fmt.Errorf("read the search index of %s: %w", s.path, err)
	}
	return d, true, nil
}

// LastSearchChunk is the last piece of doc (by position), false when it has none.
func (s *Store) LastSearchChunk(ctx context.Context, doc int64) (id int64, c SearchChunk, ok bool, err error) {
	var t int64
	err = s.db.QueryRowContext(ctx, `SELECT id, lo, hi, line, time, text_bytes FROM search_chunks WHERE doc = ? ORDER BY hi DESC LIMIT 1`, doc).Scan(&id, &c.Lo, &c.Hi, &c.Line, &t, &c.TextBytes)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, c, false, nil
	}
	if err != nil {
		return 0, c, false, fmt.Errorf("read the search index of %s: %w", s.path, err)
	}
	c.Time = time.UnixMilli(t)
	return id, c, true, nil
}

// SearchUpdate is one source's change to the index, written at once.
type SearchUpdate struct {
	// Doc is the source's entry after the change (ID 0 for a new one).
	Doc SearchDoc
	// Expect is the entry the change was prepared from (nil for a
	// source not indexed yet): if the stored one differs, another
	// process indexed the source first and the update is refused with
	// ErrSearchStale.
	Expect *SearchDoc
	// Replace drops every piece of the source first (a rewritten file, a
	// whole document); Drop drops only these pieces (a short last piece
	// indexed again with what was appended to it).
	Replace bool
	Drop    []int64
	Chunks  []SearchChunk
}

// UpdateSearch writes u in one transaction and returns the entry as
// stored.
func (s *Store) UpdateSearch(ctx context.Context, u SearchUpdate) (SearchDoc, error) {
	d := u.Doc
	err := s.tx(ctx, func(tx *sql.Tx) error {
		cur, err := scanSearchDoc(tx.QueryRowContext(ctx, `SELECT `+searchDocColumns+` FROM search_docs WHERE source = ?`, d.Source))
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		switch {
		case u.Expect == nil && exists, u.Expect != nil && !exists:
			return ErrSearchStale
		case u.Expect != nil && (cur.Indexed != u.Expect.Indexed || cur.Fingerprint != u.Expect.Fingerprint || cur.Size != u.Expect.Size || cur.MTime != u.Expect.MTime):
			return ErrSearchStale
		}
		if exists {
			d.ID = cur.ID
			if u.Replace {
				if err := dropChunks(ctx, tx, `doc = ?`, d.ID); err != nil {
					return err
				}
			}
			for _, id := range u.Drop {
				if err := dropChunks(ctx, tx, `id = ? AND doc = ?`, id, d.ID); err != nil {
					return err
				}
			}
			_, err = tx.ExecContext(ctx, `UPDATE search_docs SET kind = ?, format = ?, agent = ?, project = ?, session_id = ?, title = ?,
				conversation = ?, version = ?, whole = ?, size = ?, mtime = ?, indexed = ?, fingerprint = ?, lines = ?, text_bytes = ?, updated = ?, evicted = ?
				WHERE id = ?`,
				d.Kind, d.Format, d.Agent, d.Project, d.SessionID, d.Title, d.Conversation, d.Version, d.Whole, d.Size, d.MTime,
				d.Indexed, d.Fingerprint, d.Lines, d.TextBytes, d.Updated.UnixMilli(), d.Evicted, d.ID)
		} else {
			var res sql.Result
			res, err = tx.ExecContext(ctx, `INSERT INTO search_docs(source, kind, format, agent, project, session_id, title, conversation, version,
				whole, size, mtime, indexed, fingerprint, lines, text_bytes, updated, evicted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				d.Source, d.Kind, d.Format, d.Agent, d.Project, d.SessionID, d.Title, d.Conversation, d.Version, d.Whole, d.Size, d.MTime,
				d.Indexed, d.Fingerprint, d.Lines, d.TextBytes, d.Updated.UnixMilli(), d.Evicted)
			if err == nil {
				d.ID, err = res.LastInsertId()
			}
		}
		if err != nil {
			return err
		}
		return putChunks(ctx, tx, d.ID, u.Chunks)
	})
	if err != nil {
		if errors.Is(err, ErrSearchStale) {
			return SearchDoc{}, err
		}
		return SearchDoc{}, fmt.Errorf("index %s for search in %s: %w", d.Source, s.path, err)
	}
	return d, nil
}

// putChunks adds chunks to the index. Their ids (the FTS5 rowids) are
// the table's next ones: FTS5 keeps each term's rowids as varint deltas,
// and dense ids keep those a byte or two (ids spread by time tripled the
// index). The index lists the pieces indexed last first: a sync indexes
// the sessions oldest first, so that is the newest first. A chunk's
// Terms, when set, are indexed beside its text (terms of the index's own
// that no text holds).
func putChunks(ctx context.Context, tx *sql.Tx, doc int64, chunks []SearchChunk) error {
	if len(chunks) == 0 {
		return nil
	}
	meta, err := tx.PrepareContext(ctx, `INSERT INTO search_chunks(doc, lo, hi, bytes_from, bytes_to, verbatim, line, time, text_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer meta.Close()
	text, err := tx.PrepareContext(ctx, `INSERT INTO search_text(rowid, text) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer text.Close()
	for _, c := range chunks {
		res, err := meta.ExecContext(ctx, doc, c.Lo, c.Hi, c.From, c.To, c.Verbatim, c.Line, c.Time.UnixMilli(), len(c.Text))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if _, err := text.ExecContext(ctx, id, c.Text+c.Terms); err != nil {
			return err
		}
	}
	return nil
}

func dropChunks(ctx context.Context, tx *sql.Tx, where string, args ...any) error {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM search_chunks WHERE `+where, args...)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_text WHERE rowid = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_chunks WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// DeleteSearchDoc drops a source and its pieces from the index (a session
// deleted), or, with evict, its pieces only, keeping what tells the next
// sync it is unchanged.
func (s *Store) DeleteSearchDoc(ctx context.Context, id int64, evict bool) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := dropChunks(ctx, tx, `doc = ?`, id); err != nil {
			return err
		}
		var err error
		if evict {
			_, err = tx.ExecContext(ctx, `UPDATE search_docs SET evicted = 1, text_bytes = 0 WHERE id = ?`, id)
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM search_docs WHERE id = ?`, id)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("drop a source from the search index of %s: %w", s.path, err)
	}
	return nil
}

// A SearchCandidate is a piece whose terms match a query.
type SearchCandidate struct {
	Chunk    int64
	Doc      int64
	Lo, Hi   int64
	From, To int64
	Verbatim bool
	Line     int64
	Time     time.Time
	// Rank is FTS5's bm25 of the piece (lower is better).
	Rank float64
}

// MatchSearch returns the newest pieces (at most limit) that hold every
// term of expr, an FTS5 query, of the sources docs (all when nil).
func (s *Store) MatchSearch(ctx context.Context, expr string, docs []int64, limit int) ([]SearchCandidate, error) {
	q := `SELECT t.rowid, bm25(search_text), c.doc, c.lo, c.hi, c.bytes_from, c.bytes_to, c.verbatim, c.line, c.time FROM search_text t JOIN search_chunks c ON c.id = t.rowid
		WHERE search_text MATCH ?`
	args := []any{expr}
	if docs != nil {
		if len(docs) == 0 {
			return nil, nil
		}
		q += ` AND c.doc IN (?` + strings.Repeat(",?", len(docs)-1) + `)`
		for _, d := range docs {
			args = append(args, d)
		}
	}
	q += ` ORDER BY t.rowid DESC LIMIT ?`
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []SearchCandidate
	for rows.Next() {
		var c SearchCandidate
		var t int64
		if err := rows.Scan(&c.Chunk, &c.Rank, &c.Doc, &c.Lo, &c.Hi, &c.From, &c.To, &c.Verbatim, &c.Line, &t); err != nil {
			return nil, fmt.Errorf("search %s: %w", s.path, err)
		}
		c.Time = time.UnixMilli(t)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search %s: %w", s.path, err)
	}
	return out, nil
}

// SearchSize is how large the search index is.
type SearchSize struct {
	// IndexBytes are the pages of the index's tables and indexes;
	// TextBytes the text it indexes.
	IndexBytes, TextBytes int64
	Docs, Chunks          int64
}

// searchTables are the search index's tables and indexes, FTS5's
// shadow tables included.
var searchTables = []string{"search_docs", "search_docs_updated", "search_chunks", "search_chunks_doc",
	"search_text_data", "search_text_idx", "search_text_docsize", "search_text_config"}

// SearchSize measures the index (reading every page of it: not for a
// query's path).
func (s *Store) SearchSize(ctx context.Context) (SearchSize, error) {
	var z SearchSize
	args := make([]any, len(searchTables))
	for i, t := range searchTables {
		args[i] = t
	}
	err := s.db.QueryRowContext(ctx, `SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (?`+strings.Repeat(",?", len(args)-1)+`)`, args...).Scan(&z.IndexBytes)
	if err == nil {
		err = s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(text_bytes), 0) FROM search_docs`).Scan(&z.Docs, &z.TextBytes)
	}
	if err == nil {
		err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM search_chunks`).Scan(&z.Chunks)
	}
	if err != nil {
		return z, fmt.Errorf("measure the search index of %s: %w", s.path, err)
	}
	return z, nil
}

// SearchText is the text the search index holds, in bytes (a sum over
// its sources, not its pages).
func (s *Store) SearchText(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(sum(text_bytes), 0) FROM search_docs`).Scan(&n); err != nil {
		return 0, fmt.Errorf("measure the search index of %s: %w", s.path, err)
	}
	return n, nil
}

// OptimizeSearch merges the index's segments into one (after a large
// first indexing or an eviction: queries then read one b-tree per term).
func (s *Store) OptimizeSearch(ctx context.Context) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO search_text(search_text) VALUES ('optimize')`)
		return err
	})
	if err != nil {
		return fmt.Errorf("optimize the search index of %s: %w", s.path, err)
	}
	return nil
}

// A VersionToIndex is a stored version with its conversation.
type VersionToIndex struct {
	Version
	Conversation Conversation
}

// VersionsAfter lists the stored versions with a row id above after,
// oldest first.
func (s *Store) VersionsAfter(ctx context.Context, after int64) ([]VersionToIndex, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+versionColumns+`, c.key, c.format, c.source_path, c.session_id
		FROM versions v LEFT JOIN versions p ON p.id = v.parent_id JOIN conversations c ON c.id = v.conversation_id
		WHERE v.id > ? ORDER BY v.id`, after)
	if err != nil {
		return nil, fmt.Errorf("list versions of %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []VersionToIndex
	for rows.Next() {
		var v VersionToIndex
		var pipeline, opts, report, created string
		err := rows.Scan(&v.ID, &v.ConversationID, &v.Label, &v.Parent, &v.ParentID, &v.Kind,
			&v.SourcePath, &v.SourceHash, &v.ContentHash, &v.Size, &v.Format, &pipeline, &opts, &report,
			&v.TokensBefore, &v.TokensAfter, &v.ForkPath, &created,
			&v.Conversation.Key, &v.Conversation.Format, &v.Conversation.SourcePath, &v.Conversation.SessionID)
		if err != nil {
			return nil, fmt.Errorf("list versions of %s: %w", s.path, err)
		}
		v.Created, _ = time.Parse(timeLayout, created)
		v.Conversation.ID = v.ConversationID
		out = append(out, v)
	}
	return out, rows.Err()
}

// VersionByID returns the version with row id id.
func (s *Store) VersionByID(ctx context.Context, id int64) (Version, error) {
	return s.versionWhere(ctx, `v.id = ?`, id)
}

// LastSearchVersion is the row id of the newest stored version the search
// index holds, 0 when none.
func (s *Store) LastSearchVersion(ctx context.Context) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(CAST(substr(source, 9) AS INTEGER)), 0) FROM search_docs WHERE kind = ?`, SearchVersion).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("read the search index of %s: %w", s.path, err)
	}
	return id, nil
}
