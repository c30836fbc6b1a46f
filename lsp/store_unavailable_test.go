package lsp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon/platform/platformtest"
	"github.com/compactd/compactd/daemon/store"
)

// brokenStores makes each kind of store compactd cannot use and returns
// its path: store.Open fails on every one.
func brokenStores(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}

	malformed := filepath.Join(dir, "malformed.db")
	s, err := store.Open(context.Background(), malformed)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	fi, _ := os.Stat(malformed)
	junk := make([]byte, fi.Size())
	rand.Read(junk[16:])
	copy(junk, "SQLite format 3\x00")
	os.WriteFile(malformed, junk, 0o600)
	out["malformed"] = malformed

	os.Mkdir(filepath.Join(dir, "folder.db"), 0o700)
	out["a folder"] = filepath.Join(dir, "folder.db")

	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o600)
	out["under a file"] = filepath.Join(dir, "file", "compactd.db")

	if platformtest.ReadOnlyFolders { // a Windows folder's read-only attribute stops no write
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o700)
		out["read-only folder"] = filepath.Join(ro, "compactd.db")
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		os.Chmod(ro, 0o500)
	}

	rofile := filepath.Join(dir, "rofile.db")
	if s, err := store.Open(context.Background(), rofile); err == nil {
		s.Close()
	}
	os.Chmod(rofile, 0o400)
	out["read-only file"] = rofile
	return out
}

// When the store cannot be used the server says so once, with the store's
// path and the fix; the commands that need it are disabled with that
// reason (or not offered to clients that cannot show disabled actions)
// and answer with it; the gauge keeps working. Before: a WARN in the log
// only, the actions offered, and every command answered "compaction is
// not available in this build".
func TestStoreUnavailable(t *testing.T) {
	for kind, path := range brokenStores(t) {
		t.Run(kind, func(t *testing.T) {
			testEnv(t)
			_, openErr := store.Open(context.Background(), path)
			if openErr == nil {
				t.Fatalf("store.Open(%s) succeeded; want a refusal", path)
			}
			for _, disabledSupport := range []bool{true, false} {
				ws := t.TempDir()
				conv := filepath.Join(ws, "conv.jsonl")
				writeSession(t, conv, ws, 6)
				u := pathURI(conv)
				c := startServer(t, Options{Daemon: daemon.Options{JobsUnavailable: openErr}})
				var res protocol.InitializeResult
				params := map[string]any{
					"processId": os.Getpid(), "rootUri": pathURI(ws),
					"workspaceFolders": []map[string]string{{"uri": string(pathURI(ws)), "name": "ws"}},
					"capabilities": map[string]any{
						"window":       map[string]any{"workDoneProgress": true},
						"textDocument": map[string]any{"codeAction": map[string]any{"disabledSupport": disabledSupport}},
					},
				}
				if err := c.call(protocol.MethodInitialize, params, &res); err != nil {
					t.Fatal(err)
				}
				c.notify(protocol.MethodInitialized, map[string]any{})
				c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
				// The gauge keeps working.
				c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)
				// The message is sent once the daemon has started, and its
				// scan may send the first gauge before it.
				c.waitNote(0, protocol.MethodWindowShowMessage, func(raw json.RawMessage) bool {
					var m protocol.ShowMessageParams
					return json.Unmarshal(raw, &m) == nil && strings.Contains(m.Message, "unavailable")
				}, 10*time.Second)

				var shown []string
				for _, raw := range c.notesOf(protocol.MethodWindowShowMessage) {
					var m protocol.ShowMessageParams
					json.Unmarshal(raw, &m)
					if strings.Contains(m.Message, "unavailable") {
						shown = append(shown, m.Message)
					}
				}
				if len(shown) != 1 || !strings.Contains(shown[0], path) {
					t.Fatalf("showMessage about the store = %q; want one naming %s", shown, path)
				}
				reason := shown[0]

				var actions []protocol.CodeAction
				if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &actions); err != nil {
					t.Fatal(err)
				}
				if !disabledSupport && len(actions) != 0 {
					t.Errorf("actions offered to a client that cannot show them disabled: %+v", actions)
				}
				if disabledSupport {
					if len(actions) == 0 {
						t.Error("no actions: a client showing disabled actions should see why they are off")
					}
					for _, a := range actions {
						if a.Disabled == nil || !strings.Contains(reason, a.Disabled.Reason[strings.Index(a.Disabled.Reason, "unavailable"):]) || !strings.Contains(a.Disabled.Reason, path) {
							t.Errorf("action %q disabled = %+v; want the store's reason", a.Title, a.Disabled)
						}
					}
				}
				for _, cmd := range []string{cmdCompact, cmdCompactInPlace, cmdHistory, cmdRestore} {
					_, err := c.execute(cmd, map[string]any{"uri": u})
					if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "in this build") {
						t.Errorf("%s: err = %v; want the store's reason naming %s", cmd, err, path)
					}
				}
				// Said once: commands did not repeat the warning.
				n := 0
				for _, raw := range c.notesOf(protocol.MethodWindowShowMessage) {
					if strings.Contains(string(raw), "unavailable") {
						n++
					}
				}
				if n != 1 {
					t.Errorf("the store warning was shown %d times; want once", n)
				}
			}
		})
	}
}
