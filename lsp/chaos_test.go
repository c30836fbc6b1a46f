package lsp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/platform/platformtest"
	"github.com/compactd/compactd/daemon/store"
)

// The server in a hostile workspace: a named pipe, a symlink loop and a
// folder named like transcripts neither stall the index nor any command
// (a command naming the pipe once never answered, and $/cancelRequest
// could not end it); the gauge of the real session keeps working.
func TestServerOddFiles(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	session := filepath.Join(ws, "session.jsonl")
	writeSession(t, session, ws, 6)
	pipe := filepath.Join(ws, "pipe.jsonl")
	if err := platformtest.Mkfifo(pipe); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Symlink(filepath.Join(ws, "loop-b.jsonl"), filepath.Join(ws, "loop-a.jsonl"))
	os.Symlink(filepath.Join(ws, "loop-a.jsonl"), filepath.Join(ws, "loop-b.jsonl"))
	os.Mkdir(filepath.Join(ws, "folder.jsonl"), 0o755)
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
	c.initialize(ws, nil)
	c.waitNote(0, methodGauge, gaugeFor(pathURI(session)), 20*time.Second)
	for _, name := range []string{"pipe.jsonl", "loop-a.jsonl", "folder.jsonl"} {
		u := pathURI(filepath.Join(ws, name))
		c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
		for _, cmd := range []string{cmdCompact, cmdCompactInPlace, cmdDryRun, cmdHistory} {
			// A refusal answers in milliseconds; the command that blocked
			// on the pipe never answered. 10 s tells the two apart however
			// loaded the machine is.
			err := c.callWithin(10*time.Second, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": cmd, "arguments": []any{map[string]any{"uri": u}}}, nil)
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s on %s never answered", cmd, name)
			}
			if err == nil {
				t.Errorf("%s on %s succeeded", cmd, name)
			}
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Errorf("%s on %s: %v", cmd, name, err)
			}
		}
	}
	// Still serving: the session compacts.
	if _, err := c.execute(cmdCompact, map[string]any{"uri": pathURI(session)}); err != nil {
		t.Fatalf("compact of the real session after the odd files: %v", err)
	}
}

// The server's compactInPlace on a store that lost content refuses, says
// the transcript is untouched and how to repair the store, ends its
// progress and leaves the file byte-identical (it once replaced the file
// and said "the previous content is version v1", which was gone).
func TestServerCompactInPlaceOnDamagedStore(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	path := filepath.Join(ws, "conv.jsonl")
	writeSession(t, path, ws, 10)
	st, err := store.Open(t.Context(), os.Getenv("COMPACTD_STORE"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: jobs.New(st)}})
	c.initialize(ws, nil)
	c.waitIndexed() // the scan's progress token is not the command's
	u := pathURI(path)
	if _, err := c.execute(cmdCompact, map[string]any{"uri": u}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(`DELETE FROM blobs`); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	tokens := len(c.createdTokens())
	_, err = c.execute(cmdCompactInPlace, map[string]any{"uri": u})
	if err == nil || !strings.Contains(err.Error(), path+" is untouched") || !strings.Contains(err.Error(), "compactd doctor --fix") {
		t.Fatalf("compactInPlace on a damaged store: err = %v; want a refusal saying the file is untouched and how to repair", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("compactInPlace on a damaged store changed the transcript")
	}
	if all := c.createdTokens(); len(all) > tokens {
		if kinds := c.progressOf(all[len(all)-1]); kinds[len(kinds)-1] != "end" {
			t.Errorf("progress %v never ended", kinds)
		}
	}
}
