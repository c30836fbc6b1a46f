package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/compactd/compactd/daemon/platform"
)

// A store can be unusable in ways SQLite reports tersely ("database disk
// image is malformed", "attempt to write a readonly database"). The errors
// here say what is true and what to do, once, in one sentence.

// ErrDamaged marks a store that fails its integrity check or whose pages
// cannot be read: nothing is written into it until it is repaired.
var ErrDamaged = errors.New("the store is damaged")

// ErrUnwritable marks a store that cannot be written (read-only file or
// folder, or a folder that cannot be created).
var ErrUnwritable = errors.New("the store cannot be written")

// ErrBusy is the Kind of a StoreError for a store another writer held
// for longer than busyTimeout: nothing is wrong with it; try again.
var ErrBusy = errors.New("the store is busy")

// StoreError is an unusable store: Path names it, Fix says what to do.
type StoreError struct {
	Path  string
	Cause string // what is wrong, in words
	Fix   string // what to do about it
	Kind  error  // ErrDamaged, ErrUnwritable or nil
	Err   error  // the underlying error, if any
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("the store %s %s; %s", e.Path, e.Cause, e.Fix)
}

func (e *StoreError) Unwrap() []error {
	out := []error{}
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// Damaged is the error for a store found damaged by its user: cause says
// how (in words that follow "the store PATH"), err is what was seen.
func Damaged(path, cause string, err error) error {
	return &StoreError{Path: path, Cause: cause, Fix: repairFix(path), Kind: ErrDamaged, Err: err}
}

// repairFix is the advice for a damaged store.
func repairFix(path string) string {
	return fmt.Sprintf("run `compactd doctor --fix --store %s` to recover what is readable into a new store (the damaged file is kept beside it), or move it aside to start a new store", path)
}

const pointElsewhere = "point --store (or COMPACTD_STORE) at a store in a writable folder"

func elsewhereFix() string { return "or " + pointElsewhere }

// sqliteCode is the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// IsDamaged reports whether err says the store's file is damaged.
func IsDamaged(err error) bool {
	if errors.Is(err, ErrDamaged) {
		return true
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return err != nil && strings.Contains(err.Error(), "database disk image is malformed")
}

// explain turns an error from opening or using the store at path into a
// StoreError naming the cause and the fix, when it is one of the store's
// own failures; other errors are returned as they are.
func explain(path string, err error) error {
	if err == nil {
		return nil
	}
	var se *StoreError
	if errors.As(err, &se) {
		return err
	}
	if IsDamaged(err) {
		return &StoreError{Path: path, Cause: "is damaged (" + sqliteMessage(err) + ")", Fix: repairFix(path), Kind: ErrDamaged, Err: err}
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_READONLY:
		return &StoreError{Path: path, Cause: "cannot be written (" + sqliteMessage(err) + ")",
			Fix: fmt.Sprintf("make it, %[1]s-wal, %[1]s-shm and their folder writable by you, %[2]s", path, elsewhereFix()), Kind: ErrUnwritable, Err: err}
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
		return &StoreError{Path: path, Cause: "cannot be opened (" + sqliteMessage(err) + ")",
			Fix: fmt.Sprintf("check that %s and its folder are readable and writable by you, %s", path, elsewhereFix()), Kind: ErrUnwritable, Err: err}
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return &StoreError{Path: path, Cause: fmt.Sprintf("was busy: another compactd (a server or a command) held it for writing for more than %s", busyTimeout),
			Fix: "nothing was recorded or changed; try again in a moment", Kind: ErrBusy, Err: err}
	case sqlite3.SQLITE_FULL:
		return &StoreError{Path: path, Cause: "cannot grow: the disk is full", Fix: "free some space, or point --store (or COMPACTD_STORE) at another disk", Err: err}
	case sqlite3.SQLITE_IOERR:
		return &StoreError{Path: path, Cause: "cannot be read or written (" + sqliteMessage(err) + ")",
			Fix: fmt.Sprintf("check the disk and run `compactd doctor --store %s`", path), Err: err}
	}
	return err
}

// sqliteMessage is SQLite's own words for err, without the code suffix.
func sqliteMessage(err error) string {
	var se *sqlite.Error
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Error()
	}
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		msg = msg[:i]
	}
	return msg
}

