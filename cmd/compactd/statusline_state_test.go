package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
)

// statuslineRunner runs the status line as Claude Code does, with the
// environment of envs (its store, and so its states, under envs' folders).
func statuslineRunner(t *testing.T, envs map[string]string, transcript string, window int) func() string {
	t.Helper()
	payload := map[string]any{"hook_event_name": "Status", "transcript_path": transcript,
		"model": map[string]any{"id": "claude-sonnet-4-5", "display_name": "Sonnet"}}
	if window > 0 {
		payload["context_window"] = map[string]any{"context_window_size": window}
	}
	stdin, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	// The line, and every figure it is made of (the whole breakdown, the
	// cost, the gauge), which the line shows only in brief.
	return func() string {
		t.Helper()
		var out, errb bytes.Buffer
		e := &env{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return envs[k] }}
		var in statusInput
		if err := json.Unmarshal(stdin, &in); err != nil {
			t.Fatal(err)
		}
		f, err := statusFigures(e, in)
		if err != nil || errb.Len() > 0 {
			t.Fatalf("statusline: %v, stderr %q", err, errb.String())
		}
		figs, err := json.MarshalIndent(map[string]any{"gauge": f.gauge, "breakdown": f.breakdown, "cost": f.cost, "price": f.price,
			"lastResponse": f.lastResponse}, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return statusText(f, false) + "\n" + string(figs)
	}
}

