package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/sourcefile"
	"github.com/compactd/compactd/daemon/store"
)

// History is a conversation's versions, oldest first; Parent labels form
// the lineage tree.
type History struct {
	Conversation store.Conversation `json:"-"`
	Key          string             `json:"conversation"`
	Versions     []Version          `json:"versions"`
}

// findConversation locates path's conversation, parsing the file when it
// still exists so a moved session is found by its id.
func (r *Runner) findConversation(ctx context.Context, path string) (store.Conversation, error) {
	src, err := readSource(path)
	var notRegular *sourcefile.NotRegularError
	if errors.As(err, &notRegular) {
		return store.Conversation{}, err
	}
	return r.findConversationOf(ctx, path, src)
}

// findConversationOf is findConversation with the file already read (nil
// when it could not be).
func (r *Runner) findConversationOf(ctx context.Context, path string, src *source) (store.Conversation, error) {
	key := ""
	if src != nil {
		key = conversationKey(src.t, path)
	}
	c, ok, err := r.Store.FindConversation(ctx, path, key)
	if err != nil {
		return c, err
	}
	if !ok {
		return c, fmt.Errorf("%s: %w (compact it first)", path, store.ErrNoConversation)
	}
	return c, nil
}

// History lists every version of path's conversation.
func (r *Runner) History(ctx context.Context, path string) (_ *History, err error) {
	defer func() { err = r.Store.Explain(err) }()
	defer r.recovered(&err, "list the versions of "+path)
	path, err = absPath(path)
	if err != nil {
		return nil, err
	}
	// The agent's own compactions are part of the history too, even of a
	// file compactd never compacted.
	var agent []store.Version
	src, srcErr := readSource(path)
	if srcErr == nil {
		if _, list := agentCompactions(src); len(list) > 0 {
			agent = agentVersions(src, list)
		}
	}
	if srcErr != nil {
		src = nil
	}
	c, err := r.findConversationOf(ctx, path, src)
	if errors.Is(err, store.ErrNoConversation) && len(agent) > 0 {
		c = store.Conversation{Key: conversationKey(src.t, path), Format: string(src.codec.Format()), SourcePath: path, SessionID: src.t.Meta.SessionID}
		return &History{Conversation: c, Key: c.Key, Versions: versionsOf(agent)}, nil
	}
	if err != nil {
		return nil, err
	}
	vs, err := r.Store.Versions(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	return &History{Conversation: c, Key: c.Key, Versions: versionsOf(append(vs, agent...))}, nil
}

// RestoreResult says where a version went.
type RestoreResult struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	InPlace bool   `json:"inPlace"`
	// Saved is the version the file's prior content was recorded as
	// (in-place only).
	Saved string `json:"saved,omitempty"`
	// Recorded is the new version a restored fork was recorded as.
	Recorded string `json:"recorded,omitempty"`
	// Session is a restored fork's session id and Resume the command
	// that resumes it, where the agent has one.
	Session string `json:"session,omitempty"`
	Resume  string `json:"resume,omitempty"`
	// Notes say what the restore did beside writing the version (see
	// guardSource).
	Notes []string `json:"notes,omitempty"`
}

// Restore writes a stored version out: as a new fork beside path, or over
// path itself (inPlace), after committing path's current content.
//
// A label of the agent's own compactions ("a2", see KindAgent) restores the
// conversation as it was before that compaction, as a new session.
func (r *Runner) Restore(ctx context.Context, path, label string, inPlace bool) (_ *RestoreResult, err error) {
	defer func() { err = untouched(path, r.Store.Explain(err)) }()
	defer r.recovered(&err, "restore "+label+" of "+path)
	path, err = absPath(path)
	if err != nil {
		return nil, err
	}
	if IsAgentLabel(label) {
		if inPlace {
			return nil, fmt.Errorf("the conversation before the agent's compaction %s is restored as a new session, never in place (the file keeps what the agent wrote since)", label)
		}
		return r.RestoreBeforeAgent(ctx, path, label)
	}
	conv, err := r.findConversation(ctx, path)
	if err != nil {
		return nil, err
	}
	v, err := r.Store.Version(ctx, conv.ID, label)
	if err != nil {
		return nil, err
	}
	content, err := r.Store.Content(ctx, v.ContentHash)
	if err != nil {
		return nil, untouched(path, r.Store.Explain(err))
	}
	// Nothing goes into a damaged store (see compactOnce).
	if err := r.Store.CheckSound(ctx); err != nil {
		return nil, untouched(path, err)
	}
	lock, err := r.lockConversation(ctx, conv.Key)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	if inPlace {
		return r.restoreInPlace(ctx, conv, v, path, content)
	}
	return r.restoreFork(ctx, conv, v, path, content)
}

