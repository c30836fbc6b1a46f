package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/claude"
	"github.com/compactd/compactd/daemon/agents/codex"
	"github.com/compactd/compactd/daemon/index"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon"
)

func writeSession(t *testing.T, path, cwd string, turns int) []byte {
	t.Helper()
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 7, Turns: turns, Cwd: cwd})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

func appendTo(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

func rpcCode(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestLifecycle(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	c := startServer(t, Options{})

	err := c.call(protocol.MethodTextDocumentHover, map[string]any{}, nil)
	if rpcCode(err) != jsonrpc2.ServerNotInitialized {
		t.Fatalf("hover before initialize: got %v, want ServerNotInitialized (-32002)", err)
	}
	res := c.initialize(ws, nil)
	caps := res.Capabilities
	if caps.HoverProvider != true || caps.CodeLensProvider == nil || caps.ExecuteCommandProvider == nil {
		t.Fatalf("capabilities miss hover/codeLens/executeCommand: %+v", caps)
	}
	if got := strings.Join(caps.ExecuteCommandProvider.Commands, ","); got != strings.Join(commandNames(), ",") {
		t.Fatalf("commands = %s", got)
	}
	if err := c.call(protocol.MethodInitialize, map[string]any{}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Fatalf("second initialize: got %v, want InvalidRequest", err)
	}
	if err := c.call("compactd/nope", map[string]any{}, nil); rpcCode(err) != jsonrpc2.MethodNotFound {
		t.Fatalf("unknown request: got %v, want MethodNotFound", err)
	}
	if err := c.call(protocol.MethodTextDocumentHover, "not an object", nil); rpcCode(err) != jsonrpc2.InvalidParams {
		t.Fatalf("bad params: got %v, want InvalidParams", err)
	}
	if err := c.call(protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := c.call(protocol.MethodTextDocumentHover, map[string]any{}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Fatalf("request after shutdown: got %v, want InvalidRequest", err)
	}
	c.notify(protocol.MethodExit, nil)
	if code := c.waitExit(); code != 0 {
		t.Fatalf("exit after shutdown: code %d, want 0", code)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	testEnv(t)
	c := startServer(t, Options{})
	c.initialize(t.TempDir(), nil)
	c.notify(protocol.MethodExit, nil)
	if code := c.waitExit(); code != 1 {
		t.Fatalf("exit without shutdown: code %d, want 1", code)
	}
}

// TestMalformedInput writes broken frames on the wire: each gets an error
// response and the session goes on.
func TestMalformedInput(t *testing.T) {
	testEnv(t)
	serverSide, clientSide := net.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Serve(t.Context(), serverSide, Options{Daemon: daemon.Options{Env: agents.EnvFromOS(os.Getenv)}})
	}()
	defer clientSide.Close()
	br := bufio.NewReader(clientSide)
	send := func(body string) {
		if _, err := fmt.Fprintf(clientSide, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			t.Fatal(err)
		}
	}
	// Responses to unreadable requests carry "id": null, which jsonrpc2's
	// decoder refuses, so frames are read by hand.
	type response struct {
		ID    any `json:"id"`
		Error *struct {
			Code jsonrpc2.Code `json:"code"`
		} `json:"error"`
	}
	readResponse := func() response {
		var n int
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("read header: %v", err)
			}
			if strings.TrimSpace(line) == "" {
				break
			}
			fmt.Sscanf(line, "Content-Length: %d", &n)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatal(err)
		}
		var r response
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("response %s: %v", body, err)
		}
		return r
	}
	code := func(r response) jsonrpc2.Code {
		if r.Error == nil {
			return 0
		}
		return r.Error.Code
	}
	for _, tc := range []struct {
		body string
		code jsonrpc2.Code
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, jsonrpc2.ParseError},
		{`{"jsonrpc":"2.0","id":2,"method":"x","params":"\ud800"`, jsonrpc2.ParseError},
		{`[1,2,3]`, jsonrpc2.InvalidRequest},
	} {
		send(tc.body)
		if r := readResponse(); code(r) != tc.code || r.ID != nil {
			t.Errorf("%q: got %+v, want code %d and a null id", tc.body, r, tc.code)
		}
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
	if r := readResponse(); code(r) != jsonrpc2.ServerNotInitialized || r.ID != float64(3) {
		t.Fatalf("valid request after garbage: %+v", r)
	}
	clientSide.Close()
	select {
	case code := <-done:
		if code != 1 {
			t.Fatalf("closed connection: code %d, want 1", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not stop on a closed connection")
	}
}

// TestTranscriptFeatures opens a real Claude Code session in a workspace
// and checks the gauge, the diagnostic, hover, code lens, code actions and
// compactd/gauges; then an agent appends and a new gauge arrives through a
// real fsnotify event.
func TestTranscriptFeatures(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	path := filepath.Join(ws, "sessions", "conv.jsonl")
	data := writeSession(t, path, ws, 8)
	u := pathURI(path)
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}}) // with a store: the compaction actions are offered
	// A small window so the session is over the critical point.
	c.initialize(ws, map[string]any{"compactd": map[string]any{"gauge": map[string]any{"contextWindow": 4000}}})

	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "jsonl", Version: 1, Text: string(data)}})
	raw, next := c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)
	var g Gauge
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if g.Format != string(transcript.FormatClaudeCode) || g.ContextWindow != 4000 || g.Tokens <= 0 || g.Level != "critical" || g.Text == "" || !strings.Contains(g.Text, "/ 4k") {
		t.Fatalf("gauge = %+v", g)
	}
	if g.Source != index.SourceUsage && g.Source != index.SourceEstimate {
		t.Fatalf("gauge source %q", g.Source)
	}
	if want := float64(g.Tokens) / 4000; g.Ratio != want {
		t.Fatalf("ratio %v, want %v", g.Ratio, want)
	}

	raw, _ = c.waitNote(0, protocol.MethodTextDocumentPublishDiagnostics, nil, 5*time.Second)
	var pd protocol.PublishDiagnosticsParams
	_ = json.Unmarshal(raw, &pd)
	if pd.URI != u || len(pd.Diagnostics) != 1 || pd.Diagnostics[0].Severity != protocol.DiagnosticSeverityError || pd.Diagnostics[0].Source != "compactd" || !strings.Contains(pd.Diagnostics[0].Message, "% full") {
		t.Fatalf("diagnostics = %+v", pd)
	}

	// Hover on the last line: the last turn, cumulative = the whole conversation.
	lines := strings.Count(string(data), "\n")
	var hover protocol.Hover
	if err := c.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: uint32(lines - 1)}}}, &hover); err != nil {
		t.Fatalf("hover: %v", err)
	}
	if !strings.Contains(hover.Contents.Value, fmt.Sprintf("turn %d of %d", g.Turns, g.Turns)) || !strings.Contains(hover.Contents.Value, "Through this turn") {
		t.Fatalf("hover = %q", hover.Contents.Value)
	}

	var lenses []protocol.CodeLens
	if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &lenses); err != nil {
		t.Fatalf("codeLens: %v", err)
	}
	if len(lenses) != g.Turns || g.Turns < 8 {
		t.Fatalf("%d lenses for %d turns", len(lenses), g.Turns)
	}
	for i := 1; i < len(lenses); i++ {
		if lenses[i].Range.Start.Line <= lenses[i-1].Range.Start.Line {
			t.Fatalf("lens %d at line %d not after lens %d", i, lenses[i].Range.Start.Line, i-1)
		}
	}

	var actions []protocol.CodeAction
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Context: protocol.CodeActionContext{Diagnostics: pd.Diagnostics}}, &actions); err != nil {
		t.Fatalf("codeAction: %v", err)
	}
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
	}
	if strings.Join(titles, "|") != "Compact conversation|Compact to fit…|Dry-run compaction|Compact conversation in place|Continue in another agent…|Keep this message verbatim in every compaction (pin)|Unpin this message" {
		t.Fatalf("actions = %q", titles)
	}
	if len(actions[0].Diagnostics) != 1 || actions[0].Command.Command != cmdCompact {
		t.Fatalf("quick fix not tied to the diagnostic: %+v", actions[0])
	}

	var all []Gauge
	if err := c.call(methodGauges, nil, &all); err != nil || len(all) != 1 || all[0].URI != u {
		t.Fatalf("gauges = %+v, %v", all, err)
	}

	// The agent appends: a new gauge with more tokens arrives via fsnotify.
	appendTo(t, path, sessiongen.Continue(transcript.FormatClaudeCode, data, 9, 6))
	raw, _ = c.waitNote(next, methodGauge, func(r json.RawMessage) bool {
		var g2 Gauge
		return json.Unmarshal(r, &g2) == nil && g2.URI == u && g2.Turns > g.Turns
	}, 10*time.Second)
	var g2 Gauge
	_ = json.Unmarshal(raw, &g2)
	if !g2.Active {
		t.Fatalf("the appended conversation is not active: %+v", g2)
	}
}