// claudeRows is a Claude Code session as rows, built from sessiongen's.
func claudeRows(t *testing.T, seed uint64, turns int) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, Turns: turns})), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func jsonLines(t *testing.T, rows ...map[string]any) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, r := range rows {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStatuslineStateEqualsFromScratch: after every change to a session —
// appends of one line, of a turn, of half a line completed by the next,
// a compaction appended, a rewind to an older row, a tool result for an
// old call, another model, other settings, a rewrite in place, a
// truncation, another file moved over it — the status line run with the
// state its previous runs left prints what a first run prints (a fresh
// store, no state), and it keeps a state beside the store.
func TestStatuslineStateEqualsFromScratch(t *testing.T) {
	envs := isolatedEnv(t)
	dir := filepath.Join(envs["HOME"], ".claude", "projects", "-home-dev-src-app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "session.jsonl")
	rows := claudeRows(t, 7, 60)
	sessionID := rows[0]["sessionId"]
	if err := os.WriteFile(path, jsonLines(t, rows[:40]...), 0o600); err != nil {
		t.Fatal(err)
	}
	stateful := statuslineRunner(t, envs, path, 200_000)
	states := filepath.Join(filepath.Dir(envs["COMPACTD_STORE"]), "sessions")
	fresh := 0
	fromScratch := func() string {
		fresh++
		other := map[string]string{}
		for k, v := range envs {
			other[k] = v
		}
		// Another store, so no state: a first run.
		other["COMPACTD_STORE"] = filepath.Join(t.TempDir(), fmt.Sprint(fresh), "compactd.db")
		return statuslineRunner(t, other, path, 200_000)()
	}
	check := func(step string) {
		t.Helper()
		got, want := stateful(), fromScratch()
		if got != want {
			t.Fatalf("%s: with the state\n %q\nfrom scratch\n %q", step, got, want)
		}
		if entries, _ := os.ReadDir(states); len(entries) != 1 {
			t.Fatalf("%s: %d files in %s, want the session's state", step, len(entries), states)
		}
	}
	check("first run")
	check("no change")
	next := 40
	take := func(n int) []byte {
		b := jsonLines(t, rows[next:next+n]...)
		next += n
		return b
	}
	appendFile(t, path, take(1))
	check("one line")
	appendFile(t, path, take(6))
	check("a turn")
	half := take(1)
	appendFile(t, path, half[:len(half)/2])
	check("half a line")
	appendFile(t, path, half[len(half)/2:])
	check("the line completed")
	appendFile(t, path, take(5))
	check("more")

	// A tool result for a call made long ago (its name is no longer in
	// the state).
	var oldCall string
	for _, r := range rows[:20] {
		if m, ok := r["message"].(map[string]any); ok {
			if blocks, ok := m["content"].([]any); ok {
				for _, b := range blocks {
					if bm, ok := b.(map[string]any); ok && bm["type"] == "tool_use" {
						oldCall, _ = bm["id"].(string)
					}
				}
			}
		}
	}
	if oldCall == "" {
		t.Fatal("the generated session makes no tool call in its first rows")
	}
	last := rows[next-1]["uuid"]
	late := map[string]any{"type": "user", "uuid": "late-1", "parentUuid": last, "sessionId": sessionID, "isSidechain": false,
		"timestamp": "2026-11-20T10:01:30.000Z", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": oldCall, "content": "late output of an old call"}}}}
	appendFile(t, path, jsonLines(t, late))
	check("a result for an old call")
	appendFile(t, path, take(8))
	check("more after it")
	// Another model answers.
	opus := map[string]any{"type": "assistant", "uuid": "opus-1", "parentUuid": rows[next-1]["uuid"], "sessionId": sessionID, "isSidechain": false,
		"timestamp": "2026-11-20T10:02:00.000Z",
		"message": map[string]any{"id": "msg_opus_1", "role": "assistant", "model": "claude-opus-4-1", "type": "message",
			"content": []any{map[string]any{"type": "text", "text": "Opus here, looking at it."}},
			"usage":   map[string]any{"input_tokens": 20, "cache_read_input_tokens": 12000, "cache_creation_input_tokens": 100, "output_tokens": 60}}}
	appendFile(t, path, jsonLines(t, opus))
	check("another model")
	// A rewind: a prompt whose parent is an early row.
	rewind := map[string]any{"type": "user", "uuid": "rw-1", "parentUuid": rows[20]["uuid"], "sessionId": sessionID, "isSidechain": false,
		"timestamp": "2026-11-20T10:03:00.000Z", "message": map[string]any{"role": "user", "content": "Let us go back and try the other way."}}
	appendFile(t, path, jsonLines(t, rewind))
	check("a rewind")

	boundary := map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"uuid": "bnd-1", "parentUuid": nil, "logicalParentUuid": "rw-1", "sessionId": sessionID, "isSidechain": false,
		"timestamp": "2026-11-20T10:05:00.000Z", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000}}
	summary := map[string]any{"type": "user", "uuid": "sum-1", "parentUuid": "bnd-1", "sessionId": sessionID, "isSidechain": false,
		"isCompactSummary": true, "timestamp": "2026-11-20T10:05:01.000Z",
		"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation. Summary: the parser work."}}
	appendFile(t, path, jsonLines(t, boundary, summary))
	check("a compaction appended")
	answer := map[string]any{"type": "assistant", "uuid": "ans-1", "parentUuid": "sum-1", "sessionId": sessionID, "isSidechain": false,
		"timestamp": "2026-11-20T10:05:05.000Z",
		"message": map[string]any{"id": "msg_after_1", "role": "assistant", "model": "claude-sonnet-4-5", "type": "message",
			"content": []any{map[string]any{"type": "text", "text": "Carrying on with the parser."}},
			"usage":   map[string]any{"input_tokens": 12, "cache_read_input_tokens": 9000, "cache_creation_input_tokens": 300, "output_tokens": 40}}}
	appendFile(t, path, jsonLines(t, answer))
	check("an answer after the compaction")
	// Other settings: prices of the workspace's own.
	toml := "[prices.claude-opus-4-1]\ninput = 1.0\noutput = 2.0\n"
	if err := os.WriteFile(filepath.Join(dir, ".compactd.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	check("other settings")
	if err := os.Remove(filepath.Join(dir, ".compactd.toml")); err != nil {
		t.Fatal(err)
	}
	check("settings back")

	// A rewrite in place, same length: one byte in the middle changes...
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rewritten := bytes.Replace(data, []byte("Carrying on with the parser."), []byte("Carrying on with the lexer."), 1)
	if bytes.Equal(rewritten, data) {
		t.Fatal("nothing to rewrite")
	}
	rewriteInPlace(t, path, rewritten)
	check("a rewrite in place")
	// ...a truncation to the first rows...
	rewriteInPlace(t, path, jsonLines(t, rows[:30]...))
	check("a truncation")
	appendFile(t, path, jsonLines(t, rows[30:45]...))
	check("appends after the truncation")
	// ...and another file moved over the path.
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, jsonLines(t, claudeRows(t, 9, 20)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	check("another file moved over it")
}

// rewriteInPlace replaces path's content keeping the file (its inode).
func rewriteInPlace(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestGaugeStateEqualsFromScratch: compactd gauge keeps the session's
// state too; after appends, a compaction, a rewrite and a truncation its
// rows equal a first gauge's (a fresh store) and what the gauge printed
// before it kept states (a whole read counted by measure), every usage
// point of a long conversation measured for the estimate error.
func TestGaugeStateEqualsFromScratch(t *testing.T) {
	envs := isolatedEnv(t)
	dir := filepath.Join(envs["HOME"], ".claude", "projects", "-home-dev-src-app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "session.jsonl")
	rows := claudeRows(t, 12, 120)
	if err := os.WriteFile(path, jsonLines(t, rows[:len(rows)*2/3]...), 0o600); err != nil {
		t.Fatal(err)
	}
	gaugeJSON := func(vars map[string]string) string {
		t.Helper()
		var out, errb bytes.Buffer
		e := &env{stdin: bytes.NewReader(nil), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }}
		if code := run(context.Background(), e, []string{"gauge", "--json", path}); code != 0 || errb.Len() > 0 {
			t.Fatalf("gauge: exit %d, stderr %q", code, errb.String())
		}
		return out.String()
	}
	fresh := 0
	check := func(step string) {
		t.Helper()
		got := gaugeJSON(envs)
		fresh++
		other := map[string]string{}
		for k, v := range envs {
			other[k] = v
		}
		other["COMPACTD_STORE"] = filepath.Join(t.TempDir(), fmt.Sprint(fresh), "compactd.db")
		if want := gaugeJSON(other); got != want {
			t.Fatalf("%s: with the state\n%s\nfrom scratch\n%s", step, got, want)
		}
		// What measure gives on the whole file, as the gauge did.
		tr, err := readTranscript(path)
		if err != nil {
			t.Fatal(err)
		}
		e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string { return envs[k] }}
		cfg := loadConfig(e, path)
		f, err := measure(context.Background(), tr, measureOptions{
			gauge:    gauge.Options{Registry: tokens.NewRegistry()},
			counters: tokens.NewCounterSet(), prices: cfg.PriceTable(), keepLast: cfg.CompactOptions(0, config.Overrides{}).KeepLastTurns(),
			agent: &agentSettings{env: agents.EnvFromOS(e.getenv), getenv: e.getenv, running: true}, path: path,
		})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := writeJSON(&b, []gaugeRow{rowOf(path, f)}); err != nil {
			t.Fatal(err)
		}
		if b.String() != got {
			t.Fatalf("%s: with the state\n%s\na whole read (measure)\n%s", step, got, b.String())
		}
	}
	var g []gaugeRow
	check("first gauge")
	if err := json.Unmarshal([]byte(gaugeJSON(envs)), &g); err != nil || len(g) != 1 || g[0].Cost == nil || g[0].Cost.Responses <= 48 {
		t.Fatalf("the session reports usage %+v times (err %v); the test needs more than the 48 points the live gauge keeps", g, err)
	}
	next := len(rows) * 2 / 3
	appendFile(t, path, jsonLines(t, rows[next:next+7]...))
	check("a turn appended")
	half := jsonLines(t, rows[next+7])
	appendFile(t, path, half[:len(half)/3])
	check("a third of a line")
	appendFile(t, path, half[len(half)/3:])
	check("the line completed")
	appendFile(t, path, jsonLines(t, rows[next+8:]...))
	check("the rest")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, path, data[:len(data)/2+bytes.IndexByte(data[len(data)/2:], '\n')+1])
	check("a truncation")
	if entries, _ := os.ReadDir(filepath.Join(filepath.Dir(envs["COMPACTD_STORE"]), "sessions")); len(entries) != 1 {
		t.Fatalf("%d states beside the store, want the session's", len(entries))
	}
}
