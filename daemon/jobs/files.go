package jobs

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/daemon/platform"
)

// errSourceChanged means the source was rewritten (not just appended to)
// while a job worked; the job starts over from a fresh read.
var errSourceChanged = errors.New("the transcript changed while compactd worked on it")

// errSourceGone and errSourceReplaced mean the transcript an in-place job
// read is no longer at its path: deleted (an agent's retention sweep, the
// user), or another file put there. The job writes nothing at the path:
// it must not bring a removed session back, nor overwrite another.
var (
	errSourceGone     = errors.New("the transcript was deleted")
	errSourceReplaced = errors.New("the transcript was replaced by another file")
)

// sourceFile is the file an in-place job read, which must still be at the
// path when the job writes there: id is its identity (platform.FileID), 0
// when unknown (its existence is checked then, not its identity).
type sourceFile struct{ id uint64 }

// fileID is the identity of the file at path (see platform.FileID), 0 when
// unknown; os.ErrNotExist when there is none.
func fileID(path string) (uint64, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, err
	}
	return platform.FileID(path, fi), nil
}

// fileErr is err of op on path, said once: an *fs.PathError of that path
// already names both. What it means for the transcript is said by the
// layer above (the job's), once.
func fileErr(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return fmt.Errorf("%s %s: %w", op, path, err)
}

// writeTemp writes data to a new temporary file in dir, fsynced, with mode.
// Temporary files a killed job left in dir are removed first, so they do
// not pile up beside the transcripts.
func writeTemp(dir string, data []byte, mode os.FileMode) (string, error) {
	removeStaleTemps(dir)
	f, err := os.CreateTemp(dir, ".compactd-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write in %s: %w", dir, err)
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", fileErr("write", name, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	return name, nil
}

// createFile writes a new file atomically and refuses to replace one that
// exists: a fork never overwrites anything.
func createFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := writeTemp(dir, data, 0o600)
	if err != nil {
		return fmt.Errorf("%w (the transcript is untouched)", err)
	}
	defer os.Remove(tmp)
	// link(2) fails if path exists, unlike rename(2).
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s already exists; not overwriting it", path)
		}
		return fmt.Errorf("%w (the transcript is untouched)", fileErr("write", path, err))
	}
	return platform.SyncDir(dir)
}

// createFork is createFile for a fork of source, first making the fork's
// own session folder when its agent keeps one per session
// (sessionFolder); the folder goes again when the fork is not written.
func createFork(target, source string, data []byte) error {
	made := ""
	if folder := sessionFolder(target, source); folder != "" {
		switch err := os.Mkdir(folder, 0o700); {
		case err == nil:
			made = folder
			if err := platform.SyncDir(filepath.Dir(folder)); err != nil {
				os.Remove(folder)
				return fmt.Errorf("%w (the transcript is untouched)", fileErr("create", folder, err))
			}
		case !errors.Is(err, fs.ErrExist):
			return fmt.Errorf("%w (the transcript is untouched)", fileErr("create", folder, err))
		}
	}
	err := createFile(target, data)
	if err != nil && made != "" {
		os.Remove(made)
	}
	return err
}

// appendFile adds data at the end of the file at path, synced.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fileErr("write", path, err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	if cerr := f.Close(); werr == nil && serr == nil {
		werr = cerr
	}
	if err := errors.Join(werr, serr); err != nil {
		return fileErr("write", path, err)
	}
	return nil
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// removeStaleTemps deletes the temporary files (older than staleTempAge, so
// never a live job's) that killed jobs left in dir. Failures are ignored:
// doctor reports what remains.
func removeStaleTemps(dir string) {
	for _, p := range staleTemps(map[string]bool{dir: true}, time.Now()) {
		os.Remove(p)
	}
}
