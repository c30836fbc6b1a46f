package lsp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/daemon"
)

// TestRecallActionOpensWhatAPlaceholderReplaced: on a fork's line holding
// a placeholder, the code actions offer "Recall r…"; the command writes
// the original bytes to a file and opens it; compactd/context says where
// the MCP server and hooks are installed.
func TestRecallActionOpensWhatAPlaceholderReplaced(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
	c.initialize(ws, map[string]any{"compact": map[string]any{"keepLast": 1}})
	u, _, data := openFixture(t, c, ws, "claude-2.1.330-24k.jsonl")
	var res CommandResult[json.RawMessage]
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": cmdCompact, "arguments": []any{map[string]any{"uri": u, "strategies": []string{"strip-tool-results"}}}}, &res); err != nil {
		t.Fatal(err)
	}
	fork := uriPath(protocol.DocumentURI(res.Open))
	b, err := os.ReadFile(fork)
	if err != nil {
		t.Fatal(err)
	}
	line, handle := -1, ""
	for i, l := range strings.Split(string(b), "\n") {
		if hs := recall.Find(l); len(hs) > 0 && strings.Contains(l, "[compacted: ") {
			line, handle = i, hs[0]
			break
		}
	}
	if line < 0 {
		t.Fatalf("the fork %s names no recall handle", fork)
	}
	fu := pathURI(fork)
	fdata := string(b)
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: fu, LanguageID: "jsonl", Version: 1, Text: fdata}})
	c.waitNote(0, methodGauge, func(r json.RawMessage) bool {
		var g Gauge
		return json.Unmarshal(r, &g) == nil && g.URI == fu
	}, 10*time.Second)
	var actions []protocol.CodeAction
	if err := c.call(protocol.MethodTextDocumentCodeAction, protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: fu},
		Range:        protocol.Range{Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line)}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	var act *protocol.CodeAction
	for i := range actions {
		if actions[i].Title == "Recall "+handle+"…" {
			act = &actions[i]
		}
	}
	if act == nil {
		t.Fatalf("no Recall action on line %d naming %s: %v", line, handle, titles(actions))
	}
	var rec CommandResult[struct {
		Bytes int `json:"bytes"`
	}]
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": act.Command.Command, "arguments": act.Command.Arguments}, &rec); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(uriPath(protocol.DocumentURI(rec.Open)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !strings.Contains(data, jsonString(string(got))) {
		t.Fatalf("recall %s opened %d bytes that the original transcript does not hold as a string", handle, len(got))
	}
	if rec.Open == "" {
		t.Fatal("the recall result names no document to open")
	}

	var ctxRes ContextResult
	if err := c.call(methodContext, ContextParams{URI: u}, &ctxRes); err != nil {
		t.Fatal(err)
	}
	if ctxRes.Integrations.MCP == nil || ctxRes.Integrations.Hooks == nil {
		t.Fatalf("compactd/context lacks the integrations: %+v", ctxRes.Integrations)
	}
}

func titles(as []protocol.CodeAction) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Title)
	}
	return out
}

// jsonString is s as a JSON string's body (how a JSONL transcript holds it).
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
