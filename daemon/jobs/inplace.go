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

// An in-place replacement puts a new file at the transcript's path while
// the agent may be appending to it. Agents append whole lines, each by
// opening the path, writing and closing (Codex keeps its file open), so
// an append can land in the file the replacement just took the place of:
// the writer opened it before the rename (Unix), or wrote between
// compactd's last read of it and the rename (Windows and Unix). Those
// bytes belong before anything the agent writes into the new file after,
// since a writer reaches the new file only by opening the path again:
// appending them at the end, when the agent has already added its next
// line to the new file, put two lines of a JSONL transcript out of order
// (a Windows run under load), which breaks a chain such as Claude Code's
// parentUuid.
//
// So a replacement keeps every file that stood at the path readable — a
// generation — and the transcript is always rebuilt as the new content
// followed by each generation's appends, oldest first. When a replaced
// generation turns out to hold bytes the path lacks, the rebuilt content
// goes in with one more rename (the rescue), which keeps the order
// whatever the timing: nothing waits for the writer.

// asideMethod is how a generation stays readable once another file took
// its path.
type asideMethod int

const (
	// asideDefault is the platform's: asideOpen on Unix, asideLink on
	// Windows.
	asideDefault asideMethod = iota
	// asideOpen keeps the file open across the rename: on Unix an open
	// file keeps its inode, and writers that hold it keep writing there.
	asideOpen
	// asideLink gives the file a second name before the rename: Windows
	// refuses to replace a file anyone holds open, compactd included.
	asideLink
	// asideNone is the fallback where a file cannot have a second name
	// (FAT and exFAT volumes have no hard links): the rename alone. On
	// Windows it succeeds only while nobody holds the file, so only bytes
	// appended between compactd's last read and the rename can miss; the
	// prior content is in the store.
	asideNone
)

// inPlace is how in-place replacements run; the zero value is the real
// behaviour. Tests choose the aside method, inject a link failure and act
// between two steps.
type inPlace struct {
	aside asideMethod
	// link makes the second name (asideLink); nil is os.Link.
	link func(oldname, newname string) error
	// rename puts the new file at the path once; nil is
	// platform.ReplaceOnce.
	rename func(tmp, path string) error
	// wait bounds the retries while Windows reports the file in use; 0 is
	// replaceWait.
	wait time.Duration
	// beforeRename and afterSwap, when set, run just before each rename
	// (after the last read of the file it replaces) and after it, before
	// the replaced generation is looked at again.
	beforeRename, afterSwap func()
	// schedule is when replaced generations are looked at after a rename;
	// nil is rescueSchedule.
	schedule []time.Duration
	// step, when set, runs between the steps of an in-place job, named
	// (see the calls of at): tests delete or replace the transcript there.
	step func(name string)
}

// at runs the step hook, if any, for the step just done.
func (ip inPlace) at(name string) {
	if ip.step != nil {
		ip.step(name)
	}
}

// replaceResult says what an in-place replacement carried over.
type replaceResult struct {
	// Carried is how many bytes the agent appended meanwhile that were
	// kept after the new content.
	Carried int64
	// Late is what a writer added to the replaced file after the rename
	// when appends were not to be carried (restore): that file held the
	// prefix, then Late. The caller keeps it.
	Late []byte
	// Notes say how the replacement went where users should know.
	Notes []string
}

// replaceWait bounds how long an in-place replacement waits on Windows
// for the programs that hold the transcript open (an agent mid-append, a
// viewer) before writing into the file instead.
const replaceWait = 3 * time.Second

// rescueSchedule is when replaced generations are looked at after a
// rename, for what a writer that held one open appends a moment later.
// Agents open, append and close in well under a millisecond, but a writer
// descheduled between its open and its write (seen under load) can land
// tens of milliseconds later. Whenever they land, they are put in order.
var rescueSchedule = []time.Duration{0, 5 * time.Millisecond, 10 * time.Millisecond,
	20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond,
	160 * time.Millisecond, 250 * time.Millisecond}

