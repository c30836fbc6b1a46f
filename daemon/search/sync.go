package search

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/sourcefile"
	"github.com/compactd/compactd/daemon/store"
	"github.com/compactd/compactd/daemon/watch"
)

// Sync brings the index up to date with the machine: every registered
// agent's sessions of every project, the workspace folders' transcripts
// and the stored versions — what changed since the last sync only (a
// session that grew costs what it grew) — drops the sessions deleted
// since, and keeps the index within its size.
func (x *Index) Sync(ctx context.Context, progress Progress) (Stats, error) {
	start := time.Now()
	x.writing.Lock()
	defer x.writing.Unlock()
	docs, err := x.st.SearchDocs(ctx)
	if err != nil {
		return Stats{}, err
	}
	known := make(map[string]*store.SearchDoc, len(docs))
	var lastVersion int64
	for i := range docs {
		known[docs[i].Source] = &docs[i]
		if id, ok := versionID(docs[i].Source); ok && id > lastVersion {
			lastVersion = id
		}
	}
	files := x.files(ctx)
	// Oldest first: the pieces indexed last are listed first by the
	// index, and a query's window of its newest pieces holds the
	// sessions active last.
	mtimes := make(map[string]int64, len(files))
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil {
			mtimes[p] = fi.ModTime().UnixNano()
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return mtimes[files[i]] < mtimes[files[j]] })
	versions, err := x.st.VersionsAfter(ctx, lastVersion)
	if err != nil {
		return Stats{}, err
	}
	dbRoots := x.databaseRoots()
	total := len(files) + len(versions) + len(dbRoots)
	done := 0
	report := func(source string) {
		done++
		if progress != nil {
			progress(done, total, source)
		}
	}
	var st Stats
	seen := map[string]bool{}
	for _, path := range files {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		seen[path] = true
		prev := known[path]
		var one Stats
		err := x.retry(ctx, func() error {
			var err error
			one, err = x.indexFile(ctx, path, prev)
			return err
		}, path, &prev)
		if err != nil {
			return st, err
		}
		st.add(one)
		report(path)
	}
	read := map[string]bool{} // the databases read whole this sync
	for _, r := range dbRoots {
		one, err := x.syncDatabase(ctx, r, known, seen)
		if err == nil {
			read[r.root.Database] = true
		} else if ctx.Err() == nil {
			x.log.Warn("search: an agent's database could not be read", "agent", r.agent.Name, "err", err)
		}
		st.add(one)
		report(r.root.Database)
	}
	for _, v := range versions {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		if known[versionSource(v.ID)] != nil {
			continue
		}
		one, err := x.indexVersion(ctx, v)
		if err != nil && !errors.Is(err, store.ErrSearchStale) {
			return st, err
		}
		st.add(one)
		report(v.Label)
	}
	// Sessions deleted since: a file gone, a database session no longer
	// listed. Files outside the roots (a workspace left, a transcript an
	// editor opened) stay while they exist.
	for i := range docs {
		d := &docs[i]
		gone := false
		switch d.Kind {
		case store.SearchFile:
			if !seen[d.Source] {
				_, err := os.Lstat(d.Source)
				gone = errors.Is(err, os.ErrNotExist)
			}
		case store.SearchDatabase:
			db, _ := splitDBSource(d.Source)
			gone = read[db] && !seen[d.Source]
		}
		if gone {
			if err := x.st.DeleteSearchDoc(ctx, d.ID, false); err != nil {
				return st, err
			}
			st.Removed++
		}
	}
	n, err := x.evict(ctx)
	st.Evicted += n
	st.Took = time.Since(start)
	return st, err
}

// SyncVersions indexes the versions stored since the last sync (what a
// one-session search needs beside its transcript).
func (x *Index) SyncVersions(ctx context.Context) error {
	x.writing.Lock()
	defer x.writing.Unlock()
	last, err := x.st.LastSearchVersion(ctx)
	if err != nil {
		return err
	}
	versions, err := x.st.VersionsAfter(ctx, last)
	if err != nil {
		return err
	}
	for _, v := range versions {
		if _, err := x.indexVersion(ctx, v); err != nil && !errors.Is(err, store.ErrSearchStale) {
			return err
		}
	}
	return nil
}

// files are the transcript files to index: those under every agent's
// folders of every project, and the workspace's (by name: which are
// transcripts is read from their content).
func (x *Index) files(ctx context.Context) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, a := range agents.All() {
		if a.Everywhere == nil {
			continue
		}
		for _, r := range a.Everywhere(x.opts.Env) {
			if r.Database != "" {
				continue
			}
			walk(ctx, r.Dir, func(p string) {
				if a.Session == nil || a.Session(p, nil) {
					add(p)
				}
			})
		}
	}
	for _, f := range x.opts.Folders() {
		if x.tooWide(f) {
			continue
		}
		walk(ctx, f, func(p string) {
			if watch.TranscriptName(p) {
				add(p)
			}
		})
	}
	return out
}

