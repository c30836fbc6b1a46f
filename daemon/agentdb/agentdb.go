// Package agentdb reads the SQLite databases where opencode and Kilo Code
// keep their sessions ($XDG_DATA_HOME/opencode/opencode.db,
// $XDG_DATA_HOME/kilo/kilo.db) without ever getting in the agent's way:
// the connection is opened read-only (mode=ro) with query_only on and a
// busy timeout, every read is one short transaction (WAL lets it run
// beside the agent's writes; it sees the last commit), and nothing is
// ever written. A session is rendered as the JSON `opencode export ID`
// prints — {info, messages: [{info, parts}]} — which the pure codec in
// compaction/format/opencode reads.
package agentdb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// BusyTimeout is how long a read waits for a lock the agent holds (a WAL
// recovery or checkpoint); reads in WAL mode otherwise never wait.
const BusyTimeout = 2 * time.Second

// DB is a read-only connection to an agent's database.
type DB struct {
	db   *sql.DB
	path string
}

// Open opens path read-only. It fails with a clear sentence when the file
// is missing or not an SQLite database.
func Open(path string) (*DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("agent database %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("agent database %s is not a regular file", path)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open agent database %s: %w", path, err)
	}
	// One connection: reads are short, and a second connection would only
	// hold a second WAL snapshot.
	db.SetMaxOpenConns(1)
	return &DB{db: db, path: path}, nil
}

// Close closes the connection.
func (d *DB) Close() error { return d.db.Close() }

// Path is the database file.
func (d *DB) Path() string { return d.path }

// A Session is one session row, with a fingerprint that changes whenever
// the session, its messages or its parts do.
type Session struct {
	ID        string
	Directory string
	Title     string
	// Fingerprint is the latest update time and the row counts of the
	// session's messages and parts.
	Fingerprint string
}