func (r *Runner) restoreInPlace(ctx context.Context, conv store.Conversation, v store.Version, path string, content []byte) (*RestoreResult, error) {
	res := &RestoreResult{Path: path, Version: v.Label, InPlace: true}
	if err := refuseCompressed(path); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		data, err := sourcefile.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			// The source vanished: restoring recreates it.
			if err := checkForkFolder(path, path, ""); err != nil {
				return nil, err
			}
			if err := createFile(path, content); err != nil {
				return nil, err
			}
			return res, nil
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if err := checkReplaceable(path); err != nil {
			return nil, err
		}
		src := &source{path: path, data: data, hash: contentHash(data)}
		if src.codec, err = format.Detect(path, data); err == nil {
			src.t, _ = src.codec.Parse(data)
		}
		if src.codec == nil || src.t == nil {
			// Unreadable now, but still worth keeping before we replace it.
			if src.codec == nil {
				src.codec, _ = format.Lookup(transcript.Format(conv.Format))
			}
			src.t = &transcript.Transcript{}
		}
		if src.codec == nil {
			return nil, fmt.Errorf("no codec for %s to restore %s", conv.Format, path)
		}
		saved, err := r.recordSource(ctx, conv, src)
		if err != nil {
			return nil, untouched(path, err)
		}
		// Replaced only once the store gives the prior content back.
		if err := r.proveStored(ctx, saved, data); err != nil {
			return nil, untouched(path, err)
		}
		res.Saved = saved.Label
		// Nothing may be appended between recording and replacing: any
		// change at all means record again.
		rr, err := r.inPlace.replace(path, int64(len(data)), sha256Sum(data), content, false, nil)
		if errors.Is(err, errSourceChanged) && attempt < maxAttempts*3 {
			continue
		}
		if errors.Is(err, errSourceChanged) {
			return nil, fmt.Errorf("%s kept changing; restore gave up and left it as it is", path)
		}
		if err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, rr.Notes...)
		if len(rr.Late) > 0 {
			res.Notes = append(res.Notes, r.keepLate(ctx, conv, src, rr.Late))
		}
		return res, nil
	}
}

// keepLate records what the replaced transcript held when a writer added
// late to it (the recorded source, then late) as a version of its own, so
// a line the agent wrote at the moment of a restore is never lost, and
// says so.
func (r *Runner) keepLate(ctx context.Context, conv store.Conversation, src *source, late []byte) string {
	data := append(append([]byte(nil), src.data...), late...)
	held := &source{path: src.path, data: data, hash: contentHash(data), codec: src.codec, t: src.t}
	if t, err := src.codec.Parse(data); err == nil {
		held.t = t
	}
	v, err := r.recordSource(ctx, conv, held)
	if err != nil {
		return fmt.Sprintf("the agent wrote %d bytes to %s while it was restored, and they could not be kept: %v", len(late), src.path, err)
	}
	return fmt.Sprintf("the agent wrote to %s while it was restored; the file as it was then is kept as %s", src.path, v.Label)
}