// maxGenerations bounds the renames of one replacement. Past it, what a
// replaced generation still receives (a writer that keeps its file open
// and writes on) is appended at the end.
const maxGenerations = 8

// generation is one file that stood at the transcript's path during a
// replacement: the transcript as the job read it, then each file the
// replacement put there.
type generation struct {
	// f reads on from base+len(seg); nil while closed or unreadable.
	f *os.File
	// id is the file's identity (platform.FileID), 0 when unknown.
	id uint64
	// base is where what its writers appended starts, and sum the sha256
	// of its first base bytes.
	base int64
	sum  [32]byte
	// seg is what its writers appended, as read so far, and placed how
	// much of it the file at the path holds.
	seg    []byte
	placed int
	// sealed: its appends are no longer read (it was rewritten in place,
	// and what is appended to it now is the next generation's).
	sealed bool
}

func (g *generation) close() {
	if g.f != nil {
		g.f.Close()
		g.f = nil
	}
}

// readMore reads what its writers added since the last read.
func (g *generation) readMore() (int, error) {
	if g.f == nil || g.sealed {
		return 0, nil
	}
	more, err := io.ReadAll(g.f)
	g.seg = append(g.seg, more...)
	return len(more), err
}

// replacement is one in-place replacement under way.
type replacement struct {
	inPlace
	path, dir  string
	mode       os.FileMode
	content    []byte
	appendOnly bool
	gens       []*generation
	asides     []string
	notes      []string
	inUse      bool
	// want is the file the job read (nil: the path need not hold it, as
	// for a restore, which recreates a vanished file).
	want *sourceFile
	// lost: the file the replacement put at the path went after.
	lost bool
}

// replace puts content at path in place of its first prefixLen bytes,
// whose sha256 is prefixSum, as they were read. Bytes the agent appended
// after those are carried over after content, in the order it wrote them
// (appendOnly). If the prefix itself changed, or with appendOnly false
// anything at all, nothing is written and errSourceChanged is returned.
// want is the file the caller read: when it is not nil and that file is
// no longer at the path — deleted, or another put there — at any step up to
// the rename, nothing is written and errSourceGone or errSourceReplaced is
// returned; once the new content is in, the path is never written again if
// it goes. An error means the transcript is untouched; once the new
// content is at the path, what goes wrong after is a note.
func (ip inPlace) replace(path string, prefixLen int64, prefixSum [32]byte, content []byte, appendOnly bool, want *sourceFile) (replaceResult, error) {
	var res replaceResult
	if ip.aside == asideDefault {
		ip.aside = asideLink
		if platform.ReplaceKeepsOpenFiles {
			ip.aside = asideOpen
		}
	}
	if ip.link == nil {
		ip.link = os.Link
	}
	if ip.rename == nil {
		ip.rename = platform.ReplaceOnce
	}
	if ip.wait == 0 {
		ip.wait = replaceWait
	}
	if ip.schedule == nil {
		ip.schedule = rescueSchedule
	}
	rp := &replacement{inPlace: ip, path: path, dir: filepath.Dir(path), mode: 0o600,
		content: content, appendOnly: appendOnly, want: want}
	defer rp.close()
	old, err := sourcefile.OpenRegular(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("open %s: %w", path, err)
	}
	if old == nil && want != nil {
		return res, errSourceGone
	}
	first := &generation{f: old, base: prefixLen, sum: prefixSum}
	rp.gens = []*generation{first}
	var cur []byte
	if old != nil {
		fi, err := old.Stat()
		if err == nil {
			rp.mode = fi.Mode().Perm()
			first.id = platform.FileID(path, fi)
		}
		if want != nil && first.id != 0 && want.id != 0 && first.id != want.id {
			return res, errSourceReplaced
		}
		if cur, err = io.ReadAll(old); err != nil {
			return res, fmt.Errorf("read %s: %w", path, err)
		}
	}
	rp.at("opened")
	if int64(len(cur)) < prefixLen || sha256.Sum256(cur[:prefixLen]) != prefixSum {
		return res, errSourceChanged
	}
	first.seg = cur[prefixLen:]
	if len(first.seg) > 0 && !appendOnly {
		return res, errSourceChanged
	}
	// A transcript that vanished (a restore recreating it) has nothing to
	// read on.
	first.sealed = old == nil
	if err := rp.swap(); err != nil {
		switch {
		case errors.Is(err, errSourceGone):
			return res, errSourceGone
		case errors.Is(err, errSourceReplaced):
			return res, errSourceReplaced
		case errors.Is(err, errSourceChanged):
			return res, err
		}
		return res, fmt.Errorf("%w (the transcript is untouched)", err)
	}
	rp.at("renamed")
	rp.rescue()
	rp.lastLook()
	if !appendOnly {
		res.Late = first.seg
	}
	for _, g := range rp.gens {
		res.Carried += int64(len(g.seg))
	}
	if !appendOnly {
		res.Carried = 0
	}
	if rp.inUse {
		rp.notes = append(rp.notes, fmt.Sprintf("another program held %s open without letting it be replaced; compactd wrote the new content into the file itself (its prior content is in the store)", path))
	}
	res.Notes = rp.notes
	rp.at("done")
	return res, nil
}

