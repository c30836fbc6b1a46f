package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// An lspClient is `compactd serve` driven by the suite's Node LSP client
// (lspclient/client.mjs: vscode-jsonrpc + vscode-languageserver-protocol),
// started on the agent's project with the agent's environment. Every
// notification is timestamped the moment its line reaches the test.
type lspClient struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu      sync.Mutex
	gauges  []gaugeNote
	agent   []agentNote             // compactd/agentCompaction notifications
	answers map[int]json.RawMessage // responses to requests sent, by id
	nextID  int
	other   map[string]int // other notification methods, counted
	ready   bool
	exited  bool
	changed chan struct{}
	stderr  bytes.Buffer
	logFile string
}

// An agentNote is one compactd/agentCompaction notification.
type agentNote struct {
	Params json.RawMessage
	At     time.Time
}

// A gaugeNote is one compactd/gauge notification.
type gaugeNote struct {
	// AutoCompactAt is the mark of the agent's own compaction (0: none);
	// AutoCompactOff says the agent's auto-compaction is switched off.
	AutoCompactAt  int
	AutoCompactOff bool
	Path           string
	Tokens         int
	Format         string
	Source         string
	Removed        bool
	At             time.Time
}

func startLSP(t *testing.T, sb *sandbox, bin string, init map[string]any) *lspClient {
	t.Helper()
	client := filepath.Join(e2eHome(t), "agents", "lspclient", "client.mjs")
	if _, err := os.Stat(filepath.Join(e2eHome(t), "agents", "lspclient", "node_modules", "vscode-languageserver-protocol")); err != nil {
		missing(t, "the suite's LSP client is not installed at %s", client)
	}
	c := &lspClient{other: map[string]int{}, answers: map[int]json.RawMessage{}, changed: make(chan struct{}), logFile: filepath.Join(sb.root, "compactd-serve.log")}
	argv, _ := json.Marshal([]string{bin, "serve", "--log-file", c.logFile})
	initJSON, _ := json.Marshal(init)
	name, args := sb.command("node", client)
	c.cmd = exec.Command(name, args...)
	c.cmd.Dir = sb.project
	c.cmd.Env = append(append([]string(nil), sb.env...), "COMPACTD_CMD_JSON="+string(argv), "COMPACTD_WORKSPACE="+sb.project, "COMPACTD_INIT_JSON="+string(initJSON))
	c.cmd.Stderr = &lockedWriter{mu: &c.mu, w: &c.stderr}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start the LSP client (node %s): %v", client, err)
	}
	// Every line the client prints is kept beside the sandbox's other logs.
	trace, err := os.Create(filepath.Join(sb.root, "lsp-client.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	go c.read(io.TeeReader(stdout, trace))
	t.Cleanup(func() { c.stop(t) })
	if !c.wait(30*time.Second, func() bool { return c.ready }) {
		t.Fatalf("compactd serve did not finish initialize within 30 s; client stderr:\n%s\nserver log:\n%s", c.stderrText(), tailFile(c.logFile))
	}
	return c
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (c *lspClient) stderrText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

func (c *lspClient) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		at := time.Now()
		var msg struct {
			Event  string          `json:"event"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  string          `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		c.mu.Lock()
		switch msg.Event {
		case "ready":
			c.ready = true
		case "exit":
			c.exited = true
		case "response":
			if msg.Error != "" {
				c.answers[msg.ID], _ = json.Marshal(map[string]string{"error": msg.Error})
			} else {
				c.answers[msg.ID] = msg.Result
			}
		case "notification":
			if msg.Method == "compactd/agentCompaction" {
				c.agent = append(c.agent, agentNote{Params: msg.Params, At: at})
			} else if msg.Method == "compactd/gauge" {
				var g struct {
					URI     string `json:"uri"`
					Tokens  int    `json:"tokens"`
					Format  string `json:"format"`
					Source  string `json:"source"`
					Removed bool   `json:"removed"`
					Mark    *struct {
						At       int  `json:"at"`
						Disabled bool `json:"disabled"`
					} `json:"autoCompact"`
				}
				if json.Unmarshal(msg.Params, &g) == nil {
					n := gaugeNote{Path: uriPath(g.URI), Tokens: g.Tokens, Format: g.Format, Source: g.Source, Removed: g.Removed, At: at}
					if g.Mark != nil {
						n.AutoCompactAt, n.AutoCompactOff = g.Mark.At, g.Mark.Disabled
					}
					c.gauges = append(c.gauges, n)
				}
			} else {
				c.other[msg.Method]++
			}
		}
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
	c.mu.Lock()
	c.exited = true
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// wait blocks until cond (evaluated under the lock) holds or timeout.
func (c *lspClient) wait(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok, ch := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			c.mu.Lock()
			defer c.mu.Unlock()
			return cond()
		}
	}
}

// gaugesOf returns the notifications for path so far.
func (c *lspClient) gaugesOf(path string) []gaugeNote {
	path = canonical(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []gaugeNote
	for _, g := range c.gauges {
		if canonical(g.Path) == path {
			out = append(out, g)
		}
	}
	return out
}

// waitGauge returns the first notification for path, from index from on,
// that match accepts.
func (c *lspClient) waitGauge(path string, from int, timeout time.Duration, match func(gaugeNote) bool) (gaugeNote, bool) {
	var found gaugeNote
	ok := c.wait(timeout, func() bool {
		p := canonical(path)
		n := 0
		for _, g := range c.gauges {
			if canonical(g.Path) != p {
				continue
			}
			if n >= from && match(g) {
				found = g
				return true
			}
			n++
		}
		return false
	})
	return found, ok
}

// request sends a request through the client and waits for its answer
// (an object {"error": …} when the server answered an error).
func (c *lspClient) request(t *testing.T, method string, params any, timeout time.Duration) json.RawMessage {
	t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	line, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.stdin.Write(append(line, '\n')); err != nil {
		t.Fatalf("send %s: %v", method, err)
	}
	var out json.RawMessage
	if !c.wait(timeout, func() bool { out = c.answers[id]; return out != nil }) {
		t.Fatalf("no answer to %s within %s; server log:\n%s", method, timeout, tailFile(c.logFile))
	}
	return out
}

// agentNotes returns the compactd/agentCompaction notifications so far.
func (c *lspClient) agentNotes() []agentNote {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]agentNote(nil), c.agent...)
}

