package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/daemon/agentdb"
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

// dbAgents are the agents whose sessions live in a database.
var dbAgents = []string{"opencode", "kilo"}

// dbSyncDelay coalesces the bursts of writes an agent makes while it
// streams a response.
const dbSyncDelay = 50 * time.Millisecond

// agentDBs is the daemon's state for database sessions.
type agentDBs struct {
	mu sync.Mutex
	// open connections by database path.
	conns map[string]*agentdb.DB
	// rendered maps a rendered file to its session's fingerprint.
	rendered map[string]string
	// timers coalesce syncs per database.
	timers map[string]*time.Timer
}

func (d *Daemon) dbEnabled(agent string) bool {
	w := d.Settings().Watch
	switch agent {
	case "opencode":
		return on(w.OpenCode)
	case "kilo":
		return on(w.Kilo)
	}
	return false
}

// dbOf returns the agent whose database (or its -wal) p is, "" if none.
func (d *Daemon) dbOf(p string) string {
	for _, a := range dbAgents {
		db := d.opts.Env.AgentDB(a)
		if p == db || p == db+"-wal" {
			return a
		}
	}
	return ""
}

// renderedDir is where an agent's sessions are rendered.
func (d *Daemon) renderedDir(agent string) string {
	return filepath.Join(d.opts.Env.SessionsDir(), agent)
}

// scheduleDBSync re-reads an agent's database after a quiet moment.
func (d *Daemon) scheduleDBSync(agent string) {
	s := &d.dbs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timers == nil {
		s.timers = map[string]*time.Timer{}
	}
	if s.timers[agent] != nil || d.ctx == nil || d.ctx.Err() != nil {
		return
	}
	s.timers[agent] = time.AfterFunc(dbSyncDelay, func() {
		s.mu.Lock()
		delete(s.timers, agent)
		s.mu.Unlock()
		if d.ctx.Err() == nil {
			for _, p := range d.syncDB(d.ctx, agent) {
				d.schedule(p)
			}
		}
	})
}

// syncDB renders the agent's sessions of the workspace that changed since
// the last sync, removes the renderings of sessions that are gone, and
// returns the rendered files that changed.
func (d *Daemon) syncDB(ctx context.Context, agent string) []string {
	if !d.dbEnabled(agent) || len(d.Folders()) == 0 {
		return nil
	}
	path := d.opts.Env.AgentDB(agent)
	s := &d.dbs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns == nil {
		s.conns, s.rendered = map[string]*agentdb.DB{}, map[string]string{}
	}
	db := s.conns[path]
	if db == nil {
		if _, err := os.Stat(path); err != nil {
			return nil
		}
		var err error
		if db, err = agentdb.Open(path); err != nil {
			d.log.Warn("agent database", "agent", agent, "err", err)
			return nil
		}
		s.conns[path] = db
	}
	sessions, err := db.Sessions(ctx, d.Folders())
	if err != nil {
		d.log.Warn("agent database", "agent", agent, "err", err)
		return nil
	}
	dir := d.renderedDir(agent)
	var changed []string
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
			d.log.Warn("render agent session", "agent", agent, "session", ses.ID, "err", err)
			continue
		}
		wrote, err := writeIfChanged(file, data)
		if err != nil {
			d.log.Warn("render agent session", "agent", agent, "session", ses.ID, "err", err)
			continue
		}
		s.rendered[file] = ses.Fingerprint
		if wrote || d.entry(file, false) == nil {
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
	return changed
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
func (d *Daemon) closeDBs() {
	s := &d.dbs
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.timers {
		t.Stop()
	}
	for _, db := range s.conns {
		db.Close()
	}
	s.conns = nil
}

// copilotCwd returns the cwd a Copilot CLI session started in: its
// session.start event's context.cwd, else workspace.yaml's cwd.
func copilotCwd(events string) (string, bool) {
	if f, err := sourcefile.OpenRegular(events); err == nil { // never blocks on a pipe
		defer f.Close()
		r := bufio.NewReaderSize(f, 64<<10)
		for range 5 {
			line, err := r.ReadSlice('\n')
			if len(line) == 0 && err != nil {
				break
			}
			var ev struct {
				Type string `json:"type"`
				Data struct {
					Context struct {
						Cwd string `json:"cwd"`
					} `json:"context"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &ev) == nil && ev.Type == "session.start" && ev.Data.Context.Cwd != "" {
				return ev.Data.Context.Cwd, true
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(events), "workspace.yaml"))
	if err != nil {
		return "", false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "cwd:"); ok {
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			return v, v != ""
		}
	}
	return "", false
}

// vscodeWorkspaceFolder returns the folder a VS Code workspaceStorage
// entry belongs to: workspace.json's folder URI.
func vscodeWorkspaceFolder(storage string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(storage, "workspace.json"))
	if err != nil {
		return "", false
	}
	var w struct {
		Folder string `json:"folder"`
	}
	if json.Unmarshal(b, &w) != nil || !strings.HasPrefix(w.Folder, "file://") {
		return "", false
	}
	p := strings.TrimPrefix(w.Folder, "file://")
	if u, err := unescapePath(p); err == nil {
		p = u
	}
	return filepath.Clean(p), true
}

func unescapePath(p string) (string, error) { return url.PathUnescape(p) }

// findChatDirs finds the chatSessions folders of the workspaceStorage
// entries whose workspace.json names one of the workspace's folders.
func (d *Daemon) findChatDirs() {
	var dirs []string
	folders := d.Folders()
	for _, storage := range d.opts.Env.VSCodeWorkspaceStorage() {
		entries, err := os.ReadDir(storage)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			entry := filepath.Join(storage, e.Name())
			folder, ok := vscodeWorkspaceFolder(entry)
			if !ok {
				continue
			}
			for _, f := range folders {
				if folder == f {
					dirs = append(dirs, filepath.Join(entry, "chatSessions"))
					break
				}
			}
		}
	}
	d.chatDirs.Store(&dirs)
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

// agentOfDatabase names the agent whose database path is: kilo for
// kilo.db, else opencode (Kilo is an opencode fork with the same tables).
func agentOfDatabase(path string) string {
	if filepath.Base(path) == "kilo.db" {
		return "kilo"
	}
	return "opencode"
}

// RenderDatabase renders the sessions an agent's database holds for dirs
// (every session when dirs is nil) the way the daemon does, under
// env.SessionsDir(), and returns the rendered files, newest session first.
// The database is only read. The CLI uses it to gauge and compact
// database sessions.
func RenderDatabase(ctx context.Context, env Env, path string, dirs []string) ([]string, error) {
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