// lastLook notes, after the replacement, that the file it put at the path
// went meanwhile: compactd wrote it, then it was deleted or replaced, and
// compactd wrote nothing after.
func (rp *replacement) lastLook() {
	if rp.want == nil || rp.lost {
		return
	}
	if err := rp.stillThere(rp.current()); err != nil {
		rp.notes = append(rp.notes, fmt.Sprintf("%s: %v just after compactd wrote it; compactd wrote nothing more there", rp.path, err))
	}
}

// stillThere checks, for an in-place job (want not nil), that the file at the
// path is g, the generation the job put or found there: errSourceGone when
// there is none any more, errSourceReplaced when another took its place.
func (rp *replacement) stillThere(g *generation) error {
	if rp.want == nil {
		return nil
	}
	id, err := fileID(rp.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errSourceGone
	case err != nil:
		return fmt.Errorf("look at %s before replacing it: %w", rp.path, err)
	case g.id != 0 && id != 0 && id != g.id:
		return errSourceReplaced
	}
	return nil
}

// merged is the transcript as it should read: the new content, then each
// generation's appends.
func (rp *replacement) merged() []byte {
	n := len(rp.content)
	for _, g := range rp.gens {
		n += len(g.seg)
	}
	out := make([]byte, 0, n)
	out = append(out, rp.content...)
	for _, g := range rp.gens {
		out = append(out, g.seg...)
	}
	return out
}

// current is the generation at the path.
func (rp *replacement) current() *generation { return rp.gens[len(rp.gens)-1] }

// open opens the current generation again where it was closed for a
// rename that did not happen, checking it is still the same file.
func (rp *replacement) open(g *generation) error {
	if g.f != nil || g.sealed {
		return nil
	}
	f, err := sourcefile.OpenRegular(rp.path)
	if errors.Is(err, os.ErrNotExist) && rp.want != nil {
		return errSourceGone
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", rp.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open %s: %w", rp.path, err)
	}
	if id := platform.FileID(rp.path, fi); g.id != 0 && id != 0 && id != g.id {
		f.Close()
		if rp.want != nil {
			return errSourceReplaced
		}
		return fmt.Errorf("%s was replaced by another program: %w", rp.path, errSourceChanged)
	}
	if _, err := f.Seek(g.base+int64(len(g.seg)), io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("read %s: %w", rp.path, err)
	}
	g.f = f
	return nil
}

