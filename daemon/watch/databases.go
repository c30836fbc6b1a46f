package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/daemon/agentdb"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// Database sessions. opencode and Kilo Code keep every session of every
// project in one SQLite database. compactd reads it through a read-only
// connection (daemon/agentdb) and renders each session of the workspace
// as the JSON `opencode export` prints, in its own folder:
//
//	$XDG_STATE_HOME/compactd/sessions/<agent>/<session id>.json
//
// That file is the session's name everywhere else: the index tracks it,
// the editors show its gauge and open it, commands compact it (the fork is
// an export the agent imports). It is re-rendered when the database or its
// -wal changes and the session's rows did; the agent's database is never
// written.

// dbSyncDelay coalesces the bursts of writes an agent makes while it
// streams a response.
const dbSyncDelay = 50 * time.Millisecond

// dbRecheckDelay is when a sync that writes triggered looks once more. A
// commit writes its frames to the -wal (the event) before SQLite publishes
// it in the shared-memory index (no event), so the read a write triggers
// can run before the commit is visible; without a second look the commit
// stayed unseen until the agent's next write (seen under load: the last
// turn of a session never reached the gauge).
const dbRecheckDelay = 250 * time.Millisecond

// agentDBs is the watcher's state for database sessions.
type agentDBs struct {
	mu sync.Mutex
	// open connections by database path.
	conns map[string]*agentdb.DB
	// rendered maps a rendered file to its session's fingerprint.
	rendered map[string]string
	// timers coalesce syncs per database.
	timers map[string]*dbSync
}

// dbSync is a sync waiting for its timer.
type dbSync struct {
	timer *time.Timer
	// recheck: look again dbRecheckDelay after this sync (a write was
	// seen since the last read began).
	recheck bool
}

// setDBRoots keeps the database roots among roots (addRoots computes
// them whenever the folders or the configuration change): every file
// event asks whether it is an agent's database.
func (w *Watcher) setDBRoots(roots []root) {
	var dbs []root
	for _, r := range roots {
		if r.database != "" {
			dbs = append(dbs, r)
		}
	}
	w.dbRoots.Store(&dbs)
}

// databaseRoots are the watched agents' database roots.
func (w *Watcher) databaseRoots() []root {
	if dbs := w.dbRoots.Load(); dbs != nil {
		return *dbs
	}
	w.setDBRoots(w.roots())
	return *w.dbRoots.Load()
}

// dbRoot is the watched root of agent's database, false when the
// configuration does not watch it.
func (w *Watcher) dbRoot(agent *agents.Agent) (root, bool) {
	for _, r := range w.databaseRoots() {
		if r.agent == agent {
			return r, true
		}
	}
	return root{}, false
}

// dbOf returns the watched agent whose database (or its -wal) p is, nil if
// none.
func (w *Watcher) dbOf(p string) *agents.Agent {
	for _, r := range w.databaseRoots() {
		if p == r.database || p == r.database+"-wal" {
			return r.agent
		}
	}
	return nil
}

// scheduleDBSync re-reads an agent's database after a quiet moment, and
// once more dbRecheckDelay later.
func (w *Watcher) scheduleDBSync(agent *agents.Agent) {
	w.scheduleDBSyncAfter(agent, dbSyncDelay, true)
}

func (w *Watcher) scheduleDBSyncAfter(agent *agents.Agent, delay time.Duration, recheck bool) {
	s := &w.dbs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timers == nil {
		s.timers = map[string]*dbSync{}
	}
	if w.ctx == nil || w.ctx.Err() != nil {
		return
	}
	if p := s.timers[agent.Name]; p != nil {
		p.recheck = p.recheck || recheck // its read comes after this write
		return
	}
	p := &dbSync{recheck: recheck}
	p.timer = time.AfterFunc(delay, func() {
		s.mu.Lock()
		if s.timers[agent.Name] == p {
			delete(s.timers, agent.Name)
		}
		again := p.recheck
		s.mu.Unlock()
		if w.ctx.Err() != nil {
			return
		}
		for _, path := range w.syncDB(w.ctx, agent) {
			w.schedule(path)
		}
		if again {
			w.scheduleDBSyncAfter(agent, dbRecheckDelay, false)
		}
	})
	s.timers[agent.Name] = p
}

// syncDB renders the agent's sessions of the workspace that changed since
// the last sync, removes the renderings of sessions that are gone, and
// returns the rendered files that changed.
func (w *Watcher) syncDB(ctx context.Context, agent *agents.Agent) []string {
	changed, _ := w.render(ctx, agent, false)
	return changed
}

// RenderAgain forgets what was rendered of agent's database sessions and
// renders them again: the files whose content changed, and why the
// database could not be read (the read never waits for the agent's locks).
func (w *Watcher) RenderAgain(ctx context.Context, agent *agents.Agent) ([]string, error) {
	return w.render(ctx, agent, true)
}

