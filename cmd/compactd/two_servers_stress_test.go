package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/compactd/compactd/daemon/store"
)

// stressRounds is how many rounds the two-servers scenario runs: at least
// 100 for `make stress`, a few otherwise.
func stressRounds() int {
	if os.Getenv("COMPACTD_STRESS") == "1" {
		return 100
	}
	return 4
}

// answerWithin is how long a command may take to answer under load
// before it counts as unanswered; one still unanswered after hangAfter
// is a hang. A round waits for its late answers (up to hangAfter) before
// the next: abandoning them would pile work up in the servers.
const (
	answerWithin = 30 * time.Second
	hangAfter    = 10 * time.Minute
)

// TestBusyHelper is no test: the stress tests run it as a process that
// keeps one core busy until they kill it.
func TestBusyHelper(t *testing.T) {
	if os.Getenv("COMPACTD_BUSY_HELPER") != "1" {
		t.Skip("a helper process of the stress tests")
	}
	for n := uint64(1); ; n = n*6364136223846793005 + 1442695040888963407 {
		_ = n
	}
}

// cpuPressure starts n processes that each keep a core busy, until the
// test ends.
func cpuPressure(t *testing.T, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBusyHelper$")
		cmd.Env = append(os.Environ(), "COMPACTD_BUSY_HELPER=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
	}
}

// stressSession is a transcript of one agent that an agent keeps
// appending to.
type stressSession struct {
	name, path string
	// line is one record the agent appends, carrying marker.
	line func(marker string) []byte
}

func marshalLine(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

func stressSessions(t *testing.T, ws string) []stressSession {
	t.Helper()
	now := func() string { return time.Now().UTC().Format(time.RFC3339Nano) }
	copyIn := func(from, name string) string {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(ws, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	claude := copyIn(filepath.Join("testdata", "gauge", "claude-session.jsonl"), "claude-session.jsonl")
	codex := copyIn(filepath.Join("testdata", "gauge", "codex-session.jsonl"), "rollout-2025-11-17T09-30-02-743a6a45-51a9-4830-b901-5ec7f256d640.jsonl")
	gemini := copyIn(filepath.Join("testdata", "stress", "gemini-v0.61-session.jsonl"), "session-2026-05-20T10-00-5b9e2c71.jsonl")
	var claudeHead struct {
		SessionID string `json:"sessionId"`
	}
	b, _ := os.ReadFile(claude)
	json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &claudeHead)
	return []stressSession{
		{"claude", claude, func(m string) []byte {
			return marshalLine(map[string]any{"type": "user", "sessionId": claudeHead.SessionID, "uuid": m, "parentUuid": nil, "timestamp": now(),
				"message": map[string]any{"role": "user", "content": "please note " + m}})
		}},
		{"codex", codex, func(m string) []byte {
			return marshalLine(map[string]any{"timestamp": now(), "type": "response_item",
				"payload": map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "please note " + m}}}})
		}},
		{"gemini", gemini, func(m string) []byte {
			return marshalLine(map[string]any{"id": m, "timestamp": now(), "type": "user", "content": []any{map[string]any{"text": "please note " + m}}})
		}},
	}
}

// appendLine appends one whole line, as the agents do: open, write, close.
func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (p *serveProc) trySend(body string) error {
	_, err := p.stdin.Write([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)))
	return err
}

func (p *serveProc) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// router lets several requests to one server be in flight: it writes
// whole frames one at a time and hands each response to the request with
// its id, answering the server's own requests on the way.
type router struct {
	p       *serveProc
	writeMu sync.Mutex
	mu      sync.Mutex
	waiting map[string]chan lspReply
	gone    chan struct{} // closed when the server's stdout ends
}

