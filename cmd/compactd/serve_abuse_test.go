package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/store"
)

// buildServe builds the compactd binary once per test binary run (the
// build cache makes it quick); tests that spawn it skip under -short.
// COMPACTD_SERVE_RACE=1 builds it with the race detector (make stress).
// TestMain removes it when the tests end.
var buildServe = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "compactd-serve-test-")
	if err != nil {
		return "", err
	}
	serveBuildDir.Store(&dir)
	bin := filepath.Join(dir, "compactd")
	args := []string{"build", "-o", bin}
	if os.Getenv("COMPACTD_SERVE_RACE") == "1" {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// serveBuildDir is the folder buildServe built into, if it ran.
var serveBuildDir atomic.Pointer[string]

// TestMain removes the binary buildServe built (30 MB a run, left in the
// temp folder otherwise).
func TestMain(m *testing.M) {
	code := m.Run()
	if dir := serveBuildDir.Load(); dir != nil {
		os.RemoveAll(*dir)
	}
	os.Exit(code)
}

func compactdBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and spawns the binary")
	}
	bin, err := buildServe()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// serveProc is `compactd serve` as a child process; the test writes raw
// bytes to its stdin and reads frames from its stdout.
type serveProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	frames chan map[string]json.RawMessage
	exited chan struct{}
	err    error
	stderr strings.Builder
}

func spawnServe(t *testing.T, bin string, envs map[string]string, args ...string) *serveProc {
	t.Helper()
	return spawnArgv(t, envs, append([]string{bin, "serve"}, args...))
}

// spawnArgv starts argv (compactd serve, possibly under a tracer) with
// only envs and PATH in its environment.
func spawnArgv(t *testing.T, envs map[string]string, argv []string) *serveProc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range envs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &serveProc{t: t, cmd: cmd, frames: make(chan map[string]json.RawMessage, 1024), exited: make(chan struct{})}
	cmd.Stderr = &p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	go func() {
		defer close(p.frames)
		br := bufio.NewReader(stdout)
		for {
			body, err := readLSPFrame(br)
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(body, &m) == nil {
				p.frames <- m
			}
		}
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.exited
			t.Errorf("compactd serve did not exit on stdin EOF; stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

func readLSPFrame(br *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if n >= 0 {
				break
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	body := make([]byte, n)
	_, err := io.ReadFull(br, body)
	return body, err
}

func (p *serveProc) write(b []byte) {
	p.t.Helper()
	if _, err := p.stdin.Write(b); err != nil {
		p.t.Fatalf("write to compactd serve: %v (stderr %s)", err, p.stderr.String())
	}
}

func (p *serveProc) send(body string) {
	p.write([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)))
}

type lspReply struct {
	ID     json.RawMessage
	Result json.RawMessage
	Code   int
	Msg    string
}

// reply waits for the next response (not a notification or a request
// from the server).
func (p *serveProc) reply(timeout time.Duration) lspReply {
	p.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case m, ok := <-p.frames:
			if !ok {
				p.t.Fatalf("compactd serve closed stdout; stderr:\n%s", p.stderr.String())
			}
			if _, isReq := m["method"]; isReq {
				if id, ok := m["id"]; ok { // a request from the server: answer null
					p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, id))
				}
				continue
			}
			r := lspReply{ID: m["id"], Result: m["result"]}
			if e, ok := m["error"]; ok {
				var ee struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				}
				_ = json.Unmarshal(e, &ee)
				r.Code, r.Msg = ee.Code, ee.Message
			}
			return r
		case <-deadline:
			p.t.Fatalf("no response within %s; stderr:\n%s", timeout, p.stderr.String())
		}
	}
}

// exitCode waits for the process and returns its exit status.
func (p *serveProc) exitCode(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.t.Fatalf("compactd serve still running after %s", timeout)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatalf("wait: %v", p.err)
	}
	return 0
}

// peakRSS reads the process's VmHWM (peak resident set) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc to read the peak RSS from: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc status")
	return 0
}

func serveEnv(t *testing.T) (map[string]string, string) {
	home := t.TempDir()
	envs := map[string]string{
		"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "appdata"), "LOCALAPPDATA": filepath.Join(home, "localappdata"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"CLAUDE_CONFIG_DIR": filepath.Join(home, "claude"), "CODEX_HOME": filepath.Join(home, "codex"),
		"COMPACTD_STORE": filepath.Join(home, "store", "compactd.db"),
	}
	for k, v := range envs {
		t.Setenv(k, v)
	}
	return envs, envs["COMPACTD_STORE"]
}

