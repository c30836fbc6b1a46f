package lsp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/index"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	_ "github.com/compactd/compactd/compaction/format/all"
)

// client is a real JSON-RPC client connection to an in-process server
// over net.Pipe, recording everything the server sends.
type client struct {
	t    *testing.T
	conn jsonrpc2.Conn
	// exited is closed when Serve returned; code is its result.
	exited chan struct{}
	code   int

	// answer picks the action of a window/showMessageRequest; nil picks
	// the first.
	answer func(protocol.ShowMessageRequestParams) *protocol.MessageActionItem

	mu       sync.Mutex
	notes    []note
	requests []note
	// shown counts the window/showDocument requests answered.
	shown   int
	changed chan struct{}
}

type note struct {
	method string
	params json.RawMessage
}

// testEnv points every location the server may touch at temp dirs.
func testEnv(t *testing.T) (home string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("APPDATA", filepath.Join(home, "appdata"))
	t.Setenv("LOCALAPPDATA", filepath.Join(home, "localappdata"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex"))
	t.Setenv("COMPACTD_STORE", filepath.Join(home, "store", "compactd.db"))
	return home
}

func startServer(t *testing.T, opts Options) *client {
	t.Helper()
	if opts.Daemon.Env.Home == "" {
		opts.Daemon.Env = agents.EnvFromOS(os.Getenv)
	}
	if opts.Daemon.Savings == nil {
		opts.Daemon.Savings = noSavings
	}
	serverSide, clientSide := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{t: t, exited: make(chan struct{}), changed: make(chan struct{}, 1)}
	go func() {
		c.code = Serve(ctx, serverSide, opts)
		close(c.exited)
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(clientSide))
	c.conn.Go(ctx, c.handle)
	t.Cleanup(func() {
		cancel()
		_ = c.conn.Close()
		select {
		case <-c.exited:
		case <-time.After(5 * time.Second):
			// What holds it, for the failure to say.
			buf := make([]byte, 1<<20)
			t.Errorf("server did not stop; its goroutines:\n%s", buf[:runtime.Stack(buf, true)])
		}
	})
	return c
}

// noSavings keeps the in-process tests independent of the strategies'
// speed; the savings path has its own daemon tests.
func noSavings(context.Context, index.SavingsInput) (map[string]int, error) {
	return map[string]int{}, nil
}

func (c *client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	n := note{method: req.Method(), params: append(json.RawMessage(nil), req.Params()...)}
	c.mu.Lock()
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		c.requests = append(c.requests, n)
	} else {
		c.notes = append(c.notes, n)
	}
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
	// The reply's error is dropped: a handler error makes jsonrpc2 v0.10.0
	// store it in the same atomic.Value as the stream's read error, which
	// panics when the two differ in type (a reply written to a pipe the
	// server closed, then the read that ends).
	switch req.Method() {
	case "window/showDocument":
		_ = reply(ctx, map[string]bool{"success": true}, nil)
		c.mu.Lock()
		c.shown++
		c.mu.Unlock()
		select {
		case c.changed <- struct{}{}:
		default:
		}
		return nil
	case protocol.MethodWindowShowMessageRequest:
		var p protocol.ShowMessageRequestParams
		_ = json.Unmarshal(req.Params(), &p)
		if c.answer != nil {
			_ = reply(ctx, c.answer(p), nil)
			return nil
		}
		if len(p.Actions) > 0 {
			_ = reply(ctx, p.Actions[0], nil)
			return nil
		}
	}
	_ = reply(ctx, nil, nil)
	return nil
}

func (c *client) call(method string, params, result any) error {
	return c.callWithin(30*time.Second, method, params, result)
}

// callWithin is call with its own deadline: a request still unanswered
// then returns context.DeadlineExceeded. Tests use it to tell a hang from
// an answer, with a deadline far beyond what load can add.
func (c *client) callWithin(d time.Duration, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *client) notify(method string, params any) {
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// waitNote waits for a notification matching pred, among those after index from.
func (c *client) waitNote(from int, method string, pred func(json.RawMessage) bool, timeout time.Duration) (json.RawMessage, int) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		c.mu.Lock()
		for i := from; i < len(c.notes); i++ {
			if c.notes[i].method == method && (pred == nil || pred(c.notes[i].params)) {
				p := c.notes[i].params
				c.mu.Unlock()
				return p, i + 1
			}
		}
		c.mu.Unlock()
		if time.Now().After(deadline) {
			c.t.Fatalf("no %s notification within %s; got %v", method, timeout, c.methods())
		}
		select {
		case <-c.changed:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// autoSettled waits until auto-compaction has examined the snapshot of
// every gauge the server sent so far (and so of every gauge this client
// received) and returns the server's counters then: a compaction those
// snapshots could start is counted in AutoCompactions. Tests assert that
// nothing fired after it, instead of waiting "long enough".
func (c *client) autoSettled() Stats {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var st Stats
		if err := c.call(methodStats, nil, &st); err != nil {
			c.t.Fatalf("%s: %v", methodStats, err)
		}
		if st.AutoChecked == st.Gauges {
			return st
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("auto-compaction examined %d of %d gauges' snapshots within 10 s", st.AutoChecked, st.Gauges)
		}
		select {
		case <-c.changed:
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// waitIndexed waits for the end of the cold scan's progress: its token
// was created before any a later command creates.
func (c *client) waitIndexed() {
	c.t.Helper()
	c.waitNote(0, protocol.MethodProgress, func(raw json.RawMessage) bool {
		var p struct {
			Value struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
			} `json:"value"`
		}
		return json.Unmarshal(raw, &p) == nil && p.Value.Kind == "end" && strings.Contains(p.Value.Message, "indexed")
	}, 30*time.Second)
}

func (c *client) noteCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notes)
}

func (c *client) methods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, n := range c.notes {
		out = append(out, n.method)
	}
	return out
}

func (c *client) notesOf(method string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for _, n := range c.notes {
		if n.method == method {
			out = append(out, n.params)
		}
	}
	return out
}

// initialize runs the handshake for folder with the given initializationOptions.
func (c *client) initialize(folder string, initOptions any) protocol.InitializeResult {
	c.t.Helper()
	var res protocol.InitializeResult
	params := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          pathURI(folder),
		"workspaceFolders": []map[string]string{{"uri": string(pathURI(folder)), "name": "ws"}},
		"capabilities": map[string]any{
			"window": map[string]any{"workDoneProgress": true, "showDocument": map[string]bool{"support": true}},
		},
		"initializationOptions": initOptions,
	}
	if err := c.call(protocol.MethodInitialize, params, &res); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	c.notify(protocol.MethodInitialized, map[string]any{})
	return res
}

func gaugeFor(u protocol.DocumentURI) func(json.RawMessage) bool {
	return func(raw json.RawMessage) bool {
		var g Gauge
		return json.Unmarshal(raw, &g) == nil && g.URI == u && !g.Removed
	}
}

// waitExit waits for Serve to return and gives its exit code.
func (c *client) waitExit() int {
	c.t.Helper()
	select {
	case <-c.exited:
		return c.code
	case <-time.After(5 * time.Second):
		c.t.Fatal("server did not exit")
	}
	return -1
}
