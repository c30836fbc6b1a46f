package lsp

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/jobs"
)

// TestCompactToFit: the code action "Compact to fit…" names the client's
// command with the transcript (and, once a dry run found it, the knee as
// the budget to suggest); compactd.compact with a budget writes a fork
// within it; the context view's dry run carries the trade-off.
func TestCompactToFit(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	path := filepath.Join(ws, "conv.jsonl")
	writeSession(t, path, ws, 40)
	u := pathURI(path)
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
	c.initialize(ws, nil)
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
	c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)
	c.waitIndexed()

	var ctxRes ContextResult
	if err := c.call(methodContext, ContextParams{URI: u, DryRun: true}, &ctxRes); err != nil {
		t.Fatal(err)
	}
	if ctxRes.DryRun == nil || len(ctxRes.DryRun.TradeOff) < 2 {
		t.Fatalf("the context view's dry run has no trade-off: %+v (%s)", ctxRes.DryRun, ctxRes.DryRunError)
	}
	knee := 0
	for _, p := range ctxRes.DryRun.TradeOff {
		if p.Knee {
			knee = p.Budget
		}
	}

	var actions []protocol.CodeAction
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &actions); err != nil {
		t.Fatal(err)
	}
	var fit *protocol.CodeAction
	for i := range actions {
		if actions[i].Title == "Compact to fit…" {
			fit = &actions[i]
		}
	}
	if fit == nil || fit.Command == nil || fit.Command.Command != cmdCompactToFit || len(fit.Command.Arguments) != 1 {
		t.Fatalf("no Compact to fit… action naming %s: %+v", cmdCompactToFit, actions)
	}
	raw, _ := json.Marshal(fit.Command.Arguments[0])
	var arg CommandArgs
	if err := json.Unmarshal(raw, &arg); err != nil || arg.URI != u || arg.Budget == nil || *arg.Budget != knee {
		t.Fatalf("the action's argument %s, want the transcript and the knee %d", raw, knee)
	}

	budget := 1500
	res, err := c.execute(cmdCompact, map[string]any{"uri": u, "budget": budget})
	if err != nil {
		t.Fatalf("compact with a budget: %v", err)
	}
	var result jobs.Result
	if err := json.Unmarshal(res.Result, &result); err != nil {
		t.Fatal(err)
	}
	if result.TokensAfter > budget*105/100 || result.TokensAfter < budget/2 {
		t.Fatalf("compact with budget %d gave %d tokens (notes %q)", budget, result.TokensAfter, result.Notes)
	}
}

// TestPinCommand: compactd.pin on a transcript line stores the pin and
// says so; a line without a message the model sees is refused in words;
// the code actions offer it on the cursor's line.
func TestPinCommand(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	path := filepath.Join(ws, "conv.jsonl")
	writeSession(t, path, ws, 6)
	u := pathURI(path)
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
	c.initialize(ws, nil)
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
	c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)
	c.waitIndexed()

	var actions []protocol.CodeAction
	at := protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 3}}
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: at}, &actions); err != nil {
		t.Fatal(err)
	}
	var pinAction *protocol.CodeAction
	for i := range actions {
		if actions[i].Command != nil && actions[i].Command.Command == cmdPin {
			pinAction = &actions[i]
		}
	}
	if pinAction == nil {
		t.Fatalf("no pin action: %+v", actions)
	}
	raw, _ := json.Marshal(pinAction.Command.Arguments[0])
	var arg CommandArgs
	if json.Unmarshal(raw, &arg) != nil || arg.Line == nil || *arg.Line != 3 {
		t.Fatalf("pin action argument %s, want line 3", raw)
	}
	res, err := c.execute(cmdPin, map[string]any{"uri": u, "line": 3})
	if err != nil {
		t.Fatalf("pin: %v", err)
	}
	var pinned daemon.Pinned
	if err := json.Unmarshal(res.Result, &pinned); err != nil || !pinned.Pinned || pinned.Pins != 1 || pinned.Key == "" {
		t.Fatalf("pin result %s (%v)", res.Result, err)
	}
	if _, err := c.execute(cmdPin, map[string]any{"uri": u, "line": 100000}); err == nil {
		t.Fatal("a line past the end was pinned")
	}
}
