package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Diagnosis is what can be learnt of a store too damaged to open normally.
type Diagnosis struct {
	Path      string   `json:"storePath"`
	Integrity []string `json:"integrity"`
}

// openRaw opens path as it is: no ownership check, no migration, no
// change of journal mode, so a damaged store can still be examined.
func openRaw(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	// A file shorter than its header says (truncated) is refused outright
	// unless the schema is writable; nothing here writes to it.
	q.Add("_pragma", "writable_schema(1)")
	return sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
}

// Diagnose runs SQLite's integrity check on a store that Open refuses
// (truncated, pages overwritten). It never writes to it.
func Diagnose(ctx context.Context, path string) (*Diagnosis, error) {
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	db, err := openRaw(path)
	if err != nil {
		return nil, explain(path, err)
	}
	defer db.Close()
	d := &Diagnosis{Path: path}
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check(100)`)
	if err != nil {
		d.Integrity = []string{sqliteMessage(err)}
		return d, nil
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if rows.Scan(&line) == nil && line != "ok" {
			d.Integrity = append(d.Integrity, line)
		}
	}
	if err := rows.Err(); err != nil {
		d.Integrity = append(d.Integrity, sqliteMessage(err))
	}
	return d, nil
}

// Recovery is what Recover saved.
type Recovery struct {
	// DamagedKept is where the damaged store was moved.
	DamagedKept   string `json:"damagedKept"`
	Conversations int    `json:"conversations"`
	Versions      int    `json:"versions"`
	// Lost lists the versions whose content could not be read whole
	// ("conversation key vN"), and LostRows counts rows not readable at all.
	Lost     []string `json:"lost,omitempty"`
	LostRows int      `json:"lostRows,omitempty"`
}

// Recover copies what is readable of the damaged store at path into a new
// store, keeps the damaged file beside it (path.damaged-TIME), and puts the
// new store in its place. A version is kept only when its content reads
// back whole and matches its hash; labels and lineage are kept. The token
// cache is not copied (it refills itself).
func Recover(ctx context.Context, path string) (*Recovery, error) {
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	old, err := openRaw(path)
	if err != nil {
		return nil, explain(path, err)
	}
	defer old.Close()
	tmp := path + ".recovering"
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(tmp + s)
	}
	nw, err := Open(ctx, tmp)
	if err != nil {
		return nil, fmt.Errorf("create the recovered store %s: %w", tmp, err)
	}
	rec := &Recovery{}
	failed := func() { nw.Close(); os.Remove(tmp) }
	oldStore := &Store{db: old, path: path}

	convs := map[int64]string{}
	lost := readRows(ctx, old, "conversations", "id, key, source_path, created_at, format, session_id", func(v []any) error {
		_, err := nw.db.ExecContext(ctx, `INSERT INTO conversations(id, key, source_path, created_at, format, session_id) VALUES (?, ?, ?, ?, ?, ?)`, v...)
		if err == nil {
			convs[asInt(v[0])] = asString(v[1])
			rec.Conversations++
		}
		return err
	})
	rec.LostRows += lost
	kept := map[int64]bool{}
	lost = readRows(ctx, old, "versions", `id, conversation_id, label, parent_id, source_path, fork_path, report, created_at,
		kind, source_hash, content_hash, size, format, pipeline, options, tokens_before, tokens_after`, func(v []any) error {
		id, conv, label, hash := asInt(v[0]), asInt(v[1]), asString(v[2]), asString(v[10])
		if _, ok := convs[conv]; !ok {
			rec.Lost = append(rec.Lost, fmt.Sprintf("conversation #%d %s", conv, label))
			return nil
		}
		content, err := oldStore.Content(ctx, hash)
		if err != nil {
			rec.Lost = append(rec.Lost, convs[conv]+" "+label)
			return nil
		}
		if p := asInt(v[3]); v[3] != nil && !kept[p] {
			v[3] = nil // its parent was lost
		}
		err = nw.tx(ctx, func(tx *sql.Tx) error {
			if _, err := putContent(ctx, tx, content, LineCuts(content), "", ""); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO versions(id, conversation_id, label, parent_id, source_path, fork_path, report, created_at,
				kind, source_hash, content_hash, size, format, pipeline, options, tokens_before, tokens_after)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, v...)
			return err
		})
		if err == nil {
			kept[id] = true
			rec.Versions++
		}
		return err
	})
	rec.LostRows += lost
	rec.LostRows += readRows(ctx, old, "summaries", "id, conversation_key, text, from_turn, to_turn, tokens, model, created_at, redacted, level", func(v []any) error {
		_, err := nw.db.ExecContext(ctx, `INSERT INTO summaries(id, conversation_key, text, from_turn, to_turn, tokens, model, created_at, redacted, level) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, v...)
		return err
	})
	// Recall contents are kept when they read back whole; a version's
	// link to one, when both were kept. Stores older than recall handles
	// have neither table.
	var recalls int
	old.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'recalls'`).Scan(&recalls)
	if recalls > 0 {
		rec.LostRows += readRows(ctx, old, "recalls", "handle, hash, size, data, codec, created_at", func(v []any) error {
			data, _ := v[3].([]byte)
			hash, _ := v[1].([]byte)
			content, err := inflate(data, int(asInt(v[4])), asInt(v[2]))
			if err != nil || len(hash) != sha256.Size || sha256.Sum256(content) != [32]byte(hash) {
				rec.Lost = append(rec.Lost, "recall "+asString(v[0]))
				return nil
			}
			_, err = nw.db.ExecContext(ctx, `INSERT INTO recalls(handle, hash, size, data, codec, created_at) VALUES (?, ?, ?, ?, ?, ?)`, v...)
			return err
		})
		rec.LostRows += readRows(ctx, old, "version_recalls", "version_id, handle", func(v []any) error {
			if !kept[asInt(v[0])] {
				return nil
			}
			_, err := nw.db.ExecContext(ctx, `INSERT OR IGNORE INTO version_recalls(version_id, handle) SELECT ?, handle FROM recalls WHERE handle = ?`, v...)
			return err
		})
	}
	if err := ctx.Err(); err != nil {
		failed()
		return nil, err
	}
	if err := nw.Checkpoint(ctx); err != nil {
		failed()
		return nil, err
	}
	if err := nw.Close(); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	old.Close()
	// The damaged store's journal is folded into it first: a -wal left at
	// path would be replayed into the recovered store put there. Then the
	// damaged file gets its second name and the recovered one replaces it
	// in one rename, so path always holds one store or the other, whenever
	// this is killed.
	if err := foldJournal(ctx, path); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	rec.DamagedKept = fmt.Sprintf("%s.damaged-%s", path, time.Now().UTC().Format("20060102T150405"))
	if err := os.Link(path, rec.DamagedKept); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("keep the damaged store as %s: %w; nothing was changed", rec.DamagedKept, err)
	}
	for _, s := range []string{"-wal", "-shm"} {
		os.Remove(tmp + s)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("put the recovered store in place: %w (it is %s; the damaged one is still at %s)", err, tmp, path)
	}
	syncDir(filepath.Dir(path))
	return rec, nil
}

// readRows calls fn with each readable row of table, in rowid order. A
// scan stops at the first damaged page, so from there rows are read one
// by one by rowid (each lookup descends only its own path of pages) until
// giveUp rowids in a row yield nothing. It returns how many rows could not
// be read or copied.
func readRows(ctx context.Context, db *sql.DB, table, cols string, fn func([]any) error) (lost int) {
	const giveUp = 1000
	n := strings.Count(cols, ",") + 1
	row := func(query string, arg int64) (int64, []any, error) {
		vals := make([]any, n)
		ptrs := make([]any, n+1)
		var rowid int64
		ptrs[0] = &rowid
		for i := range vals {
			ptrs[i+1] = &vals[i]
		}
		err := db.QueryRowContext(ctx, `SELECT rowid, `+cols+` FROM `+table+` WHERE `+query, arg).Scan(ptrs...)
		return rowid, vals, err
	}
	last := int64(0)
	for ctx.Err() == nil {
		rowid, vals, err := row(`rowid > ? ORDER BY rowid LIMIT 1`, last)
		if errors.Is(err, sql.ErrNoRows) {
			return lost
		}
		if err != nil {
			break
		}
		last = rowid
		if fn(vals) != nil {
			lost++
		}
	}
	failures, errs := 0, 0
	for id := last + 1; failures < giveUp && ctx.Err() == nil; id++ {
		_, vals, err := row(`rowid = ?`, id)
		if err != nil {
			failures++
			if !errors.Is(err, sql.ErrNoRows) {
				errs++
			}
			continue
		}
		lost += errs // unreadable rows between two readable ones
		failures, errs = 0, 0
		if fn(vals) != nil {
			lost++
		}
	}
	if errs > 0 && last == 0 && lost == 0 {
		lost = 1 // nothing of the table could be read
	}
	return lost
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// foldJournal checkpoints path's write-ahead log into it and leaves no
// -wal or -shm beside it.
func foldJournal(ctx context.Context, path string) error {
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		db, err := openRaw(path)
		if err != nil {
			return explain(path, err)
		}
		_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		db.Close()
		if fi, serr := os.Stat(path + "-wal"); err != nil || serr == nil && fi.Size() > 0 {
			return fmt.Errorf("the damaged store's journal %s-wal cannot be folded into it (%v); nothing was changed — move %s and its -wal and -shm files aside by hand to start a new store", path, err, path)
		}
	}
	for _, s := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + s); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s%s: %w; nothing was changed", path, s, err)
		}
	}
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
