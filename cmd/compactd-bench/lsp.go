package main

// The lsp section measures compactd serve the way an editor sees it: the
// built binary (bin/compactd, built into the temp dir when missing), run as
// `compactd serve` with every home and state directory in a temp dir, and a
// real jsonrpc2 client speaking LSP to it over its stdio.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/lsp"
)

func init() {
	register(section{
		Name:    "lsp",
		Summary: "compactd serve over stdio: RSS while watching 1 GB of transcripts, cold-scan CPU, restart tokenization",
		Run:     benchLSP,
	})
}

// serverBinary returns the compactd binary to spawn: bin/compactd under
// the repository root (`make bench` builds it first), else one built now
// into the bench's temp dir.
func serverBinary(ctx context.Context, cfg *config) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(root, "bin", "compactd")
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		cfg.logf("lsp: server %s (built %s)", bin, fi.ModTime().Format(time.RFC3339))
		if src := newestSource(root); src.After(fi.ModTime()) {
			// make bench builds it first; a section run alone may not.
			cfg.logf("lsp: WARNING: %s is older than the sources (changed %s): these figures are not the code's; run make build", bin, src.Format(time.RFC3339))
		}
		return bin, nil
	}
	bin = filepath.Join(cfg.TempDir, "compactd")
	cfg.logf("lsp: bin/compactd is missing; building %s", bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/compactd")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build compactd: %w\n%s", err, out)
	}
	return bin, nil
}

// newestSource is when a Go file of the server last changed.
func newestSource(root string) time.Time {
	var newest time.Time
	for _, dir := range []string{"cmd", "compaction", "daemon", "lsp"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, de fs.DirEntry, err error) error {
			if err == nil && !de.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				if fi, err := de.Info(); err == nil && fi.ModTime().After(newest) {
					newest = fi.ModTime()
				}
			}
			return nil
		})
	}
	return newest
}

// repoRoot walks up from the working directory to compactd's go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/compactd/compactd\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the compactd repository (go.mod) above the working directory; run from the repository")
		}
		dir = parent
	}
}

// serverEnv points every directory the server could read or write at the
// bench's temp dir, so it never sees the real home.
func serverEnv(cfg *config, storePath string) []string {
	home := filepath.Join(cfg.TempDir, "home")
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COMPACTD_STORE", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "CODEX_HOME="+filepath.Join(home, ".codex"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"), "COMPACTD_STORE="+storePath)
}

// child is a running server and the client connected to it.
type child struct {
	cmd  *exec.Cmd
	conn jsonrpc2.Conn

	mu     sync.Mutex
	gauges []gaugeSeen
	wake   chan struct{}
}

type gaugeSeen struct {
	at time.Time
	g  lsp.Gauge
}

func startChild(ctx context.Context, cfg *config, bin, ws, storePath string) (*child, error) {
	level := "warn"
	if l := os.Getenv("COMPACTD_BENCH_LOG_LEVEL"); l != "" {
		level = l // the server's log, on stderr, to see what an append cost
	}
	cmd := exec.CommandContext(ctx, bin, "serve", "--log-level", level)
	cmd.Env = serverEnv(cfg, storePath)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, wake: make(chan struct{}, 1)}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin}))
	c.conn.Go(ctx, c.handle)
	var res protocol.InitializeResult
	folder := string(uri.File(ws))
	if _, err := c.conn.Call(ctx, protocol.MethodInitialize, map[string]any{
		"processId": os.Getpid(), "rootUri": folder,
		"workspaceFolders": []map[string]string{{"uri": folder, "name": "bench"}},
		"capabilities":     map[string]any{"window": map[string]any{"workDoneProgress": true}},
	}, &res); err != nil {
		c.stop()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := c.conn.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

func (c *child) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if req.Method() == "compactd/gauge" {
		var g lsp.Gauge
		if json.Unmarshal(req.Params(), &g) == nil {
			c.mu.Lock()
			c.gauges = append(c.gauges, gaugeSeen{at: time.Now(), g: g})
			c.mu.Unlock()
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
	}
	_ = reply(ctx, nil, nil) // an error returned here panics jsonrpc2 v0.10.0 when the read error differs in type
	return nil
}

// waitGauge waits for a gauge of u that arrived after since and satisfies ok.
func (c *child) waitGauge(ctx context.Context, u protocol.DocumentURI, since time.Time, timeout time.Duration, ok func(lsp.Gauge) bool) (gaugeSeen, error) {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		for _, s := range c.gauges {
			if s.g.URI == u && !s.at.Before(since) && (ok == nil || ok(s.g)) {
				c.mu.Unlock()
				return s, nil
			}
		}
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-deadline:
			return gaugeSeen{}, fmt.Errorf("no gauge for %s within %s", u, timeout)
		case <-ctx.Done():
			return gaugeSeen{}, ctx.Err()
		}
	}
}

// latestGauge returns the last gauge seen for u.
func (c *child) latestGauge(u protocol.DocumentURI) (gaugeSeen, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.gauges) - 1; i >= 0; i-- {
		if c.gauges[i].g.URI == u {
			return c.gauges[i], true
		}
	}
	return gaugeSeen{}, false
}

func (c *child) stats(ctx context.Context) (lsp.Stats, error) {
	var s lsp.Stats
	_, err := c.conn.Call(ctx, "compactd/stats", nil, &s)
	return s, err
}

