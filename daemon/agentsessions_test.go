package daemon

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/copilotchat"
	"github.com/compactd/compactd/daemon/agents/opencode"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
)

// openAgentDB creates an opencode database under home as the agent does
// (WAL, its schema) and returns the agent's own connection.
func openAgentDB(t *testing.T, home, agent string) *sql.DB {
	t.Helper()
	dir := filepath.Join(home, ".local", "share", agent)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(0)")
	w, err := sql.Open("sqlite", "file:"+filepath.Join(dir, agent+".db")+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	schema, err := os.ReadFile("agentdb/testdata/opencode-1.18.33-schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(string(schema)); err != nil {
		t.Fatal(err)
	}
	return w
}

type execer interface {
	Exec(string, ...any) (sql.Result, error)
}

func addSession(t *testing.T, w execer, id, dir string) {
	t.Helper()
	if _, err := w.Exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
		VALUES (?, 'global', 'calm-otter', ?, 'Fix Add', '1.18.33', 1795464000000, 1795464000000)`, id, dir); err != nil {
		t.Fatal(err)
	}
}

// addTurn adds a prompt and a reply that reports total tokens, in one
// commit when w is the database itself: the daemon, which renders whatever
// was committed when it looks, never sees half a turn (a reply without its
// parts carries the tokens the tests wait for, and the later parts made
// the next rendering differ).
func addTurn(t *testing.T, w execer, session string, n, total int) {
	t.Helper()
	if db, ok := w.(*sql.DB); ok {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		addTurn(t, tx, session, n, total)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return
	}
	at := 1795464000000 + n*1000
	u, a := fmt.Sprintf("msg_%s_u%03d", session, n), fmt.Sprintf("msg_%s_a%03d", session, n)
	tokens := fmt.Sprintf(`{"total":%d,"input":%d,"output":10,"reasoning":0,"cache":{"read":0,"write":0}}`, total, total-10)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, []any{u, session, at, at, `{"role":"user","time":{"created":` + fmt.Sprint(at) + `},"agent":"build","model":{"providerID":"p","modelID":"claude-sonnet-4-5"}}`}},
		{`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, []any{"prt_" + u, u, session, at, at, fmt.Sprintf(`{"type":"text","text":"prompt %d"}`, n)}},
		{`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, []any{a, session, at + 1, at + 1, `{"role":"assistant","parentID":"` + u + `","modelID":"claude-sonnet-4-5","providerID":"p","finish":"stop","tokens":` + tokens + `,"time":{"created":` + fmt.Sprint(at+1) + `}}`}},
		{`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, []any{"prt_" + a + "_1", a, session, at + 1, at + 1, fmt.Sprintf(`{"type":"text","text":"reply %d"}`, n)}},
		{`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, []any{"prt_" + a + "_2", a, session, at + 1, at + 1, `{"type":"step-finish","reason":"stop","tokens":` + tokens + `}`}},
	} {
		if _, err := w.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
}

func newAgentDaemon(t *testing.T, ws, home string, settings map[string]any) (*Daemon, *recorder) {
	t.Helper()
	return startDaemon(t, Options{Folders: []string{ws}, Env: agents.Env{Home: home}, Config: config.Layers{Client: settingsJSON(t, settings)}})
}

// TestDatabaseSessionsOfTheWorkspace: the sessions opencode and Kilo keep
// in their databases for this workspace get a gauge (the last step's
// reported tokens), named by their rendering under compactd's sessions
// folder; sessions of other folders do not. A commit the agent makes is
// seen through the -wal.
func TestDatabaseSessionsOfTheWorkspace(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	oc := openAgentDB(t, home, "opencode")
	addSession(t, oc, "ses_mine", ws)
	addTurn(t, oc, "ses_mine", 1, 5000)
	addSession(t, oc, "ses_other", "/elsewhere")
	addTurn(t, oc, "ses_other", 1, 7000)
	kilo := openAgentDB(t, home, "kilo")
	addSession(t, kilo, "ses_kilo", filepath.Join(ws, "sub"))
	addTurn(t, kilo, "ses_kilo", 1, 9000)

	d, rec := newAgentDaemon(t, ws, home, nil)
	sessions := filepath.Join(home, ".local", "state", "compactd", "sessions")
	mine := filepath.Join(sessions, "opencode", "ses_mine.json")
	s := d.Snapshot(mine)
	if s == nil || s.Format != "opencode" || s.Tokens != 5000 || s.Source != "reported+estimate" {
		t.Fatalf("opencode session snapshot %+v", s)
	}
	if k := d.Snapshot(filepath.Join(sessions, "kilo", "ses_kilo.json")); k == nil || k.Format != "kilo" || k.Tokens != 9000 {
		t.Fatalf("kilo session snapshot %+v", k)
	}
	if _, err := os.Stat(filepath.Join(sessions, "opencode", "ses_other.json")); err == nil {
		t.Fatal("a session of another folder was rendered")
	}
	if !d.Allowed(mine) {
		t.Fatal("commands may not act on a rendered session")
	}

	// The agent answers again: the commit reaches the gauge.
	addTurn(t, oc, "ses_mine", 2, 6200)
	rec.wait(t, func(ev index.Event) bool { return ev.Path == mine && ev.Snapshot != nil && ev.Snapshot.Tokens == 6200 })

	// The agent holds a write transaction open while compactd reads: the
	// read neither waits nor fails, and sees the last commit.
	tx, err := oc.Begin()
	if err != nil {
		t.Fatal(err)
	}
	addTurn(t, tx, "ses_mine", 3, 9999)
	changed, err := d.watch.RenderAgain(t.Context(), opencode.Agent)
	// The read succeeded: the agent's lock is held until the commit below,
	// so a read that waited for it would have failed at the busy timeout
	// instead.
	if err != nil {
		t.Fatalf("the read beside the agent's open transaction failed: %v", err)
	}
	rendered, err := os.ReadFile(mine)
	if len(changed) != 0 || err != nil || !strings.Contains(string(rendered), "prompt 2") || strings.Contains(string(rendered), "prompt 3") {
		t.Fatalf("the read beside the open transaction rendered %v (err %v):\n%s", changed, err, rendered)
	}
	if _, err := d.Refresh(mine); err != nil {
		t.Fatal(err)
	}
	if s := d.Snapshot(mine); s.Tokens != 6200 {
		t.Fatalf("read an uncommitted turn: %d tokens", s.Tokens)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("the agent's commit failed after compactd's read: %v", err)
	}
	rec.wait(t, func(ev index.Event) bool { return ev.Path == mine && ev.Snapshot != nil && ev.Snapshot.Tokens == 9999 })

	// A deleted session's rendering goes away.
	if _, err := oc.Exec(`DELETE FROM part WHERE session_id = 'ses_mine'`); err != nil {
		t.Fatal(err)
	}
	oc.Exec(`DELETE FROM message WHERE session_id = 'ses_mine'`)
	oc.Exec(`DELETE FROM session WHERE id = 'ses_mine'`)
	rec.wait(t, func(ev index.Event) bool { return ev.Path == mine && ev.Snapshot == nil })
}

// TestDatabaseSwitchOff: [watch] opencode = false renders nothing.
func TestDatabaseSwitchOff(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	oc := openAgentDB(t, home, "opencode")
	addSession(t, oc, "ses_mine", ws)
	addTurn(t, oc, "ses_mine", 1, 5000)
	d, _ := newAgentDaemon(t, ws, home, map[string]any{"watch": map[string]any{"opencode": false}})
	if len(d.Snapshots()) != 0 {
		t.Fatalf("snapshots with opencode switched off: %d", len(d.Snapshots()))
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "compactd", "sessions", "opencode")); err == nil {
		t.Fatal("rendered sessions with opencode switched off")
	}
}

// TestQwenSessionsOfTheWorkspace: Qwen Code's chats folder for the
// workspace is found, read as Qwen (not Claude Code), and its gauge is
// the usage Qwen recorded.
func TestQwenSessionsOfTheWorkspace(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	dir := filepath.Join(home, ".qwen", "projects", agents.Slug(ws), "chats")
	os.MkdirAll(dir, 0o755)
	src, err := os.ReadFile("../compaction/format/qwen/testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "3c9e2b7a-8f41-4d6c-a1e5-7b0d9f2c4e18.jsonl")
	os.WriteFile(path, src, 0o644)
	d, _ := newAgentDaemon(t, ws, home, nil)
	s := d.Snapshot(path)
	if s == nil || s.Format != "qwen-code" || s.Tokens != 18900 {
		t.Fatalf("qwen snapshot %+v", s)
	}
}

func copyFixture(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEditorAndCLIAgentsOfTheWorkspace: Copilot CLI sessions started in
// the workspace, Cursor's agent transcripts of its project and VS Code
// Copilot Chat sessions of its workspaceStorage entry are found; those of
// other folders are not.
func TestEditorAndCLIAgentsOfTheWorkspace(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	// Copilot CLI: the fixture's session starts in /home/ada/calc; write
	// one that starts in the workspace, keep the other as a stranger.
	events, err := os.ReadFile("../compaction/format/copilotcli/testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	mineCLI := filepath.Join(home, ".copilot", "session-state", "s-mine", "events.jsonl")
	os.MkdirAll(filepath.Dir(mineCLI), 0o755)
	wsJSON, _ := json.Marshal(ws)
	os.WriteFile(mineCLI, []byte(strings.ReplaceAll(string(events), `"/home/ada/calc"`, string(wsJSON))), 0o644)
	otherCLI := filepath.Join(home, ".copilot", "session-state", "s-other", "events.jsonl")
	copyFixture(t, "../compaction/format/copilotcli/testdata/events.jsonl", otherCLI)

	cursor := filepath.Join(home, ".cursor", "projects", strings.TrimLeft(agents.Slug(ws), "-"), "agent-transcripts", "c1", "c1.jsonl")
	copyFixture(t, "../compaction/format/cursor/testdata/transcript.jsonl", cursor)
	otherCursor := filepath.Join(home, ".cursor", "projects", "home-ada-other", "agent-transcripts", "c2", "c2.jsonl")
	copyFixture(t, "../compaction/format/cursor/testdata/transcript.jsonl", otherCursor)

	storage := copilotchat.WorkspaceStorage(agents.Env{Home: home})[0] // VS Code's, where it is on this OS
	wsURI := (&url.URL{Scheme: "file", Path: filepath.ToSlash(ws)}).String()
	if runtime.GOOS == "windows" {
		wsURI = (&url.URL{Scheme: "file", Path: "/" + filepath.ToSlash(ws)}).String() // file:///C:/Users/…
	}
	chat := filepath.Join(storage, "0a1b2c", "chatSessions", "7a3c1e52.jsonl")
	copyFixture(t, "../compaction/format/copilotchat/testdata/session.jsonl", chat)
	os.WriteFile(filepath.Join(storage, "0a1b2c", "workspace.json"), []byte(`{"folder":"`+wsURI+`"}`), 0o644)
	otherChat := filepath.Join(storage, "9f8e7d", "chatSessions", "other.jsonl")
	copyFixture(t, "../compaction/format/copilotchat/testdata/session.jsonl", otherChat)
	os.WriteFile(filepath.Join(storage, "9f8e7d", "workspace.json"), []byte(`{"folder":"file:///home/ada/other"}`), 0o644)

	d, rec := newAgentDaemon(t, ws, home, nil)
	for path, want := range map[string]struct {
		format string
		tokens int
	}{mineCLI: {"copilot-cli", 12480}, chat: {"copilot-chat", 12540}} {
		s := d.Snapshot(path)
		if s == nil || string(s.Format) != want.format || s.Tokens != want.tokens {
			t.Errorf("%s: snapshot %+v", path, s)
		}
	}
	if s := d.Snapshot(cursor); s == nil || s.Format != "cursor-agent" || s.Source != "estimate" {
		t.Errorf("cursor snapshot %+v", s)
	}
	for _, p := range []string{otherCLI, otherCursor, otherChat} {
		if d.Snapshot(p) != nil {
			t.Errorf("%s of another folder is shown", p)
		}
	}
	if !d.Allowed(chat) || !d.Allowed(mineCLI) || !d.Allowed(cursor) {
		t.Error("commands may not act on the agents' sessions of the workspace")
	}
	// Copilot Chat appends an operation: the gauge follows.
	f, _ := os.OpenFile(chat, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":1,"k":["requests",1,"result","metadata","promptTokens"],"v":13000}` + "\n")
	f.Close()
	rec.wait(t, func(ev index.Event) bool { return ev.Path == chat && ev.Snapshot != nil && ev.Snapshot.Tokens == 13040 })
}