// readAll reads what each generation's writers added: how many bytes the
// current one gained, and whether a replaced one gained any.
func (rp *replacement) readAll() (current int, replaced bool, err error) {
	last := len(rp.gens) - 1
	for i, g := range rp.gens {
		n, err := g.readMore()
		if err != nil {
			return 0, false, fmt.Errorf("read %s: %w", rp.path, err)
		}
		if i == last {
			current = n
		} else if n > 0 {
			replaced = true
		}
	}
	return current, replaced, nil
}

// swap puts the merged content at the path, a new generation. Appends that
// land while its temporary file is written are added to it and looked for
// again, so the rename usually leaves nothing behind; what it does is the
// rescue's. On Windows, while a program holds the file open, the rename is
// retried for replaceWait, then the content is written into the file.
func (rp *replacement) swap() error {
	cur := rp.current()
	deadline := time.Now().Add(rp.wait)
	pause := time.Millisecond
	var tmp string
	var data []byte
	defer func() {
		if tmp != "" {
			os.Remove(tmp)
		}
	}()
	for attempt := 0; ; attempt++ {
		if err := rp.open(cur); err != nil {
			return err
		}
		gained, replacedGained, err := rp.readAll()
		if err != nil {
			return err
		}
		if !rp.appendOnly && len(rp.gens[0].seg) > 0 {
			return errSourceChanged
		}
		switch {
		case tmp == "" || replacedGained:
			if tmp != "" {
				os.Remove(tmp)
			}
			data = rp.merged()
			if tmp, err = writeTemp(rp.dir, data, rp.mode); err != nil {
				tmp = ""
				return err
			}
			rp.at("written")
		case gained > 0:
			more := cur.seg[len(cur.seg)-gained:]
			if err := appendFile(tmp, more); err != nil {
				return err
			}
			data = append(data, more...)
		}
		// Appends that landed while the temporary file was written are
		// read once more before the rename (a bounded number of times:
		// the rescue takes what a busy writer adds after).
		if (gained > 0 || replacedGained) && attempt < 20 {
			continue
		}
		err = rp.put(tmp, cur)
		if err == nil {
			tmp = ""
			break
		}
		var lf *asideLinkError
		switch {
		case errors.As(err, &lf):
			rp.aside = asideNone
			rp.notes = append(rp.notes, fmt.Sprintf("%s is on a volume without hard links (%v); compactd replaced it without keeping the old file reachable, so a line the agent appended at that very moment could be missed (the prior content is in the store)", rp.path, lf.err))
			continue
		case errors.Is(err, platform.ErrInUse):
			if time.Now().After(deadline) {
				rp.inUse = true
				return rp.overwrite(cur)
			}
			time.Sleep(pause)
			pause = min(2*pause, 50*time.Millisecond)
			continue
		default:
			return fmt.Errorf("replace %s: %w", rp.path, err)
		}
	}
	if err := platform.SyncDir(rp.dir); err != nil {
		rp.notes = append(rp.notes, fmt.Sprintf("sync %s: %v", rp.dir, err))
	}
	next := &generation{base: int64(len(data)), sum: sha256.Sum256(data)}
	for _, g := range rp.gens {
		g.placed = len(g.seg)
	}
	rp.gens = append(rp.gens, next)
	// The new generation is read from its start: what the agent appended
	// to it since the rename is its own.
	if err := rp.open(next); err != nil {
		rp.notes = append(rp.notes, err.Error())
	} else if fi, err := next.f.Stat(); err == nil {
		next.id = platform.FileID(rp.path, fi)
	}
	if rp.afterSwap != nil {
		rp.afterSwap()
	}
	return nil
}

// asideLinkError is a second name that could not be made.
type asideLinkError struct{ err error }

func (e *asideLinkError) Error() string { return e.err.Error() }

