package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
)

func openJobs(t *testing.T) *jobs.Runner {
	t.Helper()
	st, err := store.Open(t.Context(), os.Getenv("COMPACTD_STORE"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return jobs.New(st)
}

func (c *client) execute(command string, args map[string]any) (CommandResult[json.RawMessage], error) {
	var res CommandResult[json.RawMessage]
	err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": []any{args}}, &res)
	return res, err
}

// progressOf returns the $/progress kinds sent for token, in order.
func (c *client) progressOf(token string) []string {
	var kinds []string
	for _, raw := range c.notesOf(protocol.MethodProgress) {
		var p struct {
			Token any `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if json.Unmarshal(raw, &p) == nil && p.Token == token {
			kinds = append(kinds, p.Value.Kind)
		}
	}
	return kinds
}

func (c *client) createdTokens() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.requests {
		if r.method == protocol.MethodWorkDoneProgressCreate {
			var p struct {
				Token string `json:"token"`
			}
			_ = json.Unmarshal(r.params, &p)
			out = append(out, p.Token)
		}
	}
	return out
}

func (c *client) requested(method string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for _, r := range c.requests {
		if r.method == method {
			out = append(out, r.params)
		}
	}
	return out
}

// TestCompactCommands runs the real jobs against a real store: dry run
// (report opened, nothing beside the transcript), compact (progress
// begin…end, message, fork opened and indexed), history, restore action.
func TestCompactCommands(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	path := filepath.Join(ws, "conv.jsonl")
	writeSession(t, path, ws, 10)
	u := pathURI(path)
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
	c.initialize(ws, nil)
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
	c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)
	c.waitIndexed() // the scan's progress token comes before the commands'

	dry, err := c.execute(cmdDryRun, map[string]any{"uri": u, "strategies": []string{"strip-tool-results"}, "keepLast": 1})
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if dry.Open == "" || !strings.HasSuffix(dry.Open, ".md") || !strings.Contains(uriPath(protocol.DocumentURI(dry.Open)), filepath.Join("store", "reports")) {
		t.Fatalf("dry run opens %q, want a Markdown report in the store", dry.Open)
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 1 {
		t.Fatalf("the dry run wrote beside the transcript: %v", entries)
	}

	before := len(c.createdTokens())
	res, err := c.execute(cmdCompact, map[string]any{"uri": u, "strategies": []string{"strip-tool-results"}, "keepLast": 1})
	if err != nil {
		t.Fatalf("compact: %v", err)
	}
	fork := uriPath(protocol.DocumentURI(res.Open))
	if fork == "" || filepath.Dir(fork) != ws || fork == path {
		t.Fatalf("fork %q is not beside the transcript", res.Open)
	}
	if _, err := os.Stat(fork); err != nil {
		t.Fatalf("fork missing: %v", err)
	}
	tokens := c.createdTokens()
	if len(tokens) <= before {
		t.Fatal("compact created no progress token")
	}
	if kinds := c.progressOf(tokens[len(tokens)-1]); len(kinds) < 2 || kinds[0] != "begin" || kinds[len(kinds)-1] != "end" {
		t.Fatalf("progress = %v, want begin … end", kinds)
	}
	shown := false
	for _, raw := range c.requested("window/showDocument") {
		shown = shown || strings.Contains(string(raw), filepath.Base(fork))
	}
	if !shown {
		t.Fatal("the fork was not shown (window/showDocument)")
	}
	raw, _ := c.waitNote(0, protocol.MethodWindowShowMessage, func(r json.RawMessage) bool { return strings.Contains(string(r), "compacted") }, 5*time.Second)
	if !strings.Contains(string(raw), "saved") {
		t.Fatalf("message = %s", raw)
	}
	// The fork is a transcript in the workspace: the watcher indexes it.
	c.waitNote(0, methodGauge, gaugeFor(pathURI(fork)), 10*time.Second)

	hist, err := c.execute(cmdHistory, map[string]any{"uri": u})
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	if raw, _ := json.Marshal(hist.Result); !strings.Contains(string(raw), `"versions":[{`) {
		t.Fatalf("history = %s", raw)
	}
	// The lightbulb asks the store for versions with a 500 ms bound and
	// leaves the restore action out when it is slower (under -race on a
	// loaded machine it can be): ask until it is offered.
	deadline := time.Now().Add(20 * time.Second)
	for {
		var actions []protocol.CodeAction
		if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &actions); err != nil {
			t.Fatal(err)
		}
		last := actions[len(actions)-1]
		if last.Title == "Restore version…" && last.Command.Command == cmdRestore {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no restore action once versions exist: %+v", actions)
		}
		time.Sleep(20 * time.Millisecond) // a poll interval
	}
}
