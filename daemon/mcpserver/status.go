package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/sourcefile"
	"github.com/compactd/compactd/daemon/watch"
)

// StatusRequest is context_status's arguments.
type StatusRequest struct {
	Session string `json:"session,omitempty" jsonschema:"a session id or transcript path; by default the session this agent runs in"`
}

// Status is the gauge of one session, as the daemon shows it.
//
// It is the context_status tool's answer, one field per figure the agent reads: hence more than a
// dozen.
type Status struct {
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Path    string `json:"path"`
	Format  string `json:"format"`
	Model   string `json:"model"`
	// Tokens is the context's size now: the last usage the API reported
	// (Reported) plus compactd's count of what was appended since.
	Tokens        int     `json:"tokens"`
	ContextWindow int     `json:"contextWindow"`
	Percent       float64 `json:"percent"`
	Level         string  `json:"level"`
	// Source says whether Tokens rests on reported usage or an estimate.
	Source   string `json:"source"`
	Reported int    `json:"reported"`
	// AutoCompactAt is where the agent compacts on its own (0: unknown or
	// switched off); AutoCompact says which, and why, as the gauge's
	// other views do.
	AutoCompactAt int         `json:"autoCompactAt,omitempty"`
	AutoCompact   *gauge.Mark `json:"autoCompact,omitempty"`
	// Breakdown is what fills the window; Reach what compaction can act on.
	Breakdown []gauge.CategoryTokens `json:"breakdown"`
	Reach     string                 `json:"reach"`
	// Compaction is what compactd's configured pipeline would leave,
	// without a summarizer: an estimate, nothing is written.
	Compaction *Savings `json:"compaction,omitempty"`
}

// Savings is what a compaction would do.
type Savings struct {
	TokensAfter int    `json:"tokensAfter"`
	Saves       int    `json:"saves"`
	Pipeline    string `json:"pipeline"`
}

