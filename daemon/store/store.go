package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/compactd/compactd/daemon/platform"
)

// applicationID marks a database as compactd's ("cmpd"), so a foreign
// SQLite file passed by mistake is refused instead of migrated.
const applicationID = 0x636d7064

// sqliteHeader opens every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// busyTimeout is how long a writer waits for another to finish (SQLite's
// busy_timeout): every write transaction holds the store for lookups and
// inserts only — what they insert is prepared before — so a wait this
// long means something held it far longer than any of compactd's own.
const busyTimeout = 10 * time.Second

// Store is an open compactd database. It is safe for concurrent use; SQLite
// serializes writers across processes (busy_timeout waits for the lock).
type Store struct {
	db   *sql.DB
	path string

	// sound remembers the last passed quick check (CheckSound).
	sound soundness

	// tokenLookup is prepared once: the cold scan looks up every message's
	// count, and preparing per lookup cost more than the query.
	tokenLookupOnce sync.Once
	tokenLookup     *sql.Stmt
	tokenLookupErr  error
}

// DefaultPath resolves where the store lives: COMPACTD_STORE, else
// $XDG_STATE_HOME/compactd/compactd.db, else on Windows
// %LOCALAPPDATA%\compactd\compactd.db (local, not roaming: a database is
// not copied between machines), else $HOME/.local/state/compactd/compactd.db.
// getenv is passed in so commands and tests control the environment.
func DefaultPath(getenv func(string) string) (string, error) {
	return defaultPath(getenv, runtime.GOOS)
}

func defaultPath(getenv func(string) string, goos string) (string, error) {
	if p := getenv("COMPACTD_STORE"); p != "" {
		return p, nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "compactd", "compactd.db"), nil
	}
	if goos == "windows" {
		if d := getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "compactd", "compactd.db"), nil
		}
		if h := getenv("USERPROFILE"); h != "" {
			return filepath.Join(h, "AppData", "Local", "compactd", "compactd.db"), nil
		}
		return "", errors.New("cannot locate the store: set LOCALAPPDATA, XDG_STATE_HOME or COMPACTD_STORE, or pass --store")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "compactd", "compactd.db"), nil
	}
	return "", errors.New("cannot locate the store: set HOME, XDG_STATE_HOME or COMPACTD_STORE, or pass --store")
}

// Open opens (creating if needed) the store at path and migrates it to the
// current schema. A file that is not a compactd store is refused untouched.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	if err := checkLocation(abs); err != nil {
		return nil, err
	}
	if err := checkHeader(abs); err != nil {
		return nil, err
	}
	if err := fixSidecarModes(abs); err != nil {
		return nil, err
	}
	if err := checkOwnership(ctx, abs); err != nil {
		return nil, explain(abs, err)
	}
	// Create the file ourselves so it starts as 0600: SQLite gives the -wal
	// and -shm files the database file's permissions.
	f, err := platform.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, explain(abs, fmt.Errorf("open store %s: %w", abs, err))
	}
	fi, err := f.Stat()
	f.Close()
	if err == nil && !fi.Mode().IsRegular() {
		return nil, &StoreError{Path: abs, Cause: fmt.Sprintf("is not a regular file (%s)", fi.Mode().Type()), Fix: "point --store (or COMPACTD_STORE) at a database file"}
	}
	if err == nil && fi.Mode().Perm()&0o077 != 0 {
		// Tighten, never loosen: a store others can read leaks transcripts.
		if err := os.Chmod(abs, fi.Mode().Perm()&0o700); err != nil {
			return nil, fmt.Errorf("store %s: %w", abs, err)
		}
	}
	// The check above may have created sidecars while the file was
	// read-only; make sure they are writable now.
	if err := fixSidecarModes(abs); err != nil {
		return nil, err
	}

	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: abs}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, explain(abs, fmt.Errorf("open store %s: %w", abs, err))
	}
	s := &Store{db: db, path: abs}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, explain(abs, err)
	}
	return s, nil
}

// checkHeader refuses a non-empty file that is not an SQLite database before
// SQLite gets a chance to treat it as one.
func checkHeader(path string) error {
	f, err := platform.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF) {
		return nil
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("read store %s: %w", path, err)
	}
	if !bytes.Equal(head[:n], sqliteHeader) {
		return &StoreError{Path: path, Cause: "is not a compactd store (its first bytes are not an SQLite header), so compactd leaves it untouched",
			Fix: "point --store (or COMPACTD_STORE) at another file, or, if this was your store and it was overwritten, move it aside to start a new one"}
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s.tokenLookup != nil {
		s.tokenLookup.Close()
	}
	return s.db.Close()
}

// Path is the database file's absolute path.
func (s *Store) Path() string { return s.path }

// Dir is the folder holding the database; reports and locks live beside it.
func (s *Store) Dir() string { return filepath.Dir(s.path) }

// ReportsDir is where dry-run Markdown reports are written.
func (s *Store) ReportsDir() string { return filepath.Join(s.Dir(), "reports") }

// LocksDir holds one lock file per conversation.
func (s *Store) LocksDir() string { return filepath.Join(s.Dir(), "locks") }

// DB exposes the handle for tests and diagnostics in this module.
func (s *Store) DB() *sql.DB { return s.db }

// tx runs fn in one transaction (BEGIN IMMEDIATE, so writers queue up front
// instead of failing on upgrade). The transaction ends however fn does:
// one left open by a panic (which the job recovers) held the store's
// write lock, in every process, for as long as this one lived.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store %s: begin: %w", s.path, err)
	}
	committed := false
	defer func() {
		if !committed {
			tx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store %s: commit: %w", s.path, err)
	}
	committed = true
	return nil
}
