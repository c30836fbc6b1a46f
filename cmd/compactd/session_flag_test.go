package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// opencodeDB creates an opencode 1.18.33 database holding sessions of the
// given folders (id → folder), a few turns each.
func opencodeDB(t *testing.T, sessions map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema, err := os.ReadFile("../../daemon/agentdb/testdata/opencode-1.18.33-schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(schema)); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	jsonOf := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for id, dir := range sessions {
		exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated, model, permission)
			VALUES (?, 'global', 'brave-otter', ?, ?, '1.18.33', 1795464000000, 1795464000000, '{"id":"m","providerID":"p"}', '[]')`, id, dir, "Work in "+filepath.Base(dir))
		for i := range 6 {
			at := int64(1795464000000 + i*1000)
			u, a := fmt.Sprintf("msg_%s_u%d", id, i), fmt.Sprintf("msg_%s_a%d", id, i)
			exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, u, id, at, at, jsonOf(map[string]any{"role": "user", "time": map[string]any{"created": at}, "agent": "build", "model": map[string]any{"providerID": "p", "modelID": "m"}}))
			exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+u, u, id, at, at, jsonOf(map[string]any{"type": "text", "text": fmt.Sprintf("prompt %d: %s", i, strings.Repeat("please look at the parser again. ", 20))}))
			tokens := map[string]any{"total": 1000 + i, "input": 990, "output": 10, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}
			exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, a, id, at+1, at+1, jsonOf(map[string]any{"role": "assistant", "parentID": u, "modelID": "m", "providerID": "p", "finish": "stop", "tokens": tokens, "time": map[string]any{"created": at + 1}}))
			exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+a+"1", a, id, at+1, at+1, jsonOf(map[string]any{"type": "text", "text": fmt.Sprintf("reply %d: %s", i, strings.Repeat("the parser reads it twice. ", 20))}))
			exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+a+"2", a, id, at+1, at+1, jsonOf(map[string]any{"type": "step-finish", "reason": "stop", "tokens": tokens}))
		}
	}
	return path
}

// TestSessionOfADatabase is issue 23's item 8: `compactd compact
// opencode.db` run outside the session's project answered an error that
// listed nothing to choose from. The error now lists the database's
// sessions and the user names one with --session, in compact and gauge.
func TestSessionOfADatabase(t *testing.T) {
	envs := isolatedEnv(t)
	db := opencodeDB(t, map[string]string{"ses_alpha": "/home/dev/src/alpha", "ses_beta": "/home/dev/src/beta"})

	code, _, stderr := runCLI(t, envs, "compact", "--dry-run", db)
	if code == 0 || !strings.Contains(stderr, "--session") || !strings.Contains(stderr, "ses_alpha (in /home/dev/src/alpha: Work in alpha)") || !strings.Contains(stderr, "ses_beta") {
		t.Fatalf("compact %s from elsewhere: exit %d, want an error listing the sessions to name with --session:\n%s", db, code, stderr)
	}
	code, stdout, stderr := runCLI(t, envs, "compact", "--dry-run", "--json", "--session", "ses_beta", db)
	if code != 0 {
		t.Fatalf("compact --session ses_beta: exit %d: %s", code, stderr)
	}
	var res struct {
		Format       string `json:"format"`
		TokensBefore int    `json:"tokensBefore"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Format != "opencode" || res.TokensBefore == 0 {
		t.Fatalf("compact --session ses_beta: %v %s", err, stdout)
	}
	code, stdout, stderr = runCLI(t, envs, "gauge", "--json", "--session", "ses_alpha", db)
	var rows []struct {
		Path  string `json:"path"`
		Turns int    `json:"turns"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &rows) != nil || len(rows) != 1 || !strings.Contains(rows[0].Path, "ses_alpha") || rows[0].Turns != 6 {
		t.Fatalf("gauge --session ses_alpha: exit %d, %s %s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, envs, "compact", "--dry-run", "--session", "ses_gamma", db)
	if code == 0 || !strings.Contains(stderr, "no session ses_gamma") || !strings.Contains(stderr, "ses_alpha") {
		t.Fatalf("compact --session ses_gamma: exit %d, want an error listing the sessions:\n%s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	os.WriteFile(path, []byte("{}\n"), 0o644)
	if code, _, stderr = runCLI(t, envs, "gauge", "--session", "ses_alpha", path); code != 2 {
		t.Fatalf("--session on a file: exit %d, want a usage error: %s", code, stderr)
	}
}
