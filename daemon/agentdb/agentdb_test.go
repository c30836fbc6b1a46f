package agentdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/opencode"
	"github.com/compactd/compactd/compaction/transcript"
)

// agentDB creates an opencode database as the agent does (WAL mode, the
// agent's schema) and returns a read-write connection that plays the
// agent.
func agentDB(t *testing.T) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "opencode.db")
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(0)")
	w, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	schema, err := os.ReadFile("testdata/opencode-1.18.33-schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(string(schema)); err != nil {
		t.Fatal(err)
	}
	return path, w
}

func insertSession(t *testing.T, w interface {
	Exec(string, ...any) (sql.Result, error)
}, id, dir string, turns int) {
	t.Helper()
	must := func(_ sql.Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated, model, permission)
		VALUES (?, 'global', 'brave-otter', ?, 'Fix Add', '1.18.33', 1795464000000, 1795464000000, '{"id":"m","providerID":"p"}', '[]')`, id, dir))
	for i := range turns {
		base := int64(1795464000000 + i*1000)
		u, a := id+"u"+string(rune('a'+i)), id+"a"+string(rune('a'+i))
		must(w.Exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, "msg_"+u, id, base, base, `{"role":"user","time":{"created":`+itoa(base)+`},"agent":"build","model":{"providerID":"p","modelID":"m"}}`))
		must(w.Exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+u, "msg_"+u, id, base, base, `{"type":"text","text":"prompt `+itoa(int64(i))+`"}`))
		must(w.Exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, "msg_"+a, id, base+1, base+1, `{"role":"assistant","parentID":"msg_`+u+`","modelID":"m","providerID":"p","finish":"stop","tokens":{"total":`+itoa(1000+int64(i))+`,"input":990,"output":10,"reasoning":0,"cache":{"read":0,"write":0}},"time":{"created":`+itoa(base+1)+`}}`))
		must(w.Exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+a+"1", "msg_"+a, id, base+1, base+1, `{"type":"text","text":"reply `+itoa(int64(i))+`"}`))
		must(w.Exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+a+"2", "msg_"+a, id, base+1, base+1, `{"type":"step-finish","reason":"stop","tokens":{"total":`+itoa(1000+int64(i))+`,"input":990,"output":10,"reasoning":0,"cache":{"read":0,"write":0}}}`))
	}
}

// The folders sessions started in, as the agent writes them on this OS
// (opencode records the native path).
var (
	calcDir  = filepath.Join(string(filepath.Separator)+"home", "ada", "calc")
	otherDir = filepath.Join(string(filepath.Separator)+"home", "ada", "other")
)

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestExportReadsAsAnOpencodeSession(t *testing.T) {
	path, w := agentDB(t)
	insertSession(t, w, "ses_1", calcDir, 3)
	insertSession(t, w, "ses_2", otherDir, 1)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ss, err := db.Sessions(t.Context(), []string{calcDir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].ID != "ses_1" || ss[0].Directory != calcDir {
		t.Fatalf("sessions in the workspace: %+v", ss)
	}
	out, err := db.Export(t.Context(), "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	codec, _ := formatCodec()
	tr, err := codec.Parse(out)
	if err != nil {
		t.Fatalf("export does not parse: %v\n%s", err, out)
	}
	if len(tr.Messages) != 6 || tr.Meta.SessionID != "ses_1" || tr.Meta.Cwd != calcDir || tr.Skipped != 0 {
		t.Fatalf("parsed %d messages, meta %+v, skipped %d", len(tr.Messages), tr.Meta, tr.Skipped)
	}
	if u := tr.Messages[5].Usage; u == nil || u.ContextTokens() != 1002 {
		t.Fatalf("last usage %+v", u)
	}
	if _, err := db.Export(t.Context(), "ses_gone"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("missing session: %v", err)
	}
}

func formatCodec() (opencode.Codec, bool) {
	return opencode.Codec{Agent: transcript.FormatOpenCode}, true
}

// TestReadsBesideAnOpenWriteTransaction: the agent holds a write
// transaction open (its rows not committed yet) while compactd reads; the
// read neither waits nor fails, and sees the last commit. Then compactd
// holds a read open while the agent commits: the agent is not blocked.
func TestReadsBesideAnOpenWriteTransaction(t *testing.T) {
	path, w := agentDB(t)
	insertSession(t, w, "ses_1", calcDir, 2)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The agent's write lock is held from here until the commit below, so
	// a read that waited for it could only end in SQLITE_BUSY after the
	// busy timeout: reads that succeed did not wait.
	insertSession(t, tx, "ses_2", calcDir, 1)
	ss, err := db.Sessions(ctx, nil)
	if err != nil {
		t.Fatalf("read beside an open write transaction: %v", err)
	}
	out, err := db.Export(ctx, "ses_1")
	if err != nil {
		t.Fatalf("export beside an open write transaction: %v", err)
	}
	if len(ss) != 1 || !strings.Contains(string(out), "reply 1") {
		t.Fatalf("read saw uncommitted rows or missed committed ones: %+v", ss)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if ss, _ = db.Sessions(ctx, nil); len(ss) != 2 {
		t.Fatalf("after the commit: %+v", ss)
	}

	// compactd's read transaction open while the agent writes (busy
	// timeout 0: any wait would fail the write).
	rtx, err := db.read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := rtx.QueryRow(`SELECT count(*) FROM part`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	insertSession(t, w, "ses_3", calcDir, 1)
	rtx.Rollback()

	// A write through compactd's connection is refused: it is read-only.
	if _, err := db.db.Exec(`DELETE FROM part`); err == nil {
		t.Fatal("the read-only connection wrote into the agent's database")
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "missing.db")); err == nil {
		t.Fatal("a missing database opened")
	}
	bad := filepath.Join(t.TempDir(), "opencode.db")
	os.WriteFile(bad, []byte("not a database at all, just text"), 0o644)
	db, err := Open(bad)
	if err == nil {
		_, err = db.Sessions(t.Context(), nil)
		db.Close()
	}
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a text file read as a database: %v", err)
	}
}
