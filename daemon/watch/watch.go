package watch

import (
	"context"
	"errors"
	"github.com/compactd/compactd/daemon/config"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsnotify/fsnotify"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// skipDirs are folders never descended into: version control, dependencies
// and build outputs hold no transcripts and can hold millions of files.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "vendor": true,
	"dist": true, "build": true, "target": true, "out": true, "bin": true, "obj": true,
	"__pycache__": true, ".venv": true, "venv": true, ".tox": true, ".next": true,
	".gradle": true, ".idea": true, ".cache": true, ".terraform": true,
}

// transcriptExts are the extensions a workspace file must have to be
// considered at all.
var transcriptExts = map[string]bool{".jsonl": true, ".json": true, ".md": true, ".ndjson": true}

// SkippedDir reports whether a folder named name is never descended
// into when looking for a workspace's transcripts.
func SkippedDir(name string) bool { return skipDirs[name] }

// TranscriptName reports whether a workspace file's name (its extension,
// a compression suffix aside) lets it be a transcript at all.
func TranscriptName(path string) bool {
	return transcriptExts[strings.ToLower(filepath.Ext(sourcefile.PlainName(path)))]
}

type rootKind int

const (
	rootWorkspace rootKind = iota
	// rootAgent is one of an agent's folders (daemon/agents); with a
	// database it is never walked: its sessions are rendered (see
	// databases.go).
	rootAgent
	rootGlob
)

type root struct {
	dir  string
	kind rootKind
	// agent is the root's agent (rootAgent); database the file that holds
	// its sessions when it keeps them in one.
	agent    *agents.Agent
	database string
	// scope is where commands may write for this root ("" is dir).
	scope string
	// pattern is a rootGlob's doublestar pattern.
	pattern string
	// folders are the workspace folders whose configuration watches this
	// root; exclude their [watch] exclude patterns.
	folders []string
	exclude []string
}

// A Candidate is a file that may be a transcript of the workspace, found
// walking the roots, with its modification time.
type Candidate struct {
	Path  string
	MTime time.Time
}

// roots lists what each workspace folder's configuration watches.
func (w *Watcher) roots() []root {
	folders := w.opts.Folders()
	cfgs := make([]*config.Config, len(folders))
	for i, f := range folders {
		cfgs[i] = w.opts.Config(f)
	}
	// excludeOf is the union of the exclude patterns of folders.
	excludeOf := func(of []string) []string {
		var out []string
		for i, f := range folders {
			if slices.Contains(of, f) {
				for _, x := range cfgs[i].Watch.Exclude {
					if !slices.Contains(out, x) {
						out = append(out, filepath.FromSlash(ExpandHome(w.opts.Env, x)))
					}
				}
			}
		}
		return out
	}
	var out []root
	for i, f := range folders {
		if cfgs[i].Watch.Workspace {
			out = append(out, root{dir: f, kind: rootWorkspace, folders: []string{f}, exclude: excludeOf([]string{f})})
		}
	}
	for _, a := range agents.All() {
		var on []string
		for i, f := range folders {
			if cfgs[i].Watch.Agent(a.Name) {
				on = append(on, f)
			}
		}
		if len(on) == 0 {
			continue
		}
		exclude := excludeOf(on)
		for _, r := range w.AgentRoots(a, on) {
			out = append(out, root{dir: filepath.Clean(r.Dir), kind: rootAgent, agent: a, database: r.Database, scope: r.Scope, folders: on, exclude: exclude})
		}
	}
	var seen []string
	for i, f := range folders {
		for _, g := range cfgs[i].Watch.Globs {
			g = ExpandHome(w.opts.Env, g)
			if slices.Contains(seen, g) {
				continue
			}
			seen = append(seen, g)
			base, _ := doublestar.SplitPattern(filepath.ToSlash(g))
			dir := filepath.FromSlash(base)
			if dir == g { // a plain file name
				dir = filepath.Dir(g)
			}
			out = append(out, root{dir: dir, kind: rootGlob, pattern: filepath.FromSlash(g), folders: []string{f}, exclude: excludeOf([]string{f})})
		}
	}
	return out
}

// excluded reports whether p (a file or a folder) matches one of r's
// exclude patterns: an absolute pattern matches the whole path, a relative
// one the path below the root.
func (r root) excluded(p string) bool {
	for _, x := range r.exclude {
		target := p
		if !filepath.IsAbs(x) {
			rel, err := filepath.Rel(r.dir, p)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			target = rel
		}
		if ok, _ := doublestar.PathMatch(x, target); ok {
			return true
		}
	}
	return false
}

// globDepth is how many folders below a glob root its pattern can reach,
// -1 for any ("**").
func globDepth(r root) int {
	_, rest := doublestar.SplitPattern(filepath.ToSlash(r.pattern))
	if strings.Contains(rest, "**") {
		return -1
	}
	return strings.Count(rest, "/")
}