// put renames tmp to the path, keeping cur, the file there, readable as
// the aside method says.
func (rp *replacement) put(tmp string, cur *generation) error {
	if rp.aside != asideOpen {
		cur.close()
	}
	if rp.beforeRename != nil {
		rp.beforeRename()
	}
	rp.at("renaming")
	// The last look before the rename: a rename would bring a deleted
	// transcript back, or put ours over another file.
	if err := rp.stillThere(cur); err != nil {
		return err
	}
	if rp.aside != asideLink {
		return rp.rename(tmp, rp.path)
	}
	// Windows replaces only a file nobody holds, compactd included; the
	// second name is new on each attempt, for a name removed while
	// another program holds the file lingers until it closes it.
	aside := fmt.Sprintf("%s-old%d.tmp", tmp[:len(tmp)-len(".tmp")], len(rp.asides))
	if err := rp.link(rp.path, aside); err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist) && rp.want != nil:
			return errSourceGone
		case errors.Is(err, os.ErrNotExist):
			return err
		case platform.InUse(err):
			return errors.Join(platform.ErrInUse, err)
		}
		return &asideLinkError{err}
	}
	rp.asides = append(rp.asides, aside)
	if err := rp.rename(tmp, rp.path); err != nil {
		os.Remove(aside)
		return err
	}
	f, err := sourcefile.OpenRegular(aside)
	if err == nil {
		_, err = f.Seek(cur.base+int64(len(cur.seg)), io.SeekStart)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		rp.notes = append(rp.notes, fmt.Sprintf("read the replaced %s: %v", rp.path, err))
		return nil
	}
	cur.f = f
	return nil
}

// overwrite writes the merged content into the file at the path itself,
// for when it cannot be replaced by another (see overwriteFile); it then
// stands for a new generation.
func (rp *replacement) overwrite(cur *generation) error {
	cur.close()
	before := rp.content
	for _, g := range rp.gens[:len(rp.gens)-1] {
		before = append(before[:len(before):len(before)], g.seg...)
	}
	var want *sourceFile
	if rp.want != nil {
		want = &sourceFile{id: cur.id}
	}
	after, err := overwriteFile(rp.path, cur.base, cur.sum, before, cur.seg, rp.appendOnly, want)
	if err != nil {
		return err
	}
	cur.seg = after
	cur.sealed = true
	data := append(before[:len(before):len(before)], after...)
	for _, g := range rp.gens {
		g.placed = len(g.seg)
	}
	next := &generation{base: int64(len(data)), sum: sha256.Sum256(data), id: cur.id}
	rp.gens = append(rp.gens, next)
	if err := rp.open(next); err != nil {
		rp.notes = append(rp.notes, err.Error())
	}
	return nil
}

// rescue looks at the replaced generations as rescueSchedule says, and
// whenever one holds bytes the path lacks, puts the transcript in order
// with one more rename (then looks again, from the start).
func (rp *replacement) rescue() {
	for {
		late, err := rp.watch()
		if err != nil {
			rp.notes = append(rp.notes, err.Error())
			return
		}
		if !late {
			return
		}
		if !rp.appendOnly {
			// Not carried: kept whole for the caller (replaceResult.Late),
			// so read to the end of the schedule.
			for _, g := range rp.gens {
				g.placed = len(g.seg)
			}
			continue
		}
		if len(rp.gens) > maxGenerations {
			rp.appendLate("a writer kept writing to the file it had open")
			return
		}
		if err := rp.swap(); err != nil {
			if errors.Is(err, errSourceGone) || errors.Is(err, errSourceReplaced) {
				rp.lost = true
				rp.notes = append(rp.notes, fmt.Sprintf("%s: %v just after compactd wrote it; compactd wrote nothing more there (what the agent appended meanwhile is in the file it replaced)", rp.path, err))
				return
			}
			rp.appendLate(err.Error())
			return
		}
	}
}

