//go:build windows

package platform

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// OpenFile is os.OpenFile with the share mode a reader of another
// program's file needs on Windows: read, write and delete sharing, so the
// agent keeps appending to, renaming and deleting its transcript while
// compactd has it open (Go's own open leaves out delete sharing, and the
// agent's rename or delete would fail while we read).
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	path, err := windows.UTF16PtrFromString(fixLongPath(name))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		access &^= windows.GENERIC_WRITE
		access |= windows.FILE_APPEND_DATA
	}
	var create uint32
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		create = windows.CREATE_NEW
	case flag&(os.O_CREATE|os.O_TRUNC) == os.O_CREATE|os.O_TRUNC:
		create = windows.CREATE_ALWAYS
	case flag&os.O_CREATE == os.O_CREATE:
		create = windows.OPEN_ALWAYS
	case flag&os.O_TRUNC == os.O_TRUNC:
		create = windows.TRUNCATE_EXISTING
	default:
		create = windows.OPEN_EXISTING
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if perm&0o200 == 0 && flag&os.O_CREATE != 0 {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	// Backup semantics let a folder open too, so it fails the caller's
	// regular-file check with a clear sentence, not "access denied".
	attrs |= windows.FILE_FLAG_BACKUP_SEMANTICS
	h, err := windows.CreateFile(path, access,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, create, attrs, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// fixLongPath lets a path longer than MAX_PATH open, as os does.
func fixLongPath(name string) string {
	if len(name) < 248 || !isAbs(name) {
		return name
	}
	if len(name) >= 4 && (name[:4] == `\\?\` || name[:4] == `\\.\`) {
		return name
	}
	if len(name) >= 2 && name[:2] == `\\` {
		return `\\?\UNC\` + name[2:]
	}
	return `\\?\` + name
}

func isAbs(name string) bool {
	return len(name) >= 3 && name[1] == ':' && (name[2] == '\\' || name[2] == '/') || len(name) >= 2 && name[:2] == `\\`
}

// replaceWait bounds how long Replace retries while another program holds
// the target open without delete sharing (an editor's reader, an
// antivirus scan, the agent mid-append): such holds last milliseconds.
const replaceWait = 2 * time.Second

// Replace moves tmp over path (MoveFileEx, replacing and written through
// before it returns). Windows refuses while any program holds path open,
// even one that shares delete; Replace retries for up to replaceWait, then
// returns an error wrapping ErrInUse and leaves path untouched.
func Replace(tmp, path string) error {
	deadline := time.Now().Add(replaceWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		err := ReplaceOnce(tmp, path)
		if !errors.Is(err, ErrInUse) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause)
	}
}

// InUse reports whether err says another program holds the file.
func InUse(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// ReplaceKeepsOpenFiles is false on Windows: a file must be closed before
// Replace can put another at its path.
const ReplaceKeepsOpenFiles = false

// SyncDir does nothing on Windows: a folder cannot be flushed there, and
// Replace writes the rename through before it returns.
func SyncDir(dir string) error { return nil }

// FileID identifies the file at path (its volume and file index) for as
// long as it exists, whatever its name; 0 when it cannot be read. Windows
// keeps the index out of FileInfo, so the file is opened for it, sharing
// everything and reading nothing.
func FileID(path string, fi fs.FileInfo) uint64 {
	p, err := windows.UTF16PtrFromString(fixLongPath(path))
	if err != nil {
		return 0
	}
	h, err := windows.CreateFile(p, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return 0
	}
	return (uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)) ^ uint64(info.VolumeSerialNumber)<<48
}

// OwnedByOther is false on Windows: a store there is protected by the
// ACLs of the user's profile folder, not by an owner and mode bits.
func OwnedByOther(fi fs.FileInfo) bool { return false }

// ProcessAlive reports whether the process pid still runs.
func ProcessAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		// No such process, or one we may not open (then it runs).
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err != nil || ev == uint32(windows.WAIT_TIMEOUT)
}

// ReplaceOnce moves tmp over path once (MoveFileEx, written through). An
// error wrapping ErrInUse means a program holds path open (Windows
// refuses to replace an open file whatever its sharing); nothing was
// changed.
func ReplaceOnce(tmp, path string) error {
	from, err := windows.UTF16PtrFromString(fixLongPath(tmp))
	if err != nil {
		return &os.LinkError{Op: "replace", Old: tmp, New: path, Err: err}
	}
	to, err := windows.UTF16PtrFromString(fixLongPath(path))
	if err != nil {
		return &os.LinkError{Op: "replace", Old: tmp, New: path, Err: err}
	}
	err = windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH)
	if err == nil {
		return nil
	}
	if InUse(err) {
		err = errors.Join(ErrInUse, err)
	}
	return &os.LinkError{Op: "replace", Old: tmp, New: path, Err: err}
}