// checkLocation refuses, before SQLite sees them, a store path whose folder
// is missing and cannot be made, is a file, or is read-only, and a store
// path that is a folder, a pipe or a read-only file. Modes are checked by
// their bits, so a store run as root honours them too.
func checkLocation(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		var blocker string
		for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
				blocker = d
				break
			}
		}
		if blocker != "" {
			return &StoreError{Path: path, Cause: fmt.Sprintf("cannot be created: %s is a file, not a folder", blocker),
				Fix: "point --store (or COMPACTD_STORE) at a path whose folders exist or can be created", Kind: ErrUnwritable, Err: err}
		}
		return &StoreError{Path: path, Cause: fmt.Sprintf("cannot be created: its folder %s cannot be made (%v)", dir, unwrapPath(err)),
			Fix: "create the folder yourself, " + elsewhereFix(), Kind: ErrUnwritable, Err: err}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return &StoreError{Path: path, Cause: fmt.Sprintf("cannot be reached: %v", err), Fix: pointElsewhere, Err: err}
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return &StoreError{Path: path, Cause: fmt.Sprintf("is in the read-only folder %s (SQLite writes its journal beside it)", dir),
			Fix: fmt.Sprintf("make the folder writable (chmod u+w %s), %s", dir, elsewhereFix()), Kind: ErrUnwritable}
	}
	lfi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &StoreError{Path: path, Cause: fmt.Sprintf("cannot be reached (%v)", unwrapPath(err)), Fix: pointElsewhere, Err: err}
	}
	switch {
	case lfi.IsDir():
		return &StoreError{Path: path, Cause: "is a folder, not a database file",
			Fix: fmt.Sprintf("point --store (or COMPACTD_STORE) at a file, e.g. %s", filepath.Join(path, "compactd.db"))}
	case !lfi.Mode().IsRegular():
		return &StoreError{Path: path, Cause: fmt.Sprintf("is not a regular file (%s)", lfi.Mode().Type()),
			Fix: "point --store (or COMPACTD_STORE) at a database file"}
	case lfi.Mode().Perm()&0o200 == 0:
		return &StoreError{Path: path, Cause: fmt.Sprintf("is read-only (mode %04o)", lfi.Mode().Perm()),
			Fix: fmt.Sprintf("make it writable (chmod 600 %s), %s", path, elsewhereFix()), Kind: ErrUnwritable}
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fixSidecarModes gives the -wal and -shm files the store file's 0600
// when they lack write permission: SQLite creates them with the database
// file's mode, so a store once opened while read-only left them
// read-only, and every later write failed with "attempt to write a
// readonly database".
func fixSidecarModes(path string) error {
	for _, suffix := range []string{"-wal", "-shm"} {
		p := path + suffix
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o600 == 0o600 {
			continue
		}
		if platform.OwnedByOther(fi) {
			return &StoreError{Path: path, Cause: fmt.Sprintf("has a %s file owned by another user with mode %04o", suffix, fi.Mode().Perm()),
				Fix: fmt.Sprintf("give %s back to yourself with mode 600, %s", p, elsewhereFix()), Kind: ErrUnwritable}
		}
		if err := os.Chmod(p, 0o600); err != nil {
			return &StoreError{Path: path, Cause: fmt.Sprintf("has a read-only %s file that cannot be made writable (%v)", suffix, unwrapPath(err)),
				Fix: fmt.Sprintf("run chmod 600 %s, %s", p, elsewhereFix()), Kind: ErrUnwritable, Err: err}
		}
	}
	return nil
}

// soundFor is how long a passed quick check is trusted by a long-lived
// process before writes check again.
const soundFor = 30 * time.Second

type soundness struct {
	mu     sync.Mutex
	passed time.Time
}

// CheckSound refuses to let anything be written into a store that fails
// SQLite's quick check. A pass is remembered for soundFor; a failure is
// returned as a StoreError (ErrDamaged) saying how to repair the store.
func (s *Store) CheckSound(ctx context.Context) error {
	s.sound.mu.Lock()
	defer s.sound.mu.Unlock()
	if !s.sound.passed.IsZero() && time.Since(s.sound.passed) < soundFor {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(3)`)
	if err != nil {
		return explain(s.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return explain(s.path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return explain(s.path, err)
	}
	if len(problems) > 0 {
		return &StoreError{Path: s.path, Cause: "fails its integrity check (" + firstLine(problems[0]) + ")", Fix: repairFix(s.path), Kind: ErrDamaged}
	}
	s.sound.passed = time.Now()
	return nil
}

// ForgetSound makes the next CheckSound check again (after a failure seen
// elsewhere).
func (s *Store) ForgetSound() {
	s.sound.mu.Lock()
	s.sound.passed = time.Time{}
	s.sound.mu.Unlock()
}

// Explain is explain for callers outside the package: an error from using
// this store, reworded when it is the store's own failure.
func (s *Store) Explain(err error) error { return explain(s.path, err) }