func route(p *serveProc) *router {
	r := &router{p: p, waiting: map[string]chan lspReply{}, gone: make(chan struct{})}
	go func() {
		defer close(r.gone)
		for m := range p.frames {
			if _, isReq := m["method"]; isReq {
				if id, ok := m["id"]; ok {
					r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, id))
				}
				continue
			}
			rep := lspReply{ID: m["id"], Result: m["result"]}
			if e, ok := m["error"]; ok {
				var ee struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				}
				_ = json.Unmarshal(e, &ee)
				rep.Code, rep.Msg = ee.Code, ee.Message
			}
			r.mu.Lock()
			ch := r.waiting[string(rep.ID)]
			delete(r.waiting, string(rep.ID))
			r.mu.Unlock()
			if ch != nil {
				ch <- rep
			}
		}
	}()
	return r
}

func (r *router) send(body string) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	return r.p.trySend(body)
}

// call sends a request with id and waits for its response; why says why
// none came ("exited", "no answer within …").
func (r *router) call(id int, method, params string, timeout time.Duration) (rep lspReply, why string) {
	ch := make(chan lspReply, 1)
	key := fmt.Sprint(id)
	r.mu.Lock()
	r.waiting[key] = ch
	r.mu.Unlock()
	if err := r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)); err != nil {
		return rep, "exited"
	}
	select {
	case rep = <-ch:
		return rep, ""
	case <-r.gone:
		return rep, "exited"
	case <-time.After(timeout):
		return rep, fmt.Sprintf("no answer within %s", timeout)
	}
}

// stressTally is what the rounds saw.
type stressTally struct {
	mu                             sync.Mutex
	requests, answered, unanswered int
	hung                           int // no answer: the server went away, or none within hangAfter
	refusals                       map[string]int
	busy                           int            // answers that say the store was locked
	panicked                       int            // answers that report a panic
	succeeded                      map[string]int // commands answered without an error, by command
	lines                          int
	slowest                        time.Duration
	// took is how long each command took to answer, by round: whether
	// answers slow down as the transcripts, forks and store grow.
	took [][]time.Duration
}