func (w *Watcher) render(ctx context.Context, agent *agents.Agent, again bool) ([]string, error) {
	r, ok := w.dbRoot(agent)
	if !ok {
		return nil, nil
	}
	path := r.database
	s := &w.dbs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns == nil {
		s.conns, s.rendered = map[string]*agentdb.DB{}, map[string]string{}
	}
	if again {
		clear(s.rendered)
	}
	db := s.conns[path]
	if db == nil {
		if _, err := os.Stat(path); err != nil {
			return nil, nil
		}
		var err error
		if db, err = agentdb.Open(path); err != nil {
			w.log.Warn("agent database", "agent", agent.Name, "err", err)
			return nil, err
		}
		s.conns[path] = db
	}
	sessions, err := db.Sessions(ctx, r.folders)
	if err != nil {
		w.log.Warn("agent database", "agent", agent.Name, "err", err)
		return nil, err
	}
	dir := r.scope
	var changed []string
	var errs []error
	live := map[string]bool{}
	for _, ses := range sessions {
		file := filepath.Join(dir, safeSessionFile(ses.ID))
		live[file] = true
		if s.rendered[file] == ses.Fingerprint {
			continue
		}
		data, err := db.Export(ctx, ses.ID)
		if errors.Is(err, agentdb.ErrNoSession) {
			continue // deleted between the two reads
		}
		if err != nil {
			w.log.Warn("render agent session", "agent", agent.Name, "session", ses.ID, "err", err)
			errs = append(errs, err)
			continue
		}
		wrote, err := writeIfChanged(file, data)
		if err != nil {
			w.log.Warn("render agent session", "agent", agent.Name, "session", ses.ID, "err", err)
			errs = append(errs, err)
			continue
		}
		s.rendered[file] = ses.Fingerprint
		if wrote || !w.opts.Index.Tracked(file) {
			changed = append(changed, file)
		}
	}
	for file := range s.rendered {
		if filepath.Dir(file) == dir && !live[file] {
			delete(s.rendered, file)
			if err := os.Remove(file); err == nil || errors.Is(err, os.ErrNotExist) {
				changed = append(changed, file)
			}
		}
	}
	return changed, errors.Join(errs...)
}

// safeSessionFile names a session's rendering; ids are ses_<base62>, but a
// hostile database may hold anything.
func safeSessionFile(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || len(b) > 200 {
		return "session.json"
	}
	return string(b) + ".json"
}

// writeIfChanged replaces file with data atomically unless it already
// holds exactly data.
func writeIfChanged(file string, data []byte) (bool, error) {
	if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, ".render-*.tmp")
	if err != nil {
		return false, err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return false, err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return false, err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return false, err
	}
	return true, nil
}

// closeDBs closes the agents' database connections.
func (w *Watcher) closeDBs() {
	s := &w.dbs
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.timers {
		p.timer.Stop()
	}
	for _, db := range s.conns {
		db.Close()
	}
	s.conns = nil
}

// IsAgentDatabase reports whether path is an SQLite database (by its
// header) named like an agent's session database (<agent>.db).
func IsAgentDatabase(path string) bool {
	if !strings.HasSuffix(path, ".db") {
		return false
	}
	f, err := sourcefile.OpenRegular(path) // a pipe named x.db must not block discovery
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.Read(head)
	return n == 16 && string(head) == "SQLite format 3\x00"
}

// agentOfDatabase names the agent whose database path is (<agent>.db),
// else opencode (the agents that import their forks share its tables).
func agentOfDatabase(path string) string {
	for _, a := range agents.All() {
		if a.Imports && filepath.Base(path) == a.Name+".db" {
			return a.Name
		}
	}
	return "opencode"
}

// DatabaseSessions lists the sessions an agent's database holds, newest
// first (its id, folder and title), for the user to name one.
func DatabaseSessions(ctx context.Context, path string) ([]agentdb.Session, error) {
	db, err := agentdb.Open(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.Sessions(ctx, nil)
}

// RenderDatabaseSession renders session id of an agent's database the way
// the watcher does and returns the rendered file; the error lists the
// sessions the database holds when it has none of that id.
func RenderDatabaseSession(ctx context.Context, env agents.Env, path, id string) (string, error) {
	db, err := agentdb.Open(path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	data, err := db.Export(ctx, id)
	if errors.Is(err, agentdb.ErrNoSession) {
		sessions, lerr := db.Sessions(ctx, nil)
		if lerr != nil {
			return "", fmt.Errorf("%s holds no session %s", path, id)
		}
		return "", fmt.Errorf("%s holds no session %s; it holds %s", path, id, ListSessions(sessions))
	}
	if err != nil {
		return "", err
	}
	file := filepath.Join(env.SessionsDir(), agentOfDatabase(path), safeSessionFile(id))
	if _, err := writeIfChanged(file, data); err != nil {
		return "", fmt.Errorf("render session %s of %s: %w", id, path, err)
	}
	return file, nil
}

// ListSessions names sessions for a message: "ses_1 (in /src/app: Fix the
// parser), …", "no session" when empty.
func ListSessions(sessions []agentdb.Session) string {
	if len(sessions) == 0 {
		return "no session"
	}
	var parts []string
	for _, s := range sessions {
		p := s.ID + " (in " + s.Directory
		if s.Title != "" {
			p += ": " + s.Title
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, ", ")
}

// RenderDatabase renders the sessions an agent's database holds for dirs
// (every session when dirs is nil) the way the watcher does, under
// env.SessionsDir(), and returns the rendered files, newest session first.
// The database is only read. The CLI uses it to gauge and compact
// database sessions.
func RenderDatabase(ctx context.Context, env agents.Env, path string, dirs []string) ([]string, error) {
	db, err := agentdb.Open(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	sessions, err := db.Sessions(ctx, dirs)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(env.SessionsDir(), agentOfDatabase(path))
	var out []string
	for _, s := range sessions {
		data, err := db.Export(ctx, s.ID)
		if errors.Is(err, agentdb.ErrNoSession) {
			continue
		}
		if err != nil {
			return out, err
		}
		file := filepath.Join(dir, safeSessionFile(s.ID))
		if _, err := writeIfChanged(file, data); err != nil {
			return out, fmt.Errorf("render session %s of %s: %w", s.ID, path, err)
		}
		out = append(out, file)
	}
	return out, nil
}

// RenderedSession is the file a database session is rendered to under
// its root's scope: what every other part of compactd names it by (a
// search hit names it before RenderDatabaseSession writes it).
func RenderedSession(scope, id string) string { return filepath.Join(scope, safeSessionFile(id)) }
