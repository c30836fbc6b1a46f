//go:build !windows

package platform

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// OpenFile is os.OpenFile that never blocks: opening a named pipe for
// reading otherwise waits for a writer, ignoring every signal but SIGKILL.
// O_NONBLOCK does not change how a regular file reads or writes, and
// O_NOCTTY keeps a terminal device from becoming our controlling terminal.
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag|syscall.O_NONBLOCK|syscall.O_NOCTTY, perm)
}

// Replace renames tmp over path atomically. On Unix a rename replaces a
// file that others hold open; they keep the old inode.
func Replace(tmp, path string) error {
	return os.Rename(tmp, path)
}

// ReplaceKeepsOpenFiles reports whether a file held open stays readable
// after Replace put another file at its path (true on Unix: the open file
// is the old inode).
const ReplaceKeepsOpenFiles = true

// SyncDir makes renames and links in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// FileID identifies the file at path, which fi describes (its inode), for
// as long as it exists, whatever its name; 0 when unknown.
func FileID(path string, fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// OwnedByOther reports whether another user owns the file fi describes.
func OwnedByOther(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Geteuid()
}

// ProcessAlive reports whether the process pid still runs (a process of
// another user counts as running).
func ProcessAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// ReplaceOnce renames tmp over path (Unix never refuses: see Replace).
func ReplaceOnce(tmp, path string) error { return os.Rename(tmp, path) }

// InUse is false on Unix: no program's open file keeps another from
// replacing it.
func InUse(err error) bool { return false }