// Sessions lists the sessions whose directory is one of dirs or inside
// one (every session when dirs is nil), newest first.
func (d *DB) Sessions(ctx context.Context, dirs []string) ([]Session, error) {
	tx, err := d.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// Only the workspace's sessions are fingerprinted: the subqueries
	// walk each session's rows (through their session_id indexes).
	where, args := "", []any{}
	if dirs != nil {
		var conds []string
		for _, d := range dirs {
			d = filepath.Clean(d)
			prefix := strings.TrimSuffix(d, string(filepath.Separator)) + string(filepath.Separator)
			conds = append(conds, "(s.directory = ? OR substr(s.directory, 1, length(?)) = ?)")
			args = append(args, d, prefix, prefix)
		}
		if len(conds) == 0 {
			return nil, nil
		}
		where = "WHERE " + strings.Join(conds, " OR ")
	}
	rows, err := tx.QueryContext(ctx, `SELECT s.id, s.directory, s.title, s.time_updated,
		(SELECT count(*) || ':' || coalesce(max(time_updated), 0) FROM message m WHERE m.session_id = s.id),
		(SELECT count(*) || ':' || coalesce(max(time_updated), 0) FROM part p WHERE p.session_id = s.id)
		FROM session s `+where+` ORDER BY s.time_updated DESC`, args...)
	if err != nil {
		return nil, d.fail("list sessions", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var s Session
		var updated int64
		var msgs, parts string
		if err := rows.Scan(&s.ID, &s.Directory, &s.Title, &updated, &msgs, &parts); err != nil {
			return nil, d.fail("list sessions", err)
		}
		if dirs != nil && !inAny(s.Directory, dirs) {
			continue
		}
		s.Fingerprint = fmt.Sprintf("%d/%s/%s", updated, msgs, parts)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, d.fail("list sessions", err)
	}
	return out, nil
}

func inAny(dir string, roots []string) bool {
	dir = filepath.Clean(dir)
	for _, r := range roots {
		rel, err := filepath.Rel(r, dir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// read starts a read transaction. database/sql's read-only option makes
// the driver begin a deferred transaction: it takes no write lock, and in
// WAL mode it never waits for the agent's writers.
func (d *DB) read(ctx context.Context) (*sql.Tx, error) {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, d.fail("begin a read", err)
	}
	return tx, nil
}

func (d *DB) fail(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s in %s: %w (the agent's database is only ever read)", what, d.path, err)
}

// ErrNoSession means the session id is not in the database (deleted).
var ErrNoSession = errors.New("no such session")

// Export renders session id as `opencode export` does: its info, then
// its messages in creation order, each with its parts in id order. The
// rows are read in one transaction, so the export is one consistent
// snapshot of a session the agent may be writing.
func (d *DB) Export(ctx context.Context, id string) ([]byte, error) {
	tx, err := d.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	info, err := sessionInfo(ctx, tx, id)
	if err != nil {
		if errors.Is(err, ErrNoSession) {
			return nil, err
		}
		return nil, d.fail("read session "+id, err)
	}
	type message struct {
		info  map[string]any
		parts []json.RawMessage
	}
	var msgs []*message
	byID := map[string]*message{}
	rows, err := tx.QueryContext(ctx, `SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id`, id)
	if err != nil {
		return nil, d.fail("read messages of "+id, err)
	}
	for rows.Next() {
		var mid, data string
		if err := rows.Scan(&mid, &data); err != nil {
			rows.Close()
			return nil, d.fail("read messages of "+id, err)
		}
		m := &message{info: map[string]any{}}
		if unmarshal(data, &m.info) != nil {
			// Kept visible to the codec as a message it cannot read.
			m.info = map[string]any{"error": "unreadable message data"}
		}
		m.info["id"], m.info["sessionID"] = mid, id
		msgs = append(msgs, m)
		byID[mid] = m
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.fail("read messages of "+id, err)
	}
	prows, err := tx.QueryContext(ctx, `SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id`, id)
	if err != nil {
		return nil, d.fail("read parts of "+id, err)
	}
	for prows.Next() {
		var pid, mid, data string
		if err := prows.Scan(&pid, &mid, &data); err != nil {
			prows.Close()
			return nil, d.fail("read parts of "+id, err)
		}
		m := byID[mid]
		if m == nil {
			continue
		}
		part := map[string]any{}
		if unmarshal(data, &part) != nil {
			part = map[string]any{"type": "unreadable"}
		}
		part["id"], part["sessionID"], part["messageID"] = pid, id, mid
		b, err := marshal(part)
		if err != nil {
			prows.Close()
			return nil, fmt.Errorf("render part %s: %w", pid, err)
		}
		m.parts = append(m.parts, b)
	}
	prows.Close()
	if err := prows.Err(); err != nil {
		return nil, d.fail("read parts of "+id, err)
	}
	var out bytes.Buffer
	out.WriteString(`{"info":`)
	ib, err := marshal(info)
	if err != nil {
		return nil, err
	}
	out.Write(ib)
	out.WriteString(`,"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			out.WriteByte(',')
		}
		mb, err := marshal(m.info)
		if err != nil {
			return nil, err
		}
		out.WriteString(`{"info":`)
		out.Write(mb)
		out.WriteString(`,"parts":[`)
		for k, p := range m.parts {
			if k > 0 {
				out.WriteByte(',')
			}
			out.Write(p)
		}
		out.WriteString(`]}`)
	}
	out.WriteString("]}")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("render session %s: %w", id, err)
	}
	pretty.WriteByte('\n')
	return pretty.Bytes(), nil
}

// unmarshal decodes a row's JSON keeping numbers as written.
func unmarshal(data string, v *map[string]any) error {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if *v == nil {
		return errors.New("null")
	}
	return nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// sessionInfo renders the session row as opencode's Session.Info.
func sessionInfo(ctx context.Context, tx *sql.Tx, id string) (map[string]any, error) {
	var (
		projectID, slug, directory, title, version                    string
		workspaceID, parentID, path, shareURL, summaryDiffs, metadata sql.NullString
		revert, permission, agent, model                              sql.NullString
		additions, deletions, files                                   sql.NullInt64
		cost                                                          float64
		tin, tout, treason, tcr, tcw, created, updated                int64
		compacting, archived                                          sql.NullInt64
	)
	err := tx.QueryRowContext(ctx, `SELECT project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url,
		summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output,
		tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created, time_updated,
		time_compacting, time_archived FROM session WHERE id = ?`, id).Scan(&projectID, &workspaceID, &parentID, &slug, &directory, &path, &title,
		&version, &shareURL, &additions, &deletions, &files, &summaryDiffs, &metadata, &cost, &tin, &tout, &treason, &tcr, &tcw,
		&revert, &permission, &agent, &model, &created, &updated, &compacting, &archived)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %s: %w", id, ErrNoSession)
	}
	if err != nil {
		return nil, err
	}
	info := map[string]any{"id": id, "slug": slug, "projectID": projectID, "directory": directory, "title": title, "version": version,
		"cost": cost, "tokens": map[string]any{"input": tin, "output": tout, "reasoning": treason, "cache": map[string]any{"read": tcr, "write": tcw}}}
	setString := func(key string, v sql.NullString) {
		if v.Valid {
			info[key] = v.String
		}
	}
	setJSON := func(key string, v sql.NullString) {
		if v.Valid && json.Valid([]byte(v.String)) {
			info[key] = json.RawMessage(v.String)
		}
	}
	setString("workspaceID", workspaceID)
	setString("parentID", parentID)
	setString("path", path)
	setString("agent", agent)
	setJSON("model", model)
	setJSON("permission", permission)
	setJSON("revert", revert)
	setJSON("metadata", metadata)
	if shareURL.Valid {
		info["share"] = map[string]any{"url": shareURL.String}
	}
	if additions.Valid || deletions.Valid || files.Valid {
		s := map[string]any{"additions": additions.Int64, "deletions": deletions.Int64, "files": files.Int64}
		if summaryDiffs.Valid && json.Valid([]byte(summaryDiffs.String)) {
			s["diffs"] = json.RawMessage(summaryDiffs.String)
		}
		info["summary"] = s
	}
	t := map[string]any{"created": created, "updated": updated}
	if compacting.Valid {
		t["compacting"] = compacting.Int64
	}
	if archived.Valid {
		t["archived"] = archived.Int64
	}
	info["time"] = t
	return info, nil
}