// tooWide: a workspace folder that holds the home folder (a server or a
// CLI started in ~ or /) is not walked: every agent's folders there are
// read through the registry, and the rest of a home is not transcripts.
func (x *Index) tooWide(folder string) bool {
	home := x.opts.Env.Home
	return home != "" && agents.Within(home, folder)
}

// walk calls found for each regular file under dir, skipping the folders
// that never hold transcripts and a compressed transcript whose plain
// twin is there.
func walk(ctx context.Context, dir string, found func(path string)) {
	_ = platform.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			if de != nil && de.IsDir() && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if de.IsDir() {
			if p != dir && watch.SkippedDir(de.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !de.Type().IsRegular() {
			return nil
		}
		if sourcefile.Compressed(p) {
			if _, err := os.Lstat(sourcefile.PlainName(p)); err == nil {
				return nil
			}
		}
		found(filepath.Clean(p))
		return nil
	})
}

// A dbRoot is an agent's database of every project's sessions.
type dbRoot struct {
	agent *agents.Agent
	root  agents.Root
}

func (x *Index) databaseRoots() []dbRoot {
	var out []dbRoot
	for _, a := range agents.All() {
		if a.Everywhere == nil {
			continue
		}
		for _, r := range a.Everywhere(x.opts.Env) {
			if r.Database != "" {
				if _, err := os.Stat(r.Database); err == nil {
					out = append(out, dbRoot{agent: a, root: r})
				}
			}
		}
	}
	return out
}

// syncDatabases indexes the sessions of every agent's database whose
// rows changed.
func (x *Index) syncDatabases(ctx context.Context) (Stats, error) {
	docs, err := x.st.SearchDocs(ctx)
	if err != nil {
		return Stats{}, err
	}
	known := map[string]*store.SearchDoc{}
	for i := range docs {
		if docs[i].Kind == store.SearchDatabase {
			known[docs[i].Source] = &docs[i]
		}
	}
	var st Stats
	for _, r := range x.databaseRoots() {
		one, err := x.syncDatabase(ctx, r, known, map[string]bool{})
		if err != nil {
			return st, err
		}
		st.add(one)
	}
	return st, nil
}

// syncDatabase indexes the sessions of an agent's database whose rows
// changed.
func (x *Index) syncDatabase(ctx context.Context, r dbRoot, known map[string]*store.SearchDoc, seen map[string]bool) (Stats, error) {
	db, err := x.dbs.open(r.root.Database)
	if err != nil {
		return Stats{}, err
	}
	sessions, err := db.Sessions(ctx, nil)
	if err != nil {
		return Stats{}, err
	}
	var st Stats
	for _, ses := range sessions {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		source := dbSource(db.Path(), ses.ID)
		seen[source] = true
		prev := known[source]
		var one Stats
		err := x.retry(ctx, func() error {
			var err error
			one, err = x.indexDBSession(ctx, db, r.agent, ses, prev)
			return err
		}, source, &prev)
		if err != nil {
			x.log.Warn("search: a database session could not be indexed", "agent", r.agent.Name, "session", ses.ID, "err", err)
			continue
		}
		st.add(one)
	}
	return st, nil
}

// evict keeps the index within its size: past it, the sessions least
// recently active lose their pieces (the entry stays, so the next sync
// does not index them again unless they change) until it is a tenth
// under, and the index is merged to give their room back.
func (x *Index) evict(ctx context.Context) (int, error) {
	if x.opts.MaxBytes <= 0 {
		return 0, nil
	}
	// Measuring the index reads every page of it: a large one is measured
	// only when the text it holds could make it reach its size (it stays
	// within a quarter of its text; a small one has pages half empty).
	if text, err := x.st.SearchText(ctx); err != nil || text >= 64<<20 && text/4 <= x.opts.MaxBytes {
		return 0, err
	}
	size, err := x.st.SearchSize(ctx)
	if err != nil || size.IndexBytes <= x.opts.MaxBytes || size.TextBytes == 0 {
		return 0, err
	}
	docs, err := x.st.SearchDocs(ctx)
	if err != nil {
		return 0, err
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Updated.Before(docs[j].Updated) })
	perText := float64(size.IndexBytes) / float64(size.TextBytes)
	need := float64(size.IndexBytes - x.opts.MaxBytes*9/10)
	n := 0
	for _, d := range docs {
		if need <= 0 {
			break
		}
		if d.TextBytes == 0 || d.Evicted {
			continue
		}
		if err := x.st.DeleteSearchDoc(ctx, d.ID, true); err != nil {
			return n, err
		}
		need -= perText * float64(d.TextBytes)
		n++
	}
	if n > 0 {
		x.log.Info("search: the index reached its size; the least recently active sessions left it", "sessions", n, "max_bytes", x.opts.MaxBytes)
		return n, x.st.OptimizeSearch(ctx)
	}
	return n, nil
}