// TestAgentFolders finds a Claude Code session in the project's
// ~/.claude/projects/<slug> (with its subagent file) and a Codex rollout
// whose cwd is the workspace, without any didOpen; a Codex rollout of
// another project is ignored.
func TestAgentFolders(t *testing.T) {
	home := testEnv(t)
	ws := t.TempDir()
	env := agents.EnvFromOS(os.Getenv)
	claudeDir := claude.ProjectDir(env, ws)
	if !strings.HasPrefix(claudeDir, filepath.Join(home, "claude", "projects")) {
		t.Fatalf("claude dir %s ignores CLAUDE_CONFIG_DIR", claudeDir)
	}
	main := filepath.Join(claudeDir, "s1.jsonl")
	writeSession(t, main, ws, 3)
	sub := filepath.Join(claudeDir, "s1", "subagents", "agent-a1.jsonl")
	writeSession(t, sub, ws, 2)
	mine := filepath.Join(codex.SessionsDir(env), "2026", "01", "02", "rollout-2026-01-02T10-00-00-a.jsonl")
	other := filepath.Join(codex.SessionsDir(env), "2026", "01", "02", "rollout-2026-01-02T11-00-00-b.jsonl")
	for p, cwd := range map[string]string{mine: ws, other: "/elsewhere"} {
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, sessiongen.Codex(sessiongen.Options{Seed: 3, Turns: 2, Cwd: cwd}), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	want := []string{main, sub, mine}
	if _, ok := format.Lookup(transcript.FormatCodex); !ok {
		want = want[:2] // the Codex codec is not in this build yet
	}
	c := startServer(t, Options{})
	c.initialize(ws, nil)
	for _, p := range want {
		c.waitNote(0, methodGauge, gaugeFor(pathURI(p)), 10*time.Second)
	}
	// A session created after start, in a folder that appears later.
	later := filepath.Join(claudeDir, "s2", "subagents", "agent-b2.jsonl")
	writeSession(t, later, ws, 2)
	c.waitNote(0, methodGauge, gaugeFor(pathURI(later)), 10*time.Second)

	var all []Gauge
	if err := c.call(methodGauges, nil, &all); err != nil {
		t.Fatal(err)
	}
	for _, g := range all {
		if g.URI == pathURI(other) {
			t.Fatalf("a rollout of another project is tracked: %+v", g)
		}
	}
	if len(all) != len(want)+1 {
		t.Fatalf("%d gauges, want %d", len(all), len(want)+1)
	}
	// Deleting a transcript withdraws its gauge.
	before := c.noteCount()
	if err := os.Remove(main); err != nil {
		t.Fatal(err)
	}
	c.waitNote(before, methodGauge, func(r json.RawMessage) bool {
		var g Gauge
		return json.Unmarshal(r, &g) == nil && g.URI == pathURI(main) && g.Removed
	}, 10*time.Second)
}

// TestCommandOutsideWorkspaceRefused: a transcript opened from elsewhere
// is shown, but commands on it are refused and nothing is written.
func TestCommandOutsideWorkspaceRefused(t *testing.T) {
	testEnv(t)
	ws, elsewhere := t.TempDir(), t.TempDir()
	path := filepath.Join(elsewhere, "conv.jsonl")
	writeSession(t, path, elsewhere, 3)
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: nil}})
	c.initialize(ws, nil)
	u := pathURI(path)
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
	c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)
	err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": cmdCompact, "arguments": []any{map[string]any{"uri": u}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Fatalf("compact outside the workspace: %v", err)
	}
	raw, _ := c.waitNote(0, protocol.MethodWindowShowMessage, nil, 5*time.Second)
	if !strings.Contains(string(raw), "refused") {
		t.Fatalf("showMessage = %s", raw)
	}
	entries, _ := os.ReadDir(elsewhere)
	if len(entries) != 1 {
		t.Fatalf("files written beside a refused transcript: %v", entries)
	}
}