func (s *stressTally) note(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// TestStressTwoServersOneStore is the hostile-world scenario of issue 27:
// two compactd serve on one store compact the same and different
// transcripts of Claude Code, Codex and Gemini CLI — into forks, in
// place, and dry runs — through workspace/executeCommand, while an agent
// appends to each transcript, under CPU pressure (as many busy processes
// as cores). Every command answers within 30 s, nothing panics, neither
// server exits before it is told to, and no appended line is lost: each
// is in its transcript or in a stored version. `make stress` runs it for
// 100 rounds, with the servers built with and without -race.
func TestStressTwoServersOneStore(t *testing.T) {
	bin := compactdBinary(t)
	envs, storePath := serveEnv(t)
	ws := filepath.Join(envs["HOME"], "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	sessions := stressSessions(t, ws)
	cpuPressure(t, runtime.NumCPU())

	tally := &stressTally{refusals: map[string]int{}, succeeded: map[string]int{}}
	written := map[string][]string{}
	stop := make(chan struct{})
	var appender sync.WaitGroup
	// The agent appends linesPerRound lines each round, one every 10 ms
	// from the round's start, while the commands run: the transcripts
	// grow with the rounds, not with how slow the machine is.
	const linesPerRound = 60
	var budget atomic.Int64
	appender.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if budget.Load() <= 0 {
				continue
			}
			budget.Add(-1)
			i++
			s := sessions[i%len(sessions)]
			marker := fmt.Sprintf("appended-%s-%06d", s.name, i)
			if err := appendLine(s.path, s.line(marker)); err != nil {
				t.Error(err)
				return
			}
			tally.note(func() { written[s.path] = append(written[s.path], marker); tally.lines++ })
		}
	})

	servers := make([]*serveProc, 2)
	routers := make([]*router, 2)
	for i := range servers {
		p := spawnServe(t, bin, envs)
		r := route(p)
		if rep, why := r.call(1, "initialize", fmt.Sprintf(`{"processId":%d,"rootUri":%q,"capabilities":{}}`, os.Getpid(), string(uri.File(ws))), answerWithin); why != "" || rep.Code != 0 {
			t.Fatalf("server %d: initialize: %s %+v; stderr:\n%s", i, why, rep, p.stderr.String())
		}
		r.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		servers[i], routers[i] = p, r
	}

	// Each round, each server gets one command on each transcript at
	// once — a compaction into a fork, one in place, a dry run, in turn —
	// so both servers work on the same transcripts and on different ones.
	commands := []string{"compactd.compact", "compactd.compactInPlace", "compactd.dryRun"}
	rounds := stressRounds()
	tally.took = make([][]time.Duration, rounds)
	start := time.Now()
	id := 1
	for round := 0; round < rounds; round++ {
		budget.Add(linesPerRound)
		var wg sync.WaitGroup
		for s, r := range routers {
			for j, sess := range sessions {
				cmd := commands[(round+s+j)%len(commands)]
				id++
				reqID := id
				params := fmt.Sprintf(`{"command":%q,"arguments":[{"uri":%q}]}`, cmd, string(uri.File(sess.path)))
				wg.Go(func() {
					sent := time.Now()
					rep, why := r.call(reqID, "workspace/executeCommand", params, hangAfter)
					took := time.Since(sent)
					tally.note(func() {
						tally.requests++
						tally.slowest = max(tally.slowest, took)
						tally.took[round] = append(tally.took[round], took)
						if took > answerWithin {
							tally.unanswered++
							t.Errorf("round %d, server %d, %s on %s: answered after %v", round, s, cmd, sess.name, took.Round(100*time.Millisecond))
						}
						switch {
						case why != "":
							tally.hung++
							t.Errorf("round %d, server %d, %s on %s: %s", round, s, cmd, sess.name, why)
						case rep.Code != 0:
							tally.answered++
							tally.refusals[fmt.Sprintf("%s on %s: %s", cmd, sess.name, firstWords(rep.Msg))]++
							if strings.Contains(rep.Msg, "database is locked") || strings.Contains(rep.Msg, "SQLITE_BUSY") {
								tally.busy++
							}
							// A recovered panic answers "… stopped on an internal
							// error (…)" (a job) or "internal error in …" (a handler).
							if strings.Contains(rep.Msg, "internal error") || strings.Contains(rep.Msg, "panic") {
								tally.panicked++
							}
						default:
							tally.answered++
							tally.succeeded[cmd]++
						}
					})
				})
			}
		}
		wg.Wait()
	}
	elapsed := time.Since(start)
	close(stop)
	appender.Wait()

	exits, panics, races, busyLogs := 0, 0, 0, 0
	for i, p := range servers {
		log := p.stderr.String()
		if p.hasExited() {
			exits++
			t.Errorf("server %d exited during the run: %v; stderr:\n%s", i, p.err, tail(log, 4000))
		} else {
			if rep, why := routers[i].call(999999, "shutdown", "null", answerWithin); why != "" || rep.Code != 0 {
				t.Errorf("server %d: shutdown: %s %+v", i, why, rep)
			}
			routers[i].send(`{"jsonrpc":"2.0","method":"exit"}`)
			if code := p.exitCode(answerWithin); code != 0 {
				exits++
				t.Errorf("server %d: exit code %d after shutdown", i, code)
			}
			log = p.stderr.String()
		}
		if strings.Contains(log, "panic") || strings.Contains(log, "fatal error:") {
			panics++
			t.Errorf("server %d logged a panic:\n%s", i, tail(log, 4000))
		}
		if strings.Contains(log, "WARNING: DATA RACE") {
			races++
			t.Errorf("server %d: data race:\n%s", i, tail(log[strings.Index(log, "WARNING: DATA RACE"):], 6000))
		}
		busyLogs += strings.Count(log, "SQLITE_BUSY") + strings.Count(log, "database is locked")
	}

	lost := stressLost(t, storePath, written)
	var refusals []string
	for k, n := range tally.refusals {
		refusals = append(refusals, fmt.Sprintf("%d× %s", n, k))
	}
	sort.Strings(refusals)
	refused := 0
	for _, n := range tally.refusals {
		refused += n
	}
	t.Logf("%d rounds in %v under %d busy processes (load average %s at the end): %d requests, %d answered (%d refused), %d not within %s (slowest answer %v), %d never answered (server gone, or none within %s); %d panics (%d reported), %d server exits, %d data races; store busy: %d answers, %d log lines; %d lines appended, %d lost; refusals: %s",
		rounds, elapsed.Round(time.Second), runtime.NumCPU(), loadAverage(), tally.requests, tally.answered, refused, tally.unanswered, answerWithin, tally.slowest.Round(100*time.Millisecond), tally.hung, hangAfter,
		panics+tally.panicked, tally.panicked, exits, races, tally.busy, busyLogs, tally.lines, lost, strings.Join(refusals, "; "))
	t.Logf("answer times by round (median / 95th percentile / slowest): %s", latencyByRounds(tally.took))
	if tally.panicked > 0 {
		t.Errorf("%d commands answered with a panic", tally.panicked)
	}
	if tally.unanswered > 0 || tally.hung > 0 {
		t.Errorf("%d of %d commands got no answer within %s, %d none at all (server gone, or none within %s)", tally.unanswered, tally.requests, answerWithin, tally.hung, hangAfter)
	}
	if lost > 0 {
		t.Errorf("%d of %d appended lines lost", lost, tally.lines)
	}
	// Refusing every command would pass the zeros above and serve no one:
	// each command must do its work at least once.
	for _, cmd := range commands {
		if tally.succeeded[cmd] == 0 {
			t.Errorf("%s never succeeded", cmd)
		}
	}
}

