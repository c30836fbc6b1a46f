package lsp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/index"
)

// TestMessagesGolden pins the JSON of the server's own notifications and
// requests as the client receives them (testdata/notifications and
// testdata/requests, <method>.json with the "compactd/" left out; -update
// rewrites them): the gauge of a 24k-token Claude Code session once the
// savings of every strategy are in, the agent's compaction announced when
// a session's second boundary is appended, then every gauge and the
// context view of the first session with its dry run. The temporary
// folders, times, hashes and ids are replaced by placeholders, as the
// commands' goldens are. compactd/health and compactd/stats say where this
// machine's folders are and what the server counted so far: typed, not
// pinned.
func TestMessagesGolden(t *testing.T) {
	home := testEnv(t)
	ws := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "claude-two-compact-boundaries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	boundary := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"compact_boundary"`)) {
			boundary = i
		}
	}
	if boundary < 0 {
		t.Fatal("the fixture holds no compaction")
	}
	path := filepath.Join(ws, "8e7d6c5b-4a39-4281-9f0e-1d2c3b4a5968.jsonl")
	u := pathURI(path)
	session, err := os.ReadFile(filepath.Join("testdata", "claude-2.1.330-24k.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sessionPath := filepath.Join(ws, "claude-2.1.330-24k.jsonl")
	if err := os.WriteFile(sessionPath, session, 0o644); err != nil {
		t.Fatal(err)
	}
	su := pathURI(sessionPath)
	now := func() time.Time { return time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC) }
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t), Now: now,
		Savings: index.StrategySavings(tokens.NewCounterSet()), SavingsDelay: time.Millisecond}})
	caps := map[string]any{"experimental": map[string]any{"compactd": map[string]any{"agentCompaction": true}}}
	var res protocol.InitializeResult
	if err := c.call(protocol.MethodInitialize, map[string]any{"processId": os.Getpid(), "rootUri": pathURI(ws),
		"workspaceFolders": []map[string]string{{"uri": string(pathURI(ws)), "name": "ws"}}, "capabilities": caps}, &res); err != nil {
		t.Fatal(err)
	}
	c.notify(protocol.MethodInitialized, map[string]any{})
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: su, Version: 1}})
	golden := func(dir, method string, raw json.RawMessage) {
		t.Helper()
		var out bytes.Buffer
		if err := json.Indent(&out, normalize(raw, ws, home), "", "  "); err != nil {
			t.Fatal(err)
		}
		out.WriteByte('\n')
		formattest.Golden(t, filepath.Join(dir, messageFile(method)), out.Bytes())
	}

	// The gauge once the savings of every strategy are in.
	settled := func(u protocol.DocumentURI) func(raw json.RawMessage) bool {
		return func(raw json.RawMessage) bool {
			var g Gauge
			return json.Unmarshal(raw, &g) == nil && g.URI == u && !g.SavingsPending && len(g.Savings) > 0 && g.Breakdown != nil
		}
	}
	raw, _ := c.waitNote(0, methodGauge, settled(su), 60*time.Second)
	golden("notifications", methodGauge, raw)
	// The second session comes after, so that which one is active (the
	// last appended to) does not depend on the order of the scan.
	from := c.noteCount()
	if err := os.WriteFile(path, bytes.Join(lines[:boundary], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitNote(from, methodGauge, settled(u), 60*time.Second)
	from = c.noteCount()

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(bytes.Join(lines[boundary:], nil)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	raw, _ = c.waitNote(from, methodAgentCompaction, nil, 30*time.Second)
	golden("notifications", methodAgentCompaction, raw)
	c.waitNote(from, methodGauge, settled(u), 60*time.Second)

	request := func(method string, params any) {
		t.Helper()
		var raw json.RawMessage
		if err := c.call(method, params, &raw); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		golden("requests", method, raw)
	}
	request(methodGauges, map[string]any{})
	request(methodContext, ContextParams{URI: su, DryRun: true})
}

// messageFile is the golden of a method: "compactd/gauge" → "gauge.json".
func messageFile(method string) string {
	return filepath.Base(method) + ".json"
}
