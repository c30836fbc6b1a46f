package daemon

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/compactd/compactd/compaction/format"
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

type rootKind int

const (
	rootWorkspace rootKind = iota
	rootClaude
	rootCodex
	rootGlob
	// rootQwen is a Qwen Code project's chats folder.
	rootQwen
	// rootAgentDB is the folder of an agent's database (opencode, kilo):
	// never walked; its sessions are rendered (see agentsessions.go).
	rootAgentDB
	// rootCopilotCLI is ~/.copilot/session-state.
	rootCopilotCLI
	// rootCursor is a Cursor project's agent-transcripts folder.
	rootCursor
	// rootCopilotChat is a VS Code workspaceStorage entry's chatSessions.
	rootCopilotChat
)

type root struct {
	dir     string
	kind    rootKind
	pattern string // rootGlob only; the agent for rootAgentDB
}

type candidate struct {
	path  string
	mtime time.Time
}

// roots lists what the current settings watch.
func (d *Daemon) roots() []root {
	set, env := d.Settings(), d.opts.Env
	var out []root
	for _, f := range d.Folders() {
		if on(set.Watch.Workspace) {
			out = append(out, root{dir: f, kind: rootWorkspace})
		}
		if on(set.Watch.Claude) {
			out = append(out, root{dir: env.ClaudeProjectDir(f), kind: rootClaude})
		}
	}
	for _, f := range d.Folders() {
		if on(set.Watch.Qwen) {
			out = append(out, root{dir: env.QwenProjectDir(f), kind: rootQwen})
		}
		if on(set.Watch.Cursor) {
			out = append(out, root{dir: filepath.Join(env.CursorProjectsDir(), CursorSlug(f), "agent-transcripts"), kind: rootCursor})
		}
	}
	if len(d.Folders()) > 0 {
		if on(set.Watch.Codex) {
			out = append(out, root{dir: env.CodexSessionsDir(), kind: rootCodex})
		}
		for _, a := range dbAgents {
			if d.dbEnabled(a) {
				out = append(out, root{dir: filepath.Dir(env.AgentDB(a)), kind: rootAgentDB, pattern: a})
			}
		}
		if on(set.Watch.CopilotCLI) {
			out = append(out, root{dir: env.CopilotSessionsDir(), kind: rootCopilotCLI})
		}
		if on(set.Watch.CopilotChat) {
			if dirs := d.chatDirs.Load(); dirs != nil {
				for _, dir := range *dirs {
					out = append(out, root{dir: dir, kind: rootCopilotChat})
				}
			}
		}
	}
	for _, g := range set.Watch.Globs {
		if strings.HasPrefix(g, "~/") {
			g = filepath.Join(env.Home, g[2:])
		}
		dir := g
		for strings.ContainsAny(dir, "*?[") {
			dir = filepath.Dir(dir)
		}
		if dir == g { // a plain file name
			dir = filepath.Dir(g)
		}
		out = append(out, root{dir: dir, kind: rootGlob, pattern: g})
	}
	return out
}

// addRoots watches every root (and, for roots not there yet, the nearest
// existing ancestor so their creation is seen) and returns the candidate
// files found. Only files under dir are walked when dir is not "".
func (d *Daemon) addRoots(ctx context.Context, under *string) []candidate {
	var found []candidate
	if under == nil {
		d.findChatDirs()
	}
	for _, r := range d.roots() {
		if r.kind == rootAgentDB {
			// A database folder is never walked (opencode keeps git
			// clones beside its database): watch it, render its sessions.
			if under != nil && !within(*under, r.dir) && !within(r.dir, *under) {
				continue
			}
			if _, err := os.Stat(r.dir); err != nil {
				d.watchAncestor(r.dir)
				continue
			}
			d.watch(r.dir)
			for _, p := range d.syncDB(ctx, r.pattern) {
				if fi, err := os.Stat(p); err == nil {
					found = append(found, candidate{path: p, mtime: fi.ModTime()})
				}
			}
			continue
		}
		if ctx.Err() != nil {
			return found
		}
		start := r.dir
		if under != nil {
			if !within(*under, r.dir) {
				if within(r.dir, *under) { // an ancestor of a pending root appeared
					d.watchAncestor(r.dir)
				}
				continue
			}
			start = *under
		}
		if _, err := os.Stat(start); err != nil {
			d.watchAncestor(r.dir)
			continue
		}
		recursive := r.kind != rootGlob || strings.Contains(r.pattern, "**")
		_ = filepath.WalkDir(start, func(p string, de fs.DirEntry, err error) error {
			if err != nil || ctx.Err() != nil {
				return nil
			}
			if de.IsDir() {
				if p != r.dir && (skipDirs[de.Name()] || !recursive) {
					return filepath.SkipDir
				}
				d.watch(p)
				return nil
			}
			if d.isCandidate(p, r) {
				if fi, err := de.Info(); err == nil && fi.Mode().IsRegular() {
					found = append(found, candidate{path: p, mtime: fi.ModTime()})
				}
			}
			return nil
		})
	}
	return found
}

// watchAncestor watches the nearest existing ancestor of dir, so that the
// creation of dir (a new Claude project folder, a first Codex session) is seen.
func (d *Daemon) watchAncestor(dir string) {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			d.watch(p)
			return
		}
		if p == filepath.Dir(p) {
			return
		}
	}
}

