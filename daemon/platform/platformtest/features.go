package platformtest

import (
	"fmt"
	"os"
	"runtime"
	"testing"
)

// PermissionBits reports whether files carry Unix permission bits (mode
// 0600 and the like). Windows keeps only a read-only attribute: who may
// read a file is decided by ACLs, inherited from the user's profile.
const PermissionBits = runtime.GOOS != "windows"

// ReadOnlyFolders reports whether a folder's mode can keep files from
// being created in it (chmod 0500). On Windows a folder's read-only
// attribute does not: only an ACL does.
const ReadOnlyFolders = runtime.GOOS != "windows"

// Symlink makes newname a symbolic link to oldname, or fails with
// ErrUnsupported where links cannot be made: Windows without Developer
// Mode or administrator rights, and Wine, whose CreateSymbolicLink reports
// success and creates nothing.
func Symlink(oldname, newname string) error {
	if err := os.Symlink(oldname, newname); err != nil {
		return fmt.Errorf("symbolic link %s: %w (%v)", newname, ErrUnsupported, err)
	}
	if fi, err := os.Lstat(newname); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("symbolic link %s: %w (the link was not created)", newname, ErrUnsupported)
	}
	return nil
}

// NeedSymlinks skips t unless symbolic links can be made here.
func NeedSymlinks(t testing.TB) {
	t.Helper()
	dir := t.TempDir()
	if err := Symlink("target", dir+string(os.PathSeparator)+"link"); err != nil {
		t.Skipf("skip: %v", err)
	}
}