func initializeBody(id int, ws string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"processId":%d,"rootUri":%q,"capabilities":{}}}`, id, os.Getpid(), "file://"+ws)
}

// TestServeRefusesHugeMessage declares a 1 GiB body to the real binary
// and sends all of it: the server answers at once, skips the bytes, then
// answers initialize; its peak RSS stays far below the declared size.
func TestServeRefusesHugeMessage(t *testing.T) {
	bin := compactdBinary(t)
	envs, _ := serveEnv(t)
	p := spawnServe(t, bin, envs)
	const declared = 1 << 30
	p.write([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", declared)))
	r := p.reply(10 * time.Second)
	if r.Code != -32600 || string(r.ID) != "null" || !strings.Contains(r.Msg, "over the 67108864-byte limit") {
		t.Fatalf("1 GiB message answered %+v", r)
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = ' '
	}
	start := time.Now()
	for sent := 0; sent < declared; sent += len(chunk) {
		p.write(chunk)
	}
	took := time.Since(start)
	p.send(initializeBody(1, t.TempDir()))
	if r := p.reply(30 * time.Second); r.Code != 0 || !strings.Contains(string(r.Result), `"compactd"`) {
		t.Fatalf("initialize after the skipped body: %+v", r)
	}
	hwm := peakRSS(t, p.cmd.Process.Pid)
	t.Logf("skipped 1 GiB in %s; peak RSS %d MiB", took.Round(time.Millisecond), hwm>>20)
	if hwm > 256<<20 {
		t.Fatalf("peak RSS %d MiB after a 1 GiB message: the body was buffered", hwm>>20)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	p.reply(10 * time.Second)
	p.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := p.exitCode(10 * time.Second); code != 0 {
		t.Fatalf("shutdown then exit: code %d", code)
	}
}

// TestServeLifecycleAbuse drives the real binary's lifecycle the wrong
// ways: requests before initialize (-32002, notifications ignored),
// garbage frames, a second initialize (-32600), exit without shutdown
// (exit code 1).
func TestServeLifecycleAbuse(t *testing.T) {
	bin := compactdBinary(t)
	envs, _ := serveEnv(t)
	p := spawnServe(t, bin, envs)
	p.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.jsonl"}}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}`)
	if r := p.reply(10 * time.Second); r.Code != -32002 || string(r.ID) != "1" {
		t.Fatalf("hover before initialize: %+v, want -32002", r)
	}
	p.write([]byte("Content-Length: nope\r\n\r\n{}"))
	if r := p.reply(10 * time.Second); r.Code != -32700 {
		t.Fatalf("bad Content-Length: %+v, want -32700", r)
	}
	p.send(initializeBody(2, t.TempDir()))
	if r := p.reply(30 * time.Second); r.Code != 0 || string(r.ID) != "2" {
		t.Fatalf("initialize: %+v", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	p.send(initializeBody(3, t.TempDir()))
	if r := p.reply(10 * time.Second); r.Code != -32600 || string(r.ID) != "3" {
		t.Fatalf("second initialize: %+v, want -32600", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := p.exitCode(10 * time.Second); code != 1 {
		t.Fatalf("exit without shutdown: code %d, want 1", code)
	}
}

// TestServeClientVanishes compacts through the real binary, then closes
// its stdin in the middle of a frame: the process exits with code 1 and
// the store passes PRAGMA integrity_check with the new versions in it.
func TestServeClientVanishes(t *testing.T) {
	bin := compactdBinary(t)
	envs, storePath := serveEnv(t)
	ws := t.TempDir()
	path, _ := writeSession(t, ws, "chat.jsonl", 5, 8)
	p := spawnServe(t, bin, envs)
	p.send(initializeBody(1, ws))
	p.reply(30 * time.Second)
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"compactd.compact","arguments":[{"uri":%q,"strategies":["strip-tool-results"]}]}}`, "file://"+path))
	if r := p.reply(60 * time.Second); r.Code != 0 || !strings.Contains(string(r.Result), "compacted") {
		t.Fatalf("compact: %+v", r)
	}
	p.write([]byte("Content-Length: 200\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":3,"))
	_ = p.stdin.Close()
	if code := p.exitCode(10 * time.Second); code != 1 {
		t.Fatalf("client vanished: exit code %d, want 1", code)
	}
	st, err := store.Open(t.Context(), storePath)
	if err != nil {
		t.Fatalf("reopen the store: %v", err)
	}
	defer st.Close()
	if problems, err := st.IntegrityCheck(t.Context()); err != nil || len(problems) > 0 {
		t.Fatalf("integrity_check: %v %v", problems, err)
	}
	versions, err := st.AllVersions(t.Context())
	if err != nil || len(versions) < 2 {
		t.Fatalf("versions after the compaction: %d, %v", len(versions), err)
	}
}

// TestServeOpensNoNetworkWithoutModel runs a whole editor session
// (initialize, didOpen, the gauge, hover, compact with classify-tangents,
// shutdown, exit) through `compactd serve` under strace: with no model
// configured no AF_INET/AF_INET6 socket is ever created; with a model
// configured (a local server speaking the OpenAI shape) the same trace
// shows one, so the check can fail. The store it wrote is private.
func TestServeOpensNoNetworkWithoutModel(t *testing.T) {
	bin := compactdBinary(t)
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install -y strace); cannot watch the server's sockets")
	}
	var hits atomic.Int32
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1731840000,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"[]"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":2,"total_tokens":102}}`)
	}))
	defer model.Close()

	session := func(t *testing.T, settings map[string]any) (trace string, storePath string) {
		envs, storePath := serveEnv(t)
		ws := t.TempDir()
		path, _ := writeSession(t, ws, "chat.jsonl", 21, 8)
		uri := "file://" + path
		traceFile := filepath.Join(t.TempDir(), "trace")
		p := spawnArgv(t, envs, []string{strace, "-f", "-qq", "-e", "trace=execve,socket,connect", "-e", "signal=none", "-o", traceFile, bin, "serve"})
		init, _ := json.Marshal(map[string]any{"processId": os.Getpid(), "rootUri": "file://" + ws, "capabilities": map[string]any{}, "initializationOptions": settings})
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":%s}`, init))
		if r := p.reply(30 * time.Second); r.Code != 0 {
			if strings.Contains(p.stderr.String(), "ptrace") {
				t.Skipf("strace cannot trace here: %s", p.stderr.String())
			}
			t.Fatalf("initialize: %+v", r)
		}
		p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"jsonl","version":1,"text":""}}}`, uri))
		deadline := time.Now().Add(30 * time.Second)
		for id := 2; ; id++ { // the gauge is there once indexing finished
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"compactd/gauges"}`, id))
			if r := p.reply(10 * time.Second); strings.Contains(string(r.Result), path) {
				break
			}
			if time.Now().After(deadline) || id >= 299 { // ids from 300 on are the requests below
				t.Fatal("the transcript was never indexed")
			}
			time.Sleep(50 * time.Millisecond) // a poll interval
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":300,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":3,"character":0}}}`, uri))
		if r := p.reply(10 * time.Second); !strings.Contains(string(r.Result), "compactd") {
			t.Fatalf("hover: %+v", r)
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":301,"method":"workspace/executeCommand","params":{"command":"compactd.compact","arguments":[{"uri":%q,"strategies":["strip-tool-results","classify-tangents"]}]}}`, uri))
		if r := p.reply(60 * time.Second); r.Code != 0 || !strings.Contains(string(r.Result), "compacted") {
			t.Fatalf("compact: %+v", r)
		}
		p.send(`{"jsonrpc":"2.0","id":302,"method":"shutdown"}`)
		p.reply(10 * time.Second)
		p.send(`{"jsonrpc":"2.0","method":"exit"}`)
		if code := p.exitCode(20 * time.Second); code != 0 {
			t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr.String())
		}
		b, err := os.ReadFile(traceFile)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), storePath
	}

	t.Run("no model", func(t *testing.T) {
		trace, storePath := session(t, nil)
		if !strings.Contains(trace, "execve(\""+bin) {
			t.Fatalf("the trace does not show the server starting; is strace tracing it?\n%s", trace)
		}
		if m := inetSocket.FindAllString(trace, -1); len(m) > 0 {
			t.Errorf("compactd serve without a model opened %d network sockets:\n%s", len(m), trace)
		}
		if hits.Load() != 0 {
			t.Errorf("the model server was called %d times", hits.Load())
		}
		fi, err := os.Stat(storePath)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("store %s: %v, mode %v; want 0600", storePath, err, fi.Mode().Perm())
		}
		if di, err := os.Stat(filepath.Dir(storePath)); err != nil || di.Mode().Perm() != 0o700 {
			t.Errorf("store folder: %v, mode %v; want 0700", err, di.Mode().Perm())
		}
	})
	t.Run("model configured", func(t *testing.T) {
		trace, _ := session(t, map[string]any{
			"summarize": map[string]any{"provider": "openai", "baseUrl": model.URL + "/v1", "model": "gpt-4o-mini"},
		})
		if hits.Load() == 0 {
			t.Fatal("the configured model was never called; the converse shows nothing")
		}
		if !inetSocket.MatchString(trace) {
			t.Errorf("with a model configured the trace shows no network socket; the check cannot fail:\n%s", trace)
		}
	})
}
