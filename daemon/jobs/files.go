package jobs

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// errSourceChanged means the source was rewritten (not just appended to)
// while a job worked; the job starts over from a fresh read.
var errSourceChanged = errors.New("the transcript changed while compactd worked on it")

// writeTemp writes data to a new temporary file in dir, fsynced, with mode.
// Temporary files a killed job left in dir are removed first, so they do
// not pile up beside the transcripts.
func writeTemp(dir string, data []byte, mode os.FileMode) (string, error) {
	removeStaleTemps(dir)
	f, err := os.CreateTemp(dir, ".compactd-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write in %s: %w (the transcript is untouched)", dir, err)
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w (the transcript is untouched)", name, err)
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
		return err
	}
	defer os.Remove(tmp)
	// link(2) fails if path exists, unlike rename(2).
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s already exists; not overwriting it", path)
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	return platform.SyncDir(dir)
}

// replaceResult says what an in-place replacement carried over.
type replaceResult struct {
	// Carried is how many bytes the agent appended meanwhile that were
	// kept after the new content.
	Carried int64
}

// replaceAppendOnly replaces path with content, which stands for the first
// prefixLen bytes of the file as read (their sha256 is prefixSum). Bytes the
// writer appended after those are carried over after content. If the prefix
// itself changed, nothing is written and errSourceChanged is returned.
// appendOnly false means any change at all is errSourceChanged.
func replaceInPlace(path string, prefixLen int64, prefixSum [32]byte, content []byte, appendOnly bool) (replaceResult, error) {
	var res replaceResult
	old, err := sourcefile.OpenRegular(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("open %s: %w", path, err)
	}
	mode := os.FileMode(0o600)
	var cur []byte
	if old != nil {
		defer func() {
			if old != nil {
				old.Close()
			}
		}()
		if fi, err := old.Stat(); err == nil {
			mode = fi.Mode().Perm()
		}
		if cur, err = io.ReadAll(old); err != nil {
			return res, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if int64(len(cur)) < prefixLen || sha256.Sum256(cur[:prefixLen]) != prefixSum {
		return res, errSourceChanged
	}
	tail := cur[prefixLen:]
	if len(tail) > 0 && !appendOnly {
		return res, errSourceChanged
	}
	dir := filepath.Dir(path)
	if !platform.ReplaceKeepsOpenFiles && old != nil {
		carried, err := replaceAside(path, old, prefixLen, prefixSum, content, tail, mode, appendOnly)
		old = nil // replaceAside closed it
		res.Carried = carried
		return res, err
	}
	for attempt := 0; ; attempt++ {
		tmp, err := writeTemp(dir, append(append([]byte(nil), content...), tail...), mode)
		if err != nil {
			return res, err
		}
		// Catch appends that landed while the temp file was written.
		if old != nil {
			more, err := io.ReadAll(old)
			if err != nil {
				os.Remove(tmp)
				return res, fmt.Errorf("read %s: %w", path, err)
			}
			if len(more) > 0 {
				os.Remove(tmp)
				if !appendOnly || attempt > 20 {
					return res, errSourceChanged
				}
				tail = append(tail, more...)
				continue
			}
		}
		err = platform.Replace(tmp, path)
		if errors.Is(err, platform.ErrInUse) {
			// Another program holds the transcript open without delete
			// sharing (Windows only): write the new content into the
			// file itself. Its prior content is in the store already.
			os.Remove(tmp)
			carried, err := overwrite(path, prefixLen, prefixSum, content, tail, appendOnly)
			res.Carried = carried
			return res, err
		}
		if err != nil {
			os.Remove(tmp)
			return res, fmt.Errorf("replace %s: %w (the transcript is untouched)", path, err)
		}
		break
	}
	if err := platform.SyncDir(dir); err != nil {
		return res, fmt.Errorf("sync %s: %w", dir, err)
	}
	res.Carried = int64(len(tail))
	if old != nil && appendOnly {
		// A writer that opened the old file just before the rename writes
		// into the replaced inode; move those bytes to the new file.
		n, err := rescueLateAppends(old, path)
		res.Carried += n
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// replaceWait bounds how long an in-place replacement waits on Windows
// for the programs that hold the transcript open without delete sharing
// (an agent mid-append, a viewer) before writing into the file instead.
const replaceWait = 3 * time.Second

// replaceAside is replaceInPlace where a file cannot be replaced while it
// is open (Windows): old, the transcript as opened, is closed, then the new
// content takes the transcript's name in one step while the old file moves
// aside (ReplaceFile with a backup name). Bytes appended up to that step
// are carried over after content from the file aside, and so are those a
// writer that held it open (with delete sharing) adds for a moment after
// (rescueLateAppends). While another program holds the transcript open
// without delete sharing, the appends are read again and the step retried;
// past replaceWait, the new content is written into the file itself.
func replaceAside(path string, old *os.File, prefixLen int64, prefixSum [32]byte, content, tail []byte, mode os.FileMode, appendOnly bool) (int64, error) {
	dir := filepath.Dir(path)
	// What of path the new file stands for: the prefix, then tail.
	known := prefixLen + int64(len(tail))
	tmp, err := writeTemp(dir, append(append([]byte(nil), content...), tail...), mode)
	if err != nil {
		old.Close()
		return 0, err
	}
	defer os.Remove(tmp)
	aside := tmp[:len(tmp)-len(".tmp")] + "-old.tmp"
	deadline := time.Now().Add(replaceWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		more, err := io.ReadAll(old)
		if err != nil {
			old.Close()
			return 0, fmt.Errorf("read %s: %w (the transcript is untouched)", path, err)
		}
		if len(more) > 0 {
			if !appendOnly {
				old.Close()
				return 0, errSourceChanged
			}
			if err := appendFile(tmp, more); err != nil {
				old.Close()
				return 0, err
			}
			tail = append(tail, more...)
			known += int64(len(more))
		}
		old.Close()
		err = platform.ReplaceAside(tmp, path, aside)
		if err == nil {
			break
		}
		if !errors.Is(err, platform.ErrInUse) {
			return 0, fmt.Errorf("replace %s: %w (the transcript is untouched)", path, err)
		}
		if time.Now().After(deadline) {
			return overwrite(path, prefixLen, prefixSum, content, tail, appendOnly)
		}
		time.Sleep(pause)
		if old, err = sourcefile.OpenRegular(path); err != nil {
			return 0, fmt.Errorf("open %s: %w (the transcript is untouched)", path, err)
		}
		if _, err := old.Seek(known, io.SeekStart); err != nil {
			old.Close()
			return 0, fmt.Errorf("read %s: %w (the transcript is untouched)", path, err)
		}
	}
	carried := int64(len(tail))
	// The file aside is the transcript as it was at the step: what was
	// appended after what we read, and what a writer that held it adds.
	prev, err := sourcefile.OpenRegular(aside)
	if err != nil {
		return carried, fmt.Errorf("read the replaced %s: %w", path, err)
	}
	keepAside := false
	defer func() {
		prev.Close()
		if !keepAside {
			os.Remove(aside)
		}
	}()
	if _, err := prev.Seek(known, io.SeekStart); err != nil {
		return carried, fmt.Errorf("read the replaced %s: %w", path, err)
	}
	if !appendOnly {
		if more, _ := io.ReadAll(prev); len(more) > 0 {
			keepAside = true
			return carried, fmt.Errorf("%s changed while it was replaced; what it held then is kept at %s: %w", path, aside, errSourceChanged)
		}
		return carried, nil
	}
	n, err := rescueLateAppends(prev, path)
	return carried + n, err
}

// appendFile adds data at the end of the file at path, synced.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w (the transcript is untouched)", path, err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	if cerr := f.Close(); werr == nil && serr == nil {
		werr = cerr
	}
	if err := errors.Join(werr, serr); err != nil {
		return fmt.Errorf("write %s: %w (the transcript is untouched)", path, err)
	}
	return nil
}

// overwrite writes content, then what was appended after the prefix, into
// path itself, for when the file cannot be replaced by another. It checks
// again that the file still starts with the prefix the job read and that
// what follows begins with tail, so a rewrite by the agent is never
// overwritten; bytes appended since are carried too. The prior content
// was kept in the store before, so a crash half-way is restored from it.
func overwrite(path string, prefixLen int64, prefixSum [32]byte, content, tail []byte, appendOnly bool) (int64, error) {
	f, err := platform.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("open %s to rewrite it: %w (the transcript is untouched)", path, err)
	}
	defer f.Close()
	cur, err := io.ReadAll(f)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w (the transcript is untouched)", path, err)
	}
	if int64(len(cur)) < prefixLen+int64(len(tail)) || sha256.Sum256(cur[:prefixLen]) != prefixSum ||
		!bytes.Equal(cur[prefixLen:prefixLen+int64(len(tail))], tail) {
		return 0, errSourceChanged
	}
	after := cur[prefixLen:]
	if len(after) > 0 && !appendOnly {
		return 0, errSourceChanged
	}
	data := append(append([]byte(nil), content...), after...)
	if _, err := f.WriteAt(data, 0); err != nil {
		return 0, fmt.Errorf("rewrite %s: %w (restore it from the store: compactd restore)", path, err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return 0, fmt.Errorf("rewrite %s: %w (restore it from the store: compactd restore)", path, err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("rewrite %s: %w (restore it from the store: compactd restore)", path, err)
	}
	return int64(len(after)), nil
}

// rescueSchedule is when the replaced inode is watched for late appends.
// Agents open, append and close in well under a millisecond, but a writer
// descheduled between its open and its write (seen under load) can land
// tens of milliseconds later. Looks are tight at first, so a rescued line
// lands before that writer's next line in the new file.
var rescueSchedule = []time.Duration{0, 5, 10, 20, 40, 80, 160, 250}

func rescueLateAppends(old *os.File, path string) (int64, error) {
	var total int64
	start := time.Now()
	for _, at := range rescueSchedule {
		time.Sleep(time.Until(start.Add(at * time.Millisecond)))
		more, err := io.ReadAll(old)
		if err != nil {
			return total, fmt.Errorf("read replaced %s: %w", path, err)
		}
		if len(more) == 0 {
			continue
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return total, fmt.Errorf("carry appended lines to %s: %w", path, err)
		}
		_, werr := f.Write(more)
		serr := f.Sync()
		f.Close()
		if werr != nil || serr != nil {
			return total, fmt.Errorf("carry appended lines to %s: %w", path, errors.Join(werr, serr))
		}
		total += int64(len(more))
	}
	return total, nil
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
