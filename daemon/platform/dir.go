package platform

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReadDir is os.ReadDir with OpenFile's share mode. On Windows Go opens a
// folder without delete sharing, so while compactd listed one the agent
// (or the user) could not remove or rename it: "Sharing violation" from a
// RemoveAll that met the watcher's walk.
func ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return des, err
}

// WalkDir is filepath.WalkDir listing each folder with ReadDir: the same
// order, the same use of fs.SkipDir and fs.SkipAll.
func WalkDir(root string, fn fs.WalkDirFunc) error {
	info, err := os.Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = walkDir(root, fs.FileInfoToDirEntry(info), fn)
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func walkDir(path string, d fs.DirEntry, fn fs.WalkDirFunc) error {
	if err := fn(path, d, nil); err != nil || !d.IsDir() {
		if errors.Is(err, fs.SkipDir) && d.IsDir() {
			err = nil // the folder itself is skipped
		}
		return err
	}
	des, err := ReadDir(path)
	if err != nil {
		// Told once more, with the error: the caller may skip it.
		if err = fn(path, d, err); err != nil {
			if errors.Is(err, fs.SkipDir) && d.IsDir() {
				err = nil
			}
			return err
		}
	}
	for _, de := range des {
		if err := walkDir(filepath.Join(path, de.Name()), de, fn); err != nil {
			if errors.Is(err, fs.SkipDir) {
				break // the rest of this folder is skipped
			}
			return err
		}
	}
	return nil
}