// waitScan polls until the cold scan is done and returns its wall time.
func (c *child) waitScan(ctx context.Context, timeout time.Duration) (lsp.Stats, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, err := c.stats(ctx)
		if err != nil {
			return s, err
		}
		if s.ScanDone {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, errors.New("the cold scan did not finish in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *child) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = c.conn.Call(ctx, protocol.MethodShutdown, nil, nil)
	_ = c.conn.Notify(ctx, protocol.MethodExit, nil)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		_ = c.cmd.Process.Kill()
	}
	_ = c.conn.Close()
}

// procStatus reads a field (kB) of /proc/<pid>/status.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				return strconv.ParseInt(f[1], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// loadAverage is the 1-minute load average (/proc/loadavg), the context
// for any CPU figure on a shared machine.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// cpuTime is the process's user+system CPU time (/proc/<pid>/stat).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces) start after ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100, nil // USER_HZ is 100 on Linux
}

func benchLSP(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return benchLSPWatch(ctx, cfg, bin)
}

// percentile returns the q-quantile of d (nearest rank; sorts d).
func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(math.Ceil(q*float64(len(d)))) - 1
	return d[min(max(i, 0), len(d)-1)]
}

func sizeName(n int) string { return fmt.Sprintf("%d MB", n>>20) }

// benchLSPWatch: RSS while watching 1 GB of transcripts, the cold scan's
// CPU/wall ratio (both cores busy), and a restart with the store present.
func benchLSPWatch(ctx context.Context, cfg *config, bin string) ([]row, error) {
	files, each, total := 40, 25<<20, "1 GB"
	if cfg.Quick {
		files, each, total = 10, 10<<20, "100 MB"
	}
	ws := filepath.Join(cfg.TempDir, "watch")
	for i := range files {
		dir := filepath.Join(ws, fmt.Sprintf("p%02d", i%4))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		data := sessiongen.ClaudeCode(sessiongen.Options{Seed: uint64(100 + i), TargetBytes: each, Cwd: ws})
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i)), data, 0o644); err != nil {
			return nil, err
		}
	}
	defer os.RemoveAll(ws)
	storePath := filepath.Join(cfg.TempDir, "watch-store.db")
	// The cold scan is timed from the spawn: wall and CPU both include
	// start-up (loading the BPE ranks), as a user's editor sees it.
	load0 := loadAverage()
	t0 := time.Now()
	c, err := startChild(ctx, cfg, bin, ws, storePath)
	if err != nil {
		return nil, err
	}
	pid := c.cmd.Process.Pid
	st, err := c.waitScan(ctx, 30*time.Minute)
	if err != nil {
		c.stop()
		return nil, err
	}
	wall := time.Since(t0)
	cpu1, _ := cpuTime(pid)
	load1 := loadAverage()
	time.Sleep(2 * time.Second) // let the heap settle after the scan
	rss, _ := procStatus(pid, "VmRSS")
	peak, _ := procStatus(pid, "VmHWM")
	c.stop()
	cpuRatio := float64(cpu1) / float64(wall)
	cfg.logf("lsp: cold scan of %s (%d transcripts): %v wall, %v CPU; RSS %d MB (peak %d MB); %d bytes tokenized; load %s → %s",
		total, st.Transcripts, wall.Round(time.Millisecond), cpu1.Round(time.Millisecond), rss>>10, peak>>10, st.BytesTokenized, load0, load1)

	t1 := time.Now()
	c2, err := startChild(ctx, cfg, bin, ws, storePath)
	if err != nil {
		return nil, err
	}
	st2, err := c2.waitScan(ctx, 30*time.Minute)
	restart := time.Since(t1)
	c2.stop()
	if err != nil {
		return nil, err
	}
	cfg.logf("lsp: restart with the store: scan %v, %d bytes tokenized, %d transcripts", restart.Round(time.Millisecond), st2.BytesTokenized, st2.Transcripts)
	return []row{
		{Name: fmt.Sprintf("RSS after indexing %s of transcripts (%d files)", total, st.Transcripts), Value: fmt.Sprintf("%d MB", rss>>10), Anchor: "≤ 150 MB", Pass: rss>>10 <= 150},
		{Name: "peak RSS during the cold scan", Value: fmt.Sprintf("%d MB", peak>>10)},
		{Name: fmt.Sprintf("cold scan CPU time / wall time (%s, from spawn)", total), Value: fmt.Sprintf("%.2f (%v / %v)", cpuRatio, cpu1.Round(time.Millisecond), wall.Round(time.Millisecond)), Anchor: "≥ 1.6 (both cores busy)", Pass: cpuRatio >= 1.6},
		{Name: "bytes tokenized on restart with the store", Value: fmt.Sprintf("%s (%d of %d transcripts back)", tokens.Thousands(int(st2.BytesTokenized)), st2.Transcripts, st.Transcripts), Anchor: "= 0", Pass: st2.BytesTokenized == 0 && st2.Transcripts == st.Transcripts},
		{Name: "bytes tokenized on the first scan", Value: tokens.Thousands(int(st.BytesTokenized))},
		{Name: "restart with the store: spawn to scan done", Value: seconds(restart)},
		{Name: "machine load average (1 min) at cold scan start → end", Value: load0 + " → " + load1},
	}, nil
}