// addRoots watches every root (and, for roots not there yet, the nearest
// existing ancestor so their creation is seen) and returns the candidate
// files found. Only files under dir are walked when dir is not "".
func (w *Watcher) addRoots(ctx context.Context, under *string) []Candidate {
	var found []Candidate
	if under == nil {
		// Look again for the agents' folders (a new VS Code workspace
		// storage entry, a folder added).
		w.mu.Lock()
		w.rootCache = nil
		w.mu.Unlock()
	}
	roots := w.roots()
	if under == nil {
		w.setDBRoots(roots)
	}
	for _, r := range roots {
		if r.database != "" {
			// A database folder is never walked (opencode keeps git
			// clones beside its database): watch it, render its sessions.
			if under != nil && !agents.Within(*under, r.dir) && !agents.Within(r.dir, *under) {
				continue
			}
			if !w.watchDown(r.dir) {
				continue
			}
			w.watch(r.dir)
			for _, p := range w.syncDB(ctx, r.agent) {
				if fi, err := os.Stat(p); err == nil {
					found = append(found, Candidate{Path: p, MTime: fi.ModTime()})
				}
			}
			continue
		}
		if ctx.Err() != nil {
			return found
		}
		start := r.dir
		if under != nil {
			switch {
			case agents.Within(*under, r.dir):
				start = *under
			case agents.Within(r.dir, *under):
				// A folder on the way to a root that was not there
				// appeared (or went): the levels below it may all be
				// there already, the root's files too.
			default:
				continue
			}
		}
		if start == r.dir {
			if !w.watchDown(r.dir) {
				continue
			}
		} else if _, err := os.Stat(start); err != nil {
			continue // gone again
		}
		depth := -1
		if r.kind == rootGlob {
			depth = globDepth(r)
		}
		_ = platform.WalkDir(start, func(p string, de fs.DirEntry, err error) error {
			if err != nil || ctx.Err() != nil {
				return nil
			}
			if de.IsDir() {
				if p != r.dir && (skipDirs[de.Name()] || r.excluded(p) || depth >= 0 && folderDepth(r.dir, p) > depth) {
					return filepath.SkipDir
				}
				w.watch(p)
				return nil
			}
			if w.isCandidate(p, r) {
				if fi, err := de.Info(); err == nil && fi.Mode().IsRegular() {
					found = append(found, Candidate{Path: p, MTime: fi.ModTime()})
				}
			}
			return nil
		})
	}
	return found
}

