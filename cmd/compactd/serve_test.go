package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// pipeRWC joins the client's ends of two pipes into one connection.
type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

// TestServeLifecycle runs `compactd serve` in-process on pipes with a
// real jsonrpc2 client: exit after shutdown is 0, exit without it 1, and
// --log-file receives the logs while stdout carries only the protocol.
func TestServeLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name     string
		shutdown bool
		want     int
	}{{"shutdown then exit", true, 0}, {"exit alone", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			vars := map[string]string{"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "appdata"), "LOCALAPPDATA": filepath.Join(home, "localappdata"), "XDG_STATE_HOME": filepath.Join(home, "state"),
				"CLAUDE_CONFIG_DIR": filepath.Join(home, "claude"), "CODEX_HOME": filepath.Join(home, "codex")}
			for k, v := range vars {
				t.Setenv(k, v)
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr strings.Builder
			e := &env{stdin: inR, stdout: outW, stderr: &stderr, getenv: func(k string) string { return vars[k] }}
			logFile := filepath.Join(home, "serve.log")
			store := filepath.Join(home, "store", "c.db")
			code := make(chan int, 1)
			go func() {
				code <- run(t.Context(), e, []string{"serve", "--log-file", logFile, "--store", store, "--log-level", "debug"})
			}()

			conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{outR, inW}))
			conn.Go(t.Context(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
				_ = reply(ctx, nil, nil) // an error here would panic jsonrpc2 v0.10.0 (see lsp harness_test.go)
				return nil
			})
			ws := t.TempDir()
			var res protocol.InitializeResult
			if _, err := conn.Call(t.Context(), protocol.MethodInitialize, map[string]any{"processId": os.Getpid(), "rootUri": "file://" + ws, "capabilities": map[string]any{}}, &res); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if res.ServerInfo == nil || res.ServerInfo.Name != "compactd" {
				t.Fatalf("serverInfo = %+v", res.ServerInfo)
			}
			conn.Notify(t.Context(), protocol.MethodInitialized, map[string]any{})
			if tc.shutdown {
				if _, err := conn.Call(t.Context(), protocol.MethodShutdown, nil, nil); err != nil {
					t.Fatalf("shutdown: %v", err)
				}
			}
			conn.Notify(t.Context(), protocol.MethodExit, nil)
			select {
			case got := <-code:
				if got != tc.want {
					t.Fatalf("exit code %d, want %d (stderr %q)", got, tc.want, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("serve did not exit")
			}
			logs, _ := os.ReadFile(logFile)
			if !strings.Contains(string(logs), "compactd serve starting") {
				t.Fatalf("log file: %q", logs)
			}
			if _, err := os.Stat(store); err != nil {
				t.Fatalf("the store was not opened at --store: %v", err)
			}
		})
	}
}