// ContextStatus answers context_status(). The server follows each session
// it was asked about from call to call (daemon/index, as the daemon's
// gauge does): a call reads what the session gained since the previous
// one, not the whole file, and answers as a first call would.
func (s *Server) ContextStatus(ctx context.Context, req StatusRequest) (*Status, error) {
	sess, err := s.findSession(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	l, err := s.look(ctx, sess)
	if err != nil {
		return nil, err
	}
	if req.Session == "" {
		l = s.settle(ctx, sess, l)
	}
	path, agent, t, g := sess.path, sess.agent, l.t, l.snap.Gauge
	st := &Status{
		Session: t.Meta.SessionID, Path: path, Format: string(t.Format), Model: g.Model,
		Tokens: g.Tokens, ContextWindow: g.ContextWindow, Percent: round1(100 * g.Ratio), Level: string(g.Level),
		Source: string(g.Source), Reported: g.Reported, AutoCompactAt: g.AutoCompactAt, AutoCompact: g.Mark(),
	}
	if b := l.snap.Insight.Breakdown; b != nil {
		st.Breakdown, st.Reach = b.Parts, b.Reach()
	}
	if agent != nil {
		st.Agent = agent.Name
	}
	counter, err := s.counterSet().For(gauge.Resolve(t, gauge.Options{Registry: tokens.NewRegistry()}).Info)
	if err != nil {
		return nil, err
	}
	parts := l.parts
	if l.partsBy != counter.ID() {
		parts = nil // counted for another model: counted again
	}
	counts, err := index.KnownCounts(ctx, t, counter, parts)
	if err != nil {
		return nil, err
	}
	copts := l.cfg.CompactOptions(0, config.Overrides{})
	copts.NoRetention = true
	copts.Counts = counts
	copts.Recall = recall.NewBook(nil).Handle // placeholders as a compaction writes them
	copts.Window = g.ContextWindow
	if _, rep, err := strategy.Run(ctx, t, counter, copts); err == nil {
		saved := rep.TokensBefore - rep.TokensAfter
		st.Compaction = &Savings{TokensAfter: max(g.Tokens-saved, 0), Saves: saved, Pipeline: strings.Join(copts.Strategies, ",")}
	}
	return st, nil
}

// A look is what one context_status call read of its session.
type look struct {
	// snap is the index's figures of the file as it is now.
	snap *index.Snapshot
	// t is the conversation, lent by the index when it holds it (a JSON
	// Lines session) with its part counts, parts, made by the counter
	// whose ID is partsBy; else read whole, parts nil.
	t       *transcript.Transcript
	parts   [][]int
	partsBy string
	cfg     *config.Config
}

// look brings the server's index up to date with the session (reading
// what it gained since the last call) and returns what it holds.
func (s *Server) look(ctx context.Context, sess *session) (*look, error) {
	if sess.db != "" {
		if _, err := watch.RenderDatabaseSession(ctx, sess.env, sess.db, sess.id); err != nil {
			return nil, err
		}
	}
	path := filepath.Clean(sess.path)
	cfg, err := config.Load(config.Nearest(path, s.Cwd))
	if err != nil {
		cfg = config.Default()
	}
	x, err := s.statusIndex(path, cfg)
	if err != nil {
		return nil, err
	}
	// Opened: the index keeps its parse whatever its size, for the
	// compaction estimate of the next call.
	x.MarkOpened(path)
	if err := x.Refresh(path); err != nil {
		return nil, err
	}
	l := &look{snap: x.Snapshot(path), cfg: cfg}
	if l.snap == nil {
		return nil, fmt.Errorf("%s: %w", path, index.ErrNotTranscript)
	}
	if p := x.Parsed(path); p != nil {
		l.t, l.parts, l.partsBy = p.Transcript, p.Parts, p.CounterID
		return l, nil
	}
	if l.t, err = readTranscript(path); err != nil {
		return nil, err
	}
	return l, nil
}

// statusIndex is the index context_status reads sessions through, made on
// the first call. A session whose settings changed since the last call is
// read again whole under the new ones.
func (s *Server) statusIndex(path string, cfg *config.Config) (*index.Index, error) {
	key, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	forget := false
	defer func() {
		x := s.status
		s.mu.Unlock()
		if forget {
			x.Forget(path) // outside the lock: the index asks Settings
		}
	}()
	if s.status == nil {
		s.statusSettings = map[string]statusSettings{}
		x, err := index.New(index.Options{
			Settings: func(path string) *index.Settings {
				s.mu.Lock()
				defer s.mu.Unlock()
				if set, ok := s.statusSettings[path]; ok {
					return set.settings
				}
				return index.DefaultSettings()
			},
			Threshold: s.threshold,
		})
		if err != nil {
			return nil, err
		}
		s.status = x
	}
	if prev, ok := s.statusSettings[path]; !ok || prev.key != string(key) {
		forget = ok
		s.statusSettings[path] = statusSettings{key: string(key), settings: index.NewSettings(cfg)}
	}
	return s.status, nil
}

// statusSettings are a session's settings, and the configuration they
// were made from.
type statusSettings struct {
	key      string
	settings *index.Settings
}

// threshold is where the session's agent compacts by itself, read from
// its settings and the environment it runs with, as the gauge's other
// views read it; nil when compactd does not read that agent's settings.
func (s *Server) threshold(path string, t *transcript.Transcript, r gauge.Resolved) *gauge.AutoCompact {
	a := agents.ByFormat(t.Format)
	if a == nil {
		return nil
	}
	cwd := a.SessionCwd(s.Env, path, t.Meta.Cwd)
	if cwd == "" {
		cwd = s.Cwd
	}
	args := s.Args
	if !agents.Runs(args, a.Command) {
		// Not started by the session's agent: the command line of the
		// agent running in the session's folder, where the OS tells.
		envs := &agents.ProcessEnvs{Commands: []string{a.Command}}
		envs.Wait(time.Second)
		args, _ = envs.Args(a.Command, cwd)
	}
	return a.AutoCompact(agents.Query{Env: s.Env, Getenv: s.Getenv, Args: args, Cwd: cwd, Model: r.Model, Window: r.ContextWindow, WindowSource: r.WindowSource, AgentVersion: t.Meta.AgentVersion})
}

// settleWait bounds how long context_status waits for the agent to write
// the call it is answering.
const settleWait = 2 * time.Second

// settle returns the session once it ends with the call of context_status
// being answered: some agents (Qwen Code) write their records after the
// tool has started, and the gauge is meant as of the call. It waits on the
// file's change events, at most settleWait, then takes what is there.
func (s *Server) settle(ctx context.Context, sess *session, l *look) *look {
	if callsStatus(l.t) {
		return l
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return l
	}
	defer w.Close()
	watched := sess.path
	if sess.db != "" {
		watched = sess.db // the agent writes its database (and its -wal)
	}
	if err := w.Add(filepath.Dir(watched)); err != nil {
		return l
	}
	// Written between the first read and the watch: read once more.
	if again, err := s.look(ctx, sess); err == nil {
		if l = again; callsStatus(l.t) {
			return l
		}
	}
	timeout := time.NewTimer(settleWait)
	defer timeout.Stop()
	for {
		select {
		case <-ctx.Done():
			return l
		case <-timeout.C:
			return l
		case ev, ok := <-w.Events:
			if !ok {
				return l
			}
			if !strings.HasPrefix(filepath.Clean(ev.Name), filepath.Clean(watched)) || !ev.Has(fsnotify.Write|fsnotify.Create) {
				continue
			}
			if again, err := s.look(ctx, sess); err == nil {
				if l = again; callsStatus(l.t) {
					return l
				}
			}
		case <-w.Errors:
			return l
		}
	}
}

// callsStatus reports whether the session's last message is a call of
// context_status (whatever the agent names compactd's tool).
func callsStatus(t *transcript.Transcript) bool {
	if len(t.Messages) == 0 {
		return false
	}
	m := &t.Messages[len(t.Messages)-1]
	for _, p := range m.Parts {
		if p.Kind == transcript.PartToolCall && strings.HasSuffix(p.ToolName, "context_status") {
			return true
		}
	}
	return false
}

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }

// readTranscript reads and parses one session file.
func readTranscript(path string) (*transcript.Transcript, error) {
	data, codec, err := sourcefile.ReadTranscript(path)
	if err != nil {
		return nil, err
	}
	t, err := codec.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s as %s: %w", path, codec.Format(), err)
	}
	return t, nil
}

// A session is the agent's session a tool call is about.
type session struct {
	path  string
	agent *agents.Agent
	// db and id name a session kept in an agent's database (opencode):
	// path is its rendering, made again on each read.
	db, id string
	env    agents.Env
}

// findSession is the session a request names (an id or a path), else the
// agent's session of the working folder written last: the one the agent
// is running, which writes its tool call before calling the tool.
func (s *Server) findSession(ctx context.Context, named string) (*session, error) {
	if named == "" {
		named = s.SessionHint
	}
	if named != "" && filepath.IsAbs(named) {
		if _, err := os.Stat(named); err == nil {
			return &session{path: named, agent: agentOf(named), env: s.Env}, nil
		}
	}
	var best *session
	var bestMod time.Time
	var looked []string
	list := agents.All()
	if s.Agent != nil {
		list = []*agents.Agent{s.Agent}
	}
	folders := []string{s.Cwd}
	for _, a := range list {
		for _, root := range a.Roots(s.Env, folders) {
			if root.Database != "" {
				looked = append(looked, root.Database)
				if sess := s.databaseSession(ctx, a, root.Database, named); sess != nil {
					if fi, err := os.Stat(root.Database); err == nil && (best == nil || !fi.ModTime().Before(bestMod)) {
						best, bestMod = sess, fi.ModTime()
					}
				}
				continue
			}
			looked = append(looked, root.Dir)
			filepath.WalkDir(root.Dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return nil
				}
				if a.Session != nil && !a.Session(p, folders) {
					return nil
				}
				if named != "" && !namesSession(p, named) {
					return nil
				}
				fi, err := d.Info()
				if err != nil || !fi.Mode().IsRegular() {
					return nil
				}
				if best == nil || fi.ModTime().After(bestMod) {
					best, bestMod = &session{path: p, agent: a, env: s.Env}, fi.ModTime()
				}
				return nil
			})
		}
	}
	if best == nil {
		who := "any agent"
		if s.Agent != nil {
			who = s.Agent.Name
		}
		if named != "" {
			return nil, fmt.Errorf("no session %q of %s in %s (looked in %s)", named, who, s.Cwd, strings.Join(looked, ", "))
		}
		return nil, fmt.Errorf("no session of %s in %s yet (looked in %s)", who, s.Cwd, strings.Join(looked, ", "))
	}
	return best, nil
}

// databaseSession is the session of the folder an agent's database holds
// (the newest, or the one named), rendered where the daemon renders it.
func (s *Server) databaseSession(ctx context.Context, a *agents.Agent, db, named string) *session {
	if _, err := os.Stat(db); err != nil {
		return nil
	}
	sessions, err := watch.DatabaseSessions(ctx, db)
	if err != nil {
		return nil
	}
	for _, ds := range sessions { // newest first
		if !agents.InFolders(ds.Directory, []string{s.Cwd}) || named != "" && ds.ID != named {
			continue
		}
		path, err := watch.RenderDatabaseSession(ctx, s.Env, db, ds.ID)
		if err != nil {
			return nil
		}
		return &session{path: path, agent: a, db: db, id: ds.ID, env: s.Env}
	}
	return nil
}

// namesSession reports whether a session file's name carries id (Gemini
// CLI names its files by the id's first 8 characters).
func namesSession(path, id string) bool {
	name := filepath.Base(path)
	if strings.Contains(name, id) {
		return true
	}
	return len(id) >= 8 && strings.Contains(name, "-"+id[:8]+".")
}

// agentOf is the agent whose format a file is in, nil if unknown.
func agentOf(path string) *agents.Agent {
	head, err := sourcefile.ReadHead(path, 64<<10)
	if err != nil {
		return nil
	}
	codec, err := format.Detect(sourcefile.PlainName(path), head)
	if err != nil {
		return nil
	}
	return agents.ByFormat(codec.Format())
}