// watchDown watches the nearest existing ancestor of dir and each level
// below it that exists, down to dir's parent, and reports whether dir
// exists. Agents create every level of a session's path at once (Claude
// Code's projects/<slug>/ with its memory/ folder and the session; Qwen
// Code's projects/<slug>/chats/; Codex's sessions/YYYY/MM/DD/ at midnight;
// a first run in a fresh CLAUDE_CONFIG_DIR), so by the time the event of
// one level is handled the levels below it may exist unannounced: each
// level is looked for only once its parent is watched, so it is either
// found here or its creation is an event. The caller walks dir, which
// watches each folder before reading it.
func (w *Watcher) watchDown(dir string) bool {
	var missing []string // dir and its missing ancestors, deepest first
	p := dir
	for {
		if _, err := os.Stat(p); err == nil {
			break
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
	for i := len(missing) - 1; i >= 0; i-- {
		w.watch(p)
		if _, err := os.Stat(missing[i]); err != nil {
			return false
		}
		p = missing[i]
	}
	return true
}

// watch watches dir, or polls it past the bound. When it returns, dir's
// changes are announced from then on, whoever set the watch: a caller
// reads dir after watch, so what it does not find there is an event
// (watchMu holds a concurrent caller until the watch is in place).
func (w *Watcher) watch(dir string) {
	w.watchMu.Lock()
	defer w.watchMu.Unlock()
	w.mu.Lock()
	if w.watched[dir] || w.wb.isPolled(dir) {
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	cost, entries := w.watchCost(dir)
	w.mu.Lock()
	if !w.wb.take(dir, cost) {
		// Past the bound: poll the folder instead of watching it.
		w.wb.poll(dir, entries)
		first := w.wb.noteLimit()
		w.mu.Unlock()
		if first {
			w.log.Warn("watch limit reached: folders beyond it are polled; transcripts that change there are watched one by one",
				"descriptors", w.wb.max, "interval", w.opts.PollInterval)
		}
		return
	}
	w.watched[dir] = true
	w.mu.Unlock()
	if err := w.fw.Add(dir); err != nil {
		if errors.Is(err, fsnotify.ErrClosed) {
			return // the daemon is closing
		}
		// The OS refused (EMFILE, inotify's max_user_watches): poll it.
		w.log.Warn("watch folder; polling it instead", "dir", dir, "err", err)
		w.mu.Lock()
		delete(w.watched, dir)
		w.wb.release(dir)
		w.wb.poll(dir, readStamps(dir))
		w.mu.Unlock()
	}
}

// folderDepth is how many folders below dir the folder p is.
func folderDepth(dir, p string) int {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

// isCandidate decides from the name (and, for agents that keep every
// project together, the session's folder) whether p may be a transcript
// of this workspace under root r.
func (w *Watcher) isCandidate(p string, r root) bool {
	if sourcefile.Compressed(p) {
		// A compressed transcript is the same session as its plain twin,
		// which wins while both exist (Codex writes the .zst, then
		// removes the plain file).
		if _, err := os.Lstat(sourcefile.PlainName(p)); err == nil {
			return false
		}
	}
	if r.excluded(p) {
		return false
	}
	switch r.kind {
	case rootWorkspace:
		if !transcriptExts[strings.ToLower(filepath.Ext(sourcefile.PlainName(p)))] {
			return false
		}
		rel, _ := filepath.Rel(r.dir, p)
		for _, part := range strings.Split(filepath.Dir(rel), string(filepath.Separator)) {
			if skipDirs[part] {
				return false
			}
		}
		return true
	case rootAgent:
		return r.database == "" && (r.agent.Session == nil || r.agent.Session(p, r.folders))
	case rootGlob:
		ok, _ := doublestar.PathMatch(r.pattern, p)
		return ok
	}
	return false
}

// wanted decides whether a changed file is worth reading.
func (w *Watcher) wanted(p string) bool {
	if w.opts.Index.Tracked(p) {
		return true
	}
	if ignoredAt, ignored := w.opts.Index.Ignored(p); ignored {
		// A file that was not a transcript is looked at again only while
		// its head may still change (an agent creating a file line by line).
		fi, err := os.Stat(p)
		if err != nil || fi.Size() == ignoredAt || ignoredAt >= format.DetectBytes {
			return false
		}
	}
	for _, r := range w.roots() {
		if agents.Within(p, r.dir) && w.isCandidate(p, r) {
			return true
		}
	}
	return false
}

// schedule refreshes p after the debounce delay, coalescing bursts.
func (w *Watcher) schedule(p string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timers[p] != nil || w.ctx.Err() != nil {
		return
	}
	w.timers[p] = time.AfterFunc(w.opts.Debounce, func() {
		w.mu.Lock()
		delete(w.timers, p)
		w.mu.Unlock()
		if w.ctx.Err() == nil {
			_ = w.opts.Index.Refresh(p)
		}
	})
}

func (w *Watcher) watchLoop() {
	for {
		select {
		case <-w.ctx.Done():
			return
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			// Overflow means events were lost: re-read what we track.
			w.log.Warn("file watcher", "err", err)
			for _, p := range w.opts.Index.TrackedPaths() {
				w.schedule(p)
			}
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.handle(ev)
		}
	}
}

func (w *Watcher) handle(ev fsnotify.Event) {
	p := filepath.Clean(ev.Name)
	if filepath.Base(p) == config.WorkspaceFile {
		// Written, saved by rename, or removed: it applies now.
		w.wg.Go(w.opts.ConfigFileChanged)
		return
	}
	if agent := w.dbOf(p); agent != nil {
		// The agent wrote to its database (or its -wal): re-render the
		// sessions whose rows changed.
		if !ev.Has(fsnotify.Remove) {
			w.scheduleDBSync(agent)
		}
		return
	}
	switch {
	case ev.Has(fsnotify.Create):
		fi, err := os.Stat(p)
		if err != nil {
			return
		}
		w.entryAdded(p)
		if fi.IsDir() {
			if skipDirs[fi.Name()] {
				return
			}
			// A new folder: watch it and pick up files already written
			// into it before the watch was in place.
			w.wg.Go(func() {
				for _, c := range w.addRoots(w.ctx, &p) {
					w.schedule(c.Path)
				}
			})
			return
		}
		if w.wanted(p) {
			w.schedule(p)
		}
	case ev.Has(fsnotify.Write):
		if w.wanted(p) {
			w.schedule(p)
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		tracked := w.opts.Index.Tracked(p)
		w.mu.Lock()
		wasWatched := w.watched[p]
		delete(w.watched, p)
		w.wb.release(p)
		w.wb.entryGone(filepath.Dir(p))
		if !tracked {
			// A folder went with what it held: the watches below it went
			// too. inotify says so for each watched folder; Windows only
			// names the top one to its parent's watch, so without this a
			// folder recreated at the same path stayed marked as watched
			// and was never watched again.
			under := p + string(filepath.Separator)
			for q := range w.watched {
				if strings.HasPrefix(q, under) {
					delete(w.watched, q)
					w.wb.release(q)
					wasWatched = true
				}
			}
		}
		w.mu.Unlock()
		if tracked {
			w.schedule(p)
		}
		if wasWatched {
			// A root (or a folder on the way to one) went: watch what is
			// left of the way, so the root is seen when it comes back.
			w.wg.Go(func() {
				for _, c := range w.addRoots(w.ctx, &p) {
					w.schedule(c.Path)
				}
			})
		}
		// A plain rollout replaced by its compressed twin: show the twin.
		if twin := sourcefile.Twin(p); !sourcefile.Compressed(p) && w.wanted(twin) {
			if _, err := os.Stat(twin); err == nil {
				w.schedule(twin)
			}
		}
	}
}