func (r *Runner) restoreFork(ctx context.Context, conv store.Conversation, v store.Version, path string, content []byte) (*RestoreResult, error) {
	codec, ok := format.Lookup(transcript.Format(v.Format))
	if !ok {
		codec, ok = format.Lookup(transcript.Format(conv.Format))
	}
	out := content
	var t *transcript.Transcript
	sessionID := uuid.NewString()
	if ok {
		parsed, err := codec.Parse(content)
		if err == nil {
			t = parsed
			// Two files with one session id confuse the agent: the
			// restored copy gets its own, and nothing else changes
			// (rewound branches, metadata, what a compaction replaced).
			if parsed.Meta.SessionID != "" {
				opts := format.ForkOptions{SessionID: sessionID}
				if renewer, ok := codec.(format.Renewer); ok {
					out, err = renewer.Renew(parsed, opts)
				} else {
					out, err = codec.Fork(transcript.NewView(parsed), opts)
				}
				if err != nil {
					return nil, fmt.Errorf("render %s as a new session: %w", v.Label, err)
				}
				if t, err = codec.Parse(out); err != nil {
					return nil, fmt.Errorf("restored %s does not parse back: %w", v.Label, err)
				}
			}
		}
	}
	versions, err := r.Store.Versions(ctx, conv.ID)
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("v%d", len(versions)+1)
	beside := path
	if v.Kind == store.KindHandoff && v.ForkPath != "" {
		// A handoff lives in its agent's folder, in its format.
		beside = v.ForkPath
	}
	target := forkPath(beside, transcript.Format(v.Format), sessionID, label, r.now())
	if _, err := os.Lstat(target); err == nil {
		return nil, fmt.Errorf("%s already exists; not overwriting it", target)
	}
	if err := checkForkFolder(target, beside, ""); err != nil {
		return nil, err
	}
	// A restored compaction is a fork of the same source: its gauge adds
	// the overhead measured on that source, as the compaction's did.
	var recorded any
	if over, ok := reportOverhead(v.Report); ok {
		recorded = versionReport{SourceOverhead: &over}
	}
	rec, _, err := r.Store.RecordVersion(ctx, store.NewVersion{
		Conversation: conv, Kind: store.KindRestore, ParentID: v.ID, SourcePath: v.SourcePath,
		SourceHash: v.ContentHash, Format: v.Format, ForkPath: target, Content: out, Cuts: recordCuts(t),
		Pipeline: []string{"restore " + v.Label}, Created: r.now(), Report: recorded,
	})
	if err != nil {
		return nil, err
	}
	if err := createFork(target, beside, out); err != nil {
		return nil, r.forgetUnwritten(rec, err)
	}
	return &RestoreResult{Path: target, Version: v.Label, Recorded: rec.Label, Notes: guardSource(transcript.Format(v.Format), path)}, nil
}

// Diff renders a readable per-turn diff between two versions.
func (r *Runner) Diff(ctx context.Context, path, from, to string) (_ string, err error) {
	defer func() { err = r.Store.Explain(err) }()
	defer r.recovered(&err, "diff "+from+" and "+to+" of "+path)
	path, err = absPath(path)
	if err != nil {
		return "", err
	}
	src, err := readSource(path)
	var notRegular *sourcefile.NotRegularError
	if errors.As(err, &notRegular) {
		return "", err
	}
	conv, err := r.findConversationOf(ctx, path, src)
	if err != nil {
		return "", err
	}
	var sides [2][]string
	var labels [2]string
	for i, label := range []string{from, to} {
		v, err := r.Store.Version(ctx, conv.ID, label)
		if err != nil {
			return "", err
		}
		labels[i] = v.Label
		var t *transcript.Transcript
		if src != nil && src.hash() == v.ContentHash && string(src.codec.Format()) == v.Format {
			// The file holds this version (the source a compaction
			// recorded): it was just parsed.
			t = src.t
		} else {
			content, err := r.Store.Content(ctx, v.ContentHash)
			if err != nil {
				return "", err
			}
			if codec, ok := format.Lookup(transcript.Format(v.Format)); ok {
				t, _ = codec.Parse(content)
			}
		}
		if t == nil {
			return "", fmt.Errorf("cannot read %s as %s to diff it", v.Label, v.Format)
		}
		sides[i] = renderTurns(t)
	}
	return fmt.Sprintf("--- %s\n+++ %s\n", labels[0], labels[1]) + diffLines(sides[0], sides[1]), nil
}