func (c *lspClient) stop(t *testing.T) {
	if c.stdin != nil {
		c.stdin.Close() // the client shuts the server down and exits
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-done
		t.Errorf("the LSP client did not exit within 10 s of shutdown")
	}
}

func uriPath(uri string) string {
	p := strings.TrimPrefix(uri, "file://")
	if u, err := unescapePath(p); err == nil {
		return u
	}
	return p
}

func unescapePath(p string) (string, error) {
	if !strings.Contains(p, "%") {
		return p, nil
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			var v byte
			if _, err := fmt.Sscanf(p[i+1:i+3], "%02x", &v); err != nil {
				return "", err
			}
			b.WriteByte(v)
			i += 2
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String(), nil
}

func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func tailFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return tail(string(b), 4000)
}

// A usageWatcher notes when each usage figure reaches an agent's
// transcripts: it watches the agent's folders with fsnotify (as the daemon
// does) and reads every complete line appended, timestamping the figures
// the agent's format records.
type usageWatcher struct {
	w       *fsnotify.Watcher
	extract func(line []byte) (int, bool)

	mu      sync.Mutex
	offsets map[string]int64
	partial map[string][]byte
	seen    []usageSeen
	changed chan struct{}
	done    chan struct{}
}

type usageSeen struct {
	Path    string
	Context int
	At      time.Time
}

func watchUsage(t *testing.T, root string, extract func([]byte) (int, bool)) *usageWatcher {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	u := &usageWatcher{w: w, extract: extract, offsets: map[string]int64{}, partial: map[string][]byte{}, changed: make(chan struct{}), done: make(chan struct{})}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	u.addTree(root)
	go u.loop()
	t.Cleanup(func() { w.Close(); <-u.done })
	return u
}

func (u *usageWatcher) addTree(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			u.w.Add(p)
		} else if err == nil && strings.HasSuffix(p, ".jsonl") {
			u.read(p, time.Now())
		}
		return nil
	})
}

func (u *usageWatcher) loop() {
	defer close(u.done)
	for {
		select {
		case ev, ok := <-u.w.Events:
			if !ok {
				return
			}
			at := time.Now()
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					u.addTree(ev.Name)
					continue
				}
			}
			if strings.HasSuffix(ev.Name, ".jsonl") && (ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create)) {
				u.read(ev.Name, at)
			}
		case _, ok := <-u.w.Errors:
			if !ok {
				return
			}
		}
	}
}

// read takes the complete lines appended to path since the last read.
func (u *usageWatcher) read(path string, at time.Time) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	off := u.offsets[path]
	if fi.Size() < off { // rewritten
		off, u.partial[path] = 0, nil
	}
	buf := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(buf, off)
	buf = append(u.partial[path], buf[:n]...)
	u.offsets[path] = off + int64(n)
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		u.partial[path] = buf
		return
	}
	u.partial[path] = append([]byte(nil), buf[end+1:]...)
	// The lines were written at the latest by the file's modification
	// time and by this event: the earlier bound is the closer one (the
	// watcher may lag behind a burst of writes).
	if mt := fi.ModTime(); mt.Before(at) {
		at = mt
	}
	for _, line := range bytes.Split(buf[:end], []byte("\n")) {
		if ctx, ok := u.extract(line); ok {
			u.seen = append(u.seen, usageSeen{Path: path, Context: ctx, At: at})
		}
	}
	close(u.changed)
	u.changed = make(chan struct{})
}

// when waits until context has been seen in path and returns when it was
// first seen, and the figure recorded in that file just before it.
func (u *usageWatcher) when(path string, context int, timeout time.Duration) (at time.Time, prev int, ok bool) {
	path = canonical(path)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		u.mu.Lock()
		prev = 0
		for _, s := range u.seen {
			if canonical(s.Path) != path {
				continue
			}
			if s.Context == context {
				u.mu.Unlock()
				return s.At, prev, true
			}
			prev = s.Context
		}
		ch := u.changed
		u.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			return time.Time{}, prev, false
		}
	}
}