func (d *Daemon) watch(dir string) {
	d.mu.Lock()
	if d.watched[dir] {
		d.mu.Unlock()
		return
	}
	d.watched[dir] = true
	d.mu.Unlock()
	if err := d.watcher.Add(dir); err != nil {
		d.log.Warn("watch folder", "dir", dir, "err", err)
		d.mu.Lock()
		delete(d.watched, dir)
		d.mu.Unlock()
	}
}

// isCandidate decides from the name (and, for Codex, the first line)
// whether p may be a transcript of this workspace under root r.
func (d *Daemon) isCandidate(p string, r root) bool {
	if sourcefile.Compressed(p) {
		// A compressed transcript is the same session as its plain twin,
		// which wins while both exist (Codex writes the .zst, then
		// removes the plain file).
		if _, err := os.Lstat(sourcefile.PlainName(p)); err == nil {
			return false
		}
	}
	base := filepath.Base(sourcefile.PlainName(p))
	ext := strings.ToLower(filepath.Ext(base))
	switch r.kind {
	case rootWorkspace:
		if !transcriptExts[ext] {
			return false
		}
		rel, _ := filepath.Rel(r.dir, p)
		for _, part := range strings.Split(filepath.Dir(rel), string(filepath.Separator)) {
			if skipDirs[part] {
				return false
			}
		}
		return true
	case rootClaude:
		return ext == ".jsonl" && !sourcefile.Compressed(p)
	case rootCodex:
		if !strings.HasPrefix(base, "rollout-") || ext != ".jsonl" {
			return false
		}
		cwd, ok := codexCwd(p)
		if !ok {
			return false
		}
		for _, f := range d.Folders() {
			if within(filepath.Clean(cwd), f) {
				return true
			}
		}
		return false
	case rootQwen, rootCursor:
		return ext == ".jsonl" && !sourcefile.Compressed(p)
	case rootCopilotCLI:
		if base != "events.jsonl" {
			return false
		}
		cwd, ok := copilotCwd(p)
		if !ok {
			return false
		}
		for _, f := range d.Folders() {
			if within(filepath.Clean(cwd), f) {
				return true
			}
		}
		return false
	case rootCopilotChat:
		return (ext == ".jsonl" || ext == ".json") && filepath.Base(filepath.Dir(p)) == "chatSessions"
	case rootGlob:
		ok, _ := filepath.Match(r.pattern, p)
		if !ok && strings.Contains(r.pattern, "**") {
			ok, _ = filepath.Match(strings.ReplaceAll(r.pattern, "**/", ""), filepath.Join(r.dir, base))
		}
		return ok
	}
	return false
}

// wanted decides whether a changed file is worth reading.
func (d *Daemon) wanted(p string) bool {
	d.mu.Lock()
	_, tracked := d.files[p]
	ignoredAt, ignored := d.ignored[p]
	d.mu.Unlock()
	if tracked {
		return true
	}
	if ignored {
		// A file that was not a transcript is looked at again only while
		// its head may still change (an agent creating a file line by line).
		fi, err := os.Stat(p)
		if err != nil || fi.Size() == ignoredAt || ignoredAt >= format.DetectBytes {
			return false
		}
	}
	for _, r := range d.roots() {
		if within(p, r.dir) && d.isCandidate(p, r) {
			return true
		}
	}
	return false
}

// schedule refreshes p after the debounce delay, coalescing bursts.
func (d *Daemon) schedule(p string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timers[p] != nil || d.ctx.Err() != nil {
		return
	}
	d.timers[p] = time.AfterFunc(d.opts.Debounce, func() {
		d.mu.Lock()
		delete(d.timers, p)
		d.mu.Unlock()
		if d.ctx.Err() == nil {
			_ = d.refresh(p)
		}
	})
}

func (d *Daemon) watchLoop() {
	for {
		select {
		case <-d.ctx.Done():
			return
		case err, ok := <-d.watcher.Errors:
			if !ok {
				return
			}
			// Overflow means events were lost: re-read what we track.
			d.log.Warn("file watcher", "err", err)
			for _, tr := range d.all() {
				d.schedule(tr.path)
			}
		case ev, ok := <-d.watcher.Events:
			if !ok {
				return
			}
			d.handle(ev)
		}
	}
}

func (d *Daemon) handle(ev fsnotify.Event) {
	p := filepath.Clean(ev.Name)
	if agent := d.dbOf(p); agent != "" {
		// The agent wrote to its database (or its -wal): re-render the
		// sessions whose rows changed.
		if d.dbEnabled(agent) && !ev.Has(fsnotify.Remove) {
			d.scheduleDBSync(agent)
		}
		return
	}
	switch {
	case ev.Has(fsnotify.Create):
		fi, err := os.Stat(p)
		if err != nil {
			return
		}
		if fi.IsDir() {
			if skipDirs[fi.Name()] {
				return
			}
			// A new folder: watch it and pick up files already written
			// into it before the watch was in place.
			d.wg.Go(func() {
				for _, c := range d.addRoots(d.ctx, &p) {
					d.schedule(c.path)
				}
			})
			return
		}
		if d.wanted(p) {
			d.schedule(p)
		}
	case ev.Has(fsnotify.Write):
		if d.wanted(p) {
			d.schedule(p)
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		d.mu.Lock()
		_, tracked := d.files[p]
		delete(d.watched, p)
		d.mu.Unlock()
		if tracked {
			d.schedule(p)
		}
		// A plain rollout replaced by its compressed twin: show the twin.
		if twin := sourcefile.Twin(p); !sourcefile.Compressed(p) && d.wanted(twin) {
			if _, err := os.Stat(twin); err == nil {
				d.schedule(twin)
			}
		}
	}
}