// stressLost counts the markers found neither in their transcript nor in
// any stored version, and checks the store is sound and every version
// reads back.
func stressLost(t *testing.T, storePath string, written map[string][]string) int {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storePath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if probs, err := st.IntegrityCheck(ctx); err != nil || len(probs) > 0 {
		t.Fatalf("store integrity after the run: %v %v", probs, err)
	}
	// The markers each version and transcript holds, read once each:
	// searching all of them for every marker took minutes.
	seen := map[string]bool{}
	note := func(b []byte) {
		for {
			i := bytes.Index(b, []byte("appended-"))
			if i < 0 {
				return
			}
			b = b[i:]
			end := bytes.IndexFunc(b, func(r rune) bool { return r != '-' && (r < 'a' || r > 'z') && (r < '0' || r > '9') })
			if end < 0 {
				end = len(b)
			}
			seen[string(b[:end])] = true
			b = b[end:]
		}
	}
	vs, err := st.AllVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		b, err := st.Content(ctx, v.ContentHash)
		if err != nil {
			t.Fatalf("%s does not read back: %v", v.Label, err)
		}
		note(b)
	}
	lost := 0
	for path, markers := range written {
		final, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		note(final)
		for _, m := range markers {
			if !seen[m] {
				lost++
			}
		}
	}
	return lost
}

// latencyByRounds sums up answer times in up to four spans of rounds.
func latencyByRounds(took [][]time.Duration) string {
	span := max(1, (len(took)+3)/4)
	var parts []string
	for from := 0; from < len(took); from += span {
		to := min(from+span, len(took))
		var all []time.Duration
		for _, r := range took[from:to] {
			all = append(all, r...)
		}
		if len(all) == 0 {
			continue
		}
		slices.Sort(all)
		at := func(q float64) time.Duration { return all[int(q*float64(len(all)-1))].Round(100 * time.Millisecond) }
		parts = append(parts, fmt.Sprintf("rounds %d–%d: %v / %v / %v", from+1, to, at(0.5), at(0.95), at(1)))
	}
	return strings.Join(parts, "; ")
}

// loadAverage is the machine's 1-minute load average, for the log: what
// else ran beside the test.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
