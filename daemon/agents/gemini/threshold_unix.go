//go:build !windows

package gemini

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// systemFileSecure applies Gemini CLI 0.61's check to a system settings or
// system defaults file before it reads it: the file and every folder
// above it (and, through a symlink, above its target) must be owned by
// root and not writable by group or others; a symlink on the way must be
// root's too. A file that fails is skipped with a security warning (seen
// in the real agent: a system settings file under /tmp, whose folder is
// world-writable, changed nothing). why says what failed.
func systemFileSecure(path string) (ok bool, why string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err.Error()
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return true, ""
	}
	check := func(p string) error {
		if li, err := os.Lstat(p); err == nil && li.Mode()&fs.ModeSymlink != 0 && ownerOf(li) != 0 {
			return fmt.Errorf("the symlink %s is not owned by root", p)
		}
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if ownerOf(fi) != 0 {
			return fmt.Errorf("%s is not owned by root", p)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s is writable by group or others", p)
		}
		return nil
	}
	paths := append(ancestors(filepath.Dir(abs)), abs)
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		paths = append(append(paths, real), ancestors(filepath.Dir(real))...)
	}
	for _, p := range paths {
		if err := check(p); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}

// ancestors are dir and every folder above it.
func ancestors(dir string) []string {
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

func ownerOf(fi fs.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid
	}
	return 0
}
