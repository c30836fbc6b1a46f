package lsp

import (
	"context"
	"encoding/json"
	"github.com/compactd/compactd/daemon"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/sessiongen"
)

// TestCancelCompaction stops a running compaction both ways a client can:
// window/workDoneProgress/cancel on its progress token, and
// $/cancelRequest on the request. The request answers RequestCancelled
// and nothing is written beside the transcript.
func TestCancelCompaction(t *testing.T) {
	for _, how := range []string{"progress", "request"} {
		t.Run(how, func(t *testing.T) {
			testEnv(t)
			ws := t.TempDir()
			path := filepath.Join(ws, "big.jsonl")
			data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, TargetBytes: 8 << 20, Cwd: ws})
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			u := pathURI(path)
			c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
			c.initialize(ws, nil)
			c.waitNote(0, methodGauge, gaugeFor(u), 60*time.Second)
			c.waitIndexed() // the scan's token is not the compaction's
			created := len(c.createdTokens())

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				params := map[string]any{"command": cmdCompact, "arguments": []any{map[string]any{"uri": u, "strategies": []string{"auto"}}}}
				errc <- protocol.Call(ctx, c.conn, protocol.MethodWorkspaceExecuteCommand, params, nil)
			}()
			deadline := time.Now().Add(20 * time.Second)
			var token string
			for token == "" {
				if toks := c.createdTokens(); len(toks) > created {
					if kinds := c.progressOf(toks[len(toks)-1]); len(kinds) > 0 && kinds[0] == "begin" {
						token = toks[len(toks)-1]
					}
				}
				if time.Now().After(deadline) {
					t.Fatal("the compaction's progress never began")
				}
				select { // woken by each message the server sends
				case <-c.changed:
				case <-time.After(20 * time.Millisecond):
				}
			}
			if how == "progress" {
				c.notify(protocol.MethodWorkDoneProgressCancel, map[string]any{"token": token})
			} else {
				cancel() // protocol.Call sends $/cancelRequest with the request's id
			}
			select {
			case err := <-errc:
				if how == "progress" && rpcCode(err) != protocol.CodeRequestCancelled {
					t.Fatalf("cancelled compaction answered %v, want RequestCancelled", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the cancelled compaction did not stop")
			}
			c.waitNote(0, protocol.MethodWindowShowMessage, func(r json.RawMessage) bool { return strings.Contains(string(r), "cancelled") }, 60*time.Second)
			if kinds := c.progressOf(token); kinds[len(kinds)-1] != "end" {
				t.Fatalf("progress not ended: %v", kinds)
			}
			if entries, _ := os.ReadDir(ws); len(entries) != 1 {
				t.Fatalf("a cancelled compaction wrote files: %v", entries)
			}
		})
	}
}