// watch looks at the replaced generations until one holds bytes the path
// lacks (true) or the schedule ends.
func (rp *replacement) watch() (bool, error) {
	start := time.Now()
	for _, at := range rp.schedule {
		time.Sleep(time.Until(start.Add(at)))
		late := false
		for _, g := range rp.gens[:len(rp.gens)-1] {
			n, err := g.readMore()
			if err != nil {
				return false, fmt.Errorf("read the replaced %s: %w", rp.path, err)
			}
			late = late || n > 0 || g.placed < len(g.seg)
		}
		if late {
			return true, nil
		}
	}
	return false, nil
}

// appendLate appends what the replaced generations hold beyond what the
// path has, at its end: out of the agent's order, but not lost. Only
// when the transcript cannot be put in order (why says why).
func (rp *replacement) appendLate(why string) {
	var late []byte
	for _, g := range rp.gens[:len(rp.gens)-1] {
		late = append(late, g.seg[g.placed:]...)
		g.placed = len(g.seg)
	}
	if len(late) == 0 {
		return
	}
	if err := appendFile(rp.path, late); err != nil {
		rp.notes = append(rp.notes, fmt.Sprintf("%d bytes the agent wrote to %s while it was replaced could not be carried over (%s; %v): they are in no file", len(late), rp.path, why, err))
		return
	}
	rp.notes = append(rp.notes, fmt.Sprintf("%d bytes the agent wrote to %s while it was replaced were added at its end, possibly after lines it wrote later (%s)", len(late), rp.path, why))
}

// close closes every generation and removes the second names.
func (rp *replacement) close() {
	for _, g := range rp.gens {
		g.close()
	}
	for _, a := range rp.asides {
		os.Remove(a)
	}
}

// overwriteFile writes content, then what was appended after the prefix,
// into path itself, for when the file cannot be replaced by another. It
// checks again that the file still starts with the prefix the job read
// and that what follows begins with tail, so a rewrite by the agent is
// never overwritten; bytes appended since are carried too, and returned
// with tail. The prior content was kept in the store before, so a crash
// half-way is restored from it. want, when not nil, is the file that must
// still be at the path (errSourceGone, errSourceReplaced otherwise).
func overwriteFile(path string, prefixLen int64, prefixSum [32]byte, content, tail []byte, appendOnly bool, want *sourceFile) ([]byte, error) {
	f, err := platform.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) && want != nil {
		return nil, errSourceGone
	}
	if err != nil {
		return nil, fmt.Errorf("open %s to rewrite it: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && want != nil {
		if id := platform.FileID(path, fi); id != 0 && want.id != 0 && id != want.id {
			return nil, errSourceReplaced
		}
	}
	cur, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(cur)) < prefixLen+int64(len(tail)) || sha256.Sum256(cur[:prefixLen]) != prefixSum ||
		!bytes.Equal(cur[prefixLen:prefixLen+int64(len(tail))], tail) {
		return nil, errSourceChanged
	}
	after := cur[prefixLen:]
	if len(after) > 0 && !appendOnly {
		return nil, errSourceChanged
	}
	data := append(append([]byte(nil), content...), after...)
	failed := func(err error) ([]byte, error) {
		return nil, fmt.Errorf("rewrite %s: %w (restore it from the store: compactd restore)", path, err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return failed(err)
	}
	if len(data) >= len(cur) {
		// Nothing to cut: what the agent appends lands after.
		return after, f.Sync()
	}
	// What the agent appended while the file was rewritten lies past the
	// old end: move it after the new content before the file is cut.
	for end := int64(len(cur)); appendOnly; {
		more := make([]byte, 1<<16)
		n, err := f.ReadAt(more, end)
		if n == 0 {
			if err != nil && !errors.Is(err, io.EOF) {
				return failed(err)
			}
			break
		}
		if _, err := f.WriteAt(more[:n], int64(len(data))); err != nil {
			return failed(err)
		}
		data = append(data, more[:n]...)
		after = append(after, more[:n]...)
		end += int64(n)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return failed(err)
	}
	if err := f.Sync(); err != nil {
		return failed(err)
	}
	return after, nil
}