// DoctorReport is the store's health.
type DoctorReport struct {
	StorePath string   `json:"storePath"`
	Integrity []string `json:"integrity"`
	StoreSize int64    `json:"storeSize"`
	// OrphanedForks are versions whose written file has vanished (their
	// content is still restorable from the store).
	OrphanedForks []Version `json:"orphanedForks"`
	// VanishedSources are conversations whose source file is gone.
	VanishedSources []store.Conversation `json:"vanishedSources"`
	Conversations   int                  `json:"conversations"`
	Versions        int                  `json:"versions"`
	// StaleTemps are temporary files (.compactd-*.tmp) a killed job left
	// beside known transcripts; RemoveStaleTemps deletes them.
	StaleTemps []string `json:"staleTemps"`
	// Removed are the stale temporary files RemoveStaleTemps deleted.
	Removed []string `json:"removed,omitempty"`
}

// staleTempAge is how old a temporary file must be to count as left
// behind: a live job keeps one for milliseconds, so a minute-old one
// belongs to a job that died (RemoveStaleTemps must not race a live job).
const staleTempAge = time.Minute

// OK reports whether the store is sound (vanished files are not faults).
func (d *DoctorReport) OK() bool { return len(d.Integrity) == 0 }

// Doctor checks the store.
func (r *Runner) Doctor(ctx context.Context) (_ *DoctorReport, err error) {
	defer r.recovered(&err, "check the store")
	d := &DoctorReport{StorePath: r.Store.Path()}
	if d.Integrity, err = r.Store.IntegrityCheck(ctx); err != nil {
		return nil, err
	}
	if d.StoreSize, err = r.Store.Size(); err != nil {
		return nil, err
	}
	vs, err := r.Store.AllVersions(ctx)
	if err != nil {
		return nil, err
	}
	d.Versions = len(vs)
	for _, v := range vs {
		if v.ForkPath == "" {
			continue
		}
		if _, err := os.Stat(v.ForkPath); errors.Is(err, os.ErrNotExist) {
			d.OrphanedForks = append(d.OrphanedForks, versionOf(v))
		}
	}
	cs, err := r.Store.Conversations(ctx)
	if err != nil {
		return nil, err
	}
	d.Conversations = len(cs)
	dirs := map[string]bool{}
	for _, c := range cs {
		if _, err := os.Stat(c.SourcePath); errors.Is(err, os.ErrNotExist) {
			d.VanishedSources = append(d.VanishedSources, c)
		}
		dirs[filepath.Dir(c.SourcePath)] = true
	}
	for _, v := range vs {
		for _, p := range []string{v.SourcePath, v.ForkPath} {
			if p != "" {
				dirs[filepath.Dir(p)] = true
			}
		}
	}
	d.StaleTemps = staleTemps(dirs, r.now())
	return d, nil
}

// staleTemps lists the temporary files compactd's writes leave only when
// killed mid-write, in the folders it writes.
func staleTemps(dirs map[string]bool, now time.Time) []string {
	var out []string
	for dir := range dirs {
		matches, _ := filepath.Glob(filepath.Join(dir, ".compactd-*.tmp"))
		for _, m := range matches {
			fi, err := os.Lstat(m)
			if err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < staleTempAge {
				continue
			}
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// RemoveStaleTemps deletes the stale temporary files d lists (doctor
// --fix), re-checking each is still old and still a regular file.
func (r *Runner) RemoveStaleTemps(d *DoctorReport) error {
	var errs []error
	for _, p := range d.StaleTemps {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil || !fi.Mode().IsRegular() || r.now().Sub(fi.ModTime()) < staleTempAge {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
			continue
		}
		d.Removed = append(d.Removed, p)
	}
	return errors.Join(errs...)
}
