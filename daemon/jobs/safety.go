package jobs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/daemon/sourcefile"
)

// Write safety. compactd writes only the transcript's own folder (forks,
// in-place results) and the store. It checks the mode bits itself rather
// than relying on the kernel's refusal, so a daemon running as root honours
// a read-only file or folder like anyone else would, and it never writes
// through a symbolic link that leads elsewhere.

// refuseCompressed refuses to write a transcript in place under a
// compressed name: the agent would find plain JSONL where it expects zstd.
func refuseCompressed(path string) error {
	if sourcefile.Compressed(path) {
		return fmt.Errorf("%s is compressed; compactd does not replace compressed transcripts and left it untouched (write a fork instead: omit --in-place)", path)
	}
	return nil
}

// checkReplaceable refuses to replace path in place when it is a symbolic
// link (renaming over it would swap the link for a file, and its target
// may be outside the folder) or read-only.
func checkReplaceable(path string) error {
	if err := refuseCompressed(path); err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("inspect %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular() {
		return &sourcefile.NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := filepath.EvalSymlinks(path)
		if target == "" {
			target, _ = os.Readlink(path)
		}
		where := ""
		if !within(target, filepath.Dir(path)) {
			where = ", outside its folder"
		}
		return fmt.Errorf("%s is a symbolic link to %s%s; compactd does not write through links and left both untouched (compact %s itself, or write a fork)", path, target, where, target)
	}
	if fi.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s is read-only, so compactd left it untouched (make it writable, or compact without --in-place to write a fork)", path)
	}
	return checkWritableFolder(filepath.Dir(path), path)
}

// sessionFolder is the folder of its own that a fork at target is made
// in, "" when there is none: an agent that keeps each session in a folder
// named by its id, the file in it named alike (Copilot CLI's
// session-state/<id>/events.jsonl), finds a fork only in a new folder of
// the same kind beside the source's (agents.Agent.ForkName).
func sessionFolder(target, source string) string {
	dir := filepath.Dir(target)
	if filepath.Base(target) == filepath.Base(source) && dir != filepath.Dir(source) && filepath.Dir(dir) == filepath.Dir(filepath.Dir(source)) {
		return dir
	}
	return ""
}

// checkForkFolder refuses to write a new file at target when its folder
// is read-only or is reached through a symbolic link leading outside the
// workspace (the source's folder when workspace is "").
func checkForkFolder(target, source, workspace string) error {
	dir := filepath.Dir(target)
	if folder := sessionFolder(target, source); folder != "" {
		if _, err := os.Lstat(folder); errors.Is(err, fs.ErrNotExist) {
			dir = filepath.Dir(folder) // createFork makes it there
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot write %s: the folder %s does not exist (the transcript is untouched)", target, dir)
		}
		return fmt.Errorf("cannot write %s: %w (the transcript is untouched)", target, err)
	}
	if real != filepath.Clean(dir) {
		root := workspace
		if root == "" {
			root = filepath.Dir(source)
		}
		rootReal, err := filepath.EvalSymlinks(root)
		if err != nil || !within(real, rootReal) {
			return fmt.Errorf("cannot write %s: its folder leads through a symbolic link to %s, outside the workspace %s; compactd does not write through it (the transcript is untouched)", target, real, root)
		}
	}
	return checkWritableFolder(dir, source)
}

func checkWritableFolder(dir, source string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("inspect %s: %w (the transcript is untouched)", dir, err)
	}
	if fi.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("the folder %s is read-only, so compactd wrote nothing there and %s is untouched", dir, source)
	}
	return nil
}

// within reports whether path is root or inside it (both cleaned, absolute).
func within(path, root string) bool {
	if path == "" || root == "" {
		return false
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
