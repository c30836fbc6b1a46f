package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
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
			if _, err := putContent(ctx, tx, content, LineCuts(content)); err != nil {
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
	rec.DamagedKept = fmt.Sprintf("%s.damaged-%s", path, time.Now().UTC().Format("20060102T150405"))
	for _, s := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(path+s, rec.DamagedKept+s); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("keep the damaged store aside as %s: %w (the recovered copy is %s)", rec.DamagedKept, err, tmp)
		}
	}
	for _, s := range []string{"-wal", "-shm"} {
		os.Remove(tmp + s)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("put the recovered store in place: %w (it is %s; the damaged one is %s)", err, tmp, rec.DamagedKept)
	}
	return rec, nil
}

// readRows calls fn with each readable row of table, in rowid order,
// stepping over damaged pages: where a scan fails it probes further ahead
// (then back, row by row, through a small gap). It returns how many rows
// were seen to be lost or failed to copy.
func readRows(ctx context.Context, db *sql.DB, table, cols string, fn func([]any) error) (lost int) {
	n := strings.Count(cols, ",") + 1
	next := func(after int64) (int64, []any, error) {
		vals := make([]any, n)
		ptrs := make([]any, n+1)
		var rowid int64
		ptrs[0] = &rowid
		for i := range vals {
			ptrs[i+1] = &vals[i]
		}
		err := db.QueryRowContext(ctx, `SELECT rowid, `+cols+` FROM `+table+` WHERE rowid > ? ORDER BY rowid LIMIT 1`, after).Scan(ptrs...)
		return rowid, vals, err
	}
	last := int64(0)
	for ctx.Err() == nil {
		rowid, vals, err := next(last)
		if errors.Is(err, sql.ErrNoRows) {
			return lost
		}
		if err != nil {
			// Damaged pages: jump ahead until a scan works again.
			lost++
			found := false
			for step := int64(1); step < 1<<40; step *= 2 {
				if _, _, err := next(last + step); err == nil || errors.Is(err, sql.ErrNoRows) {
					last += step
					found = true
					break
				}
			}
			if !found {
				return lost
			}
			continue
		}
		last = rowid
		if fn(vals) != nil {
			lost++
		}
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
