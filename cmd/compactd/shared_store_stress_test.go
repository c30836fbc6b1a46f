package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/store"
)

// stressDuration is how long the shared-store scenario runs.
func stressDuration() time.Duration {
	if os.Getenv("COMPACTD_STRESS") == "1" {
		return 60 * time.Second
	}
	return 4 * time.Second
}

// appendClaudeLine appends one user record carrying marker, as Claude Code
// does: open, write one whole line, close.
func appendClaudeLine(path, sessionID, marker string) error {
	rec := map[string]any{
		"type": "user", "sessionId": sessionID, "uuid": marker, "parentUuid": nil,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message":   map[string]any{"role": "user", "content": "please note " + marker},
	}
	b, _ := json.Marshal(rec)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(b, '\n'))
	return err
}

// TestStressSharedStore: two servers and two command-line loops compact
// one transcript in one store, in place and into forks, while an agent
// appends to it. No appended line is lost (each is in the file or in a
// stored version), every stored version reads back, the store stays
// sound, nobody hangs, and the servers' memory stays bounded.
func TestStressSharedStore(t *testing.T) {
	bin := compactdBinary(t)
	envs, storePath := serveEnv(t)
	ws := filepath.Join(envs["HOME"], "ws")
	os.MkdirAll(ws, 0o755)
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 61, Turns: 12, Cwd: ws})
	path := filepath.Join(ws, "session.jsonl")
	os.WriteFile(path, data, 0o644)
	var head struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(data[:bytes.IndexByte(data, '\n')], &head)

	deadline := time.Now().Add(stressDuration())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var written []string
	refusals := map[string]int{}
	note := func(who string, err string) {
		mu.Lock()
		refusals[who+": "+firstWords(err)]++
		mu.Unlock()
	}
	// The agent.
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(15 * time.Millisecond)
		defer tick.Stop()
		for i := 0; time.Now().Before(deadline); i++ {
			<-tick.C
			marker := fmt.Sprintf("appended-%06d", i)
			if err := appendClaudeLine(path, head.SessionID, marker); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			written = append(written, marker)
			mu.Unlock()
		}
	}()
	// Two servers.
	var servers []*serveProc
	for s := 0; s < 2; s++ {
		p := spawnServe(t, bin, envs)
		servers = append(servers, p)
		p.send(initializeBody(1, ws))
		p.reply(30 * time.Second)
		p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		wg.Add(1)
		go func(s int, p *serveProc) {
			defer wg.Done()
			for id := 2; time.Now().Before(deadline); id++ {
				cmd := "compactd.compactInPlace"
				if id%3 == 0 {
					cmd = "compactd.compact"
				}
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":%q,"arguments":[{"uri":%q}]}}`, id, cmd, "file://"+path))
				if r := p.reply(60 * time.Second); r.Code != 0 {
					note(fmt.Sprintf("server %d %s", s, cmd), r.Msg)
				}
			}
		}(s, p)
	}
	// Two command-line loops.
	for c := 0; c < 2; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				args := []string{"compact", "--in-place", path}
				if (i+c)%2 == 1 {
					args = []string{"compact", path}
				}
				r := runBinary(t, bin, envs, 60*time.Second, args...)
				if r.code != 0 {
					note(fmt.Sprintf("cli %d %s", c, strings.Join(args[:len(args)-1], " ")), r.stderr)
				}
				if strings.Contains(r.stderr, "panic") {
					t.Errorf("cli panicked: %s", r.stderr)
				}
			}
		}(c)
	}
	wg.Wait()
	for i, p := range servers {
		if rss := peakRSS(t, p.cmd.Process.Pid); rss > 300<<20 {
			t.Errorf("server %d peak RSS %d MiB; want ≤ 300 MiB", i, rss>>20)
		}
	}

	ctx := context.Background()
	st, err := store.Open(ctx, storePath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if probs, err := st.IntegrityCheck(ctx); err != nil || len(probs) > 0 {
		t.Fatalf("store integrity after the run: %v %v", probs, err)
	}
	final, _ := os.ReadFile(path)
	var seen bytes.Buffer
	seen.Write(final)
	vs, err := st.AllVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		b, err := st.Content(ctx, v.ContentHash)
		if err != nil {
			t.Fatalf("%s does not read back: %v", v.Label, err)
		}
		seen.Write(b)
	}
	lost := 0
	for _, m := range written {
		if !bytes.Contains(seen.Bytes(), []byte(m)) {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d appended lines lost", lost, len(written))
	}
	t.Logf("%d lines appended, %d versions recorded, %d lost; refusals: %v", len(written), len(vs), lost, refusals)
	if len(vs) < 4 {
		t.Errorf("too little happened: %d versions", len(vs))
	}
}

func firstWords(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ":"); i > 0 && i < 60 {
		return s[:i]
	}
	if len(s) > 60 {
		return s[:60]
	}
	return s
}

// TestStressKillEveryWriter kills each writing command (compact into a
// fork, compact in place, restore in place and as a fork, doctor --fix)
// with SIGKILL at a random moment: the transcript is always one whole
// version, the store opens and passes its integrity check, and every
// stored version reads back.
func TestStressKillEveryWriter(t *testing.T) {
	bin := compactdBinary(t)
	envs, transcript, original := chaosWorkspace(t, bin)
	storePath := envs["COMPACTD_STORE"]
	commands := [][]string{
		{"compact", transcript},
		{"compact", "--in-place", transcript},
		{"restore", "--in-place", transcript, "v1"},
		{"restore", transcript, "v2"},
		{"doctor", "--fix"},
	}
	// Each command's duration bounds where the kills land.
	spans := make([]time.Duration, len(commands))
	for i, args := range commands {
		r := runBinary(t, bin, envs, 60*time.Second, args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		spans[i] = r.wall * 3 / 2
	}
	ctx := context.Background()
	known := map[string]bool{store.ContentHash(original): true}
	rng := rand.New(rand.NewSource(7))
	trials := stressTrials(10, 300)
	for trial := 0; trial < trials; trial++ {
		i := trial % len(commands)
		cmd := exec.Command(bin, commands[i]...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		for k, v := range envs {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// A random moment of the command's run: deliberate, not a wait.
		select {
		case <-done:
		case <-time.After(time.Duration(rng.Int63n(int64(spans[i])))):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
		}
		st, err := store.Open(ctx, storePath)
		if err != nil {
			t.Fatalf("trial %d (%s): the store does not open after the kill: %v", trial, commands[i][0], err)
		}
		if probs, err := st.IntegrityCheck(ctx); err != nil || len(probs) > 0 {
			st.Close()
			t.Fatalf("trial %d (%s): integrity after the kill: %v %v", trial, commands[i][0], probs, err)
		}
		vs, _ := st.AllVersions(ctx)
		for _, v := range vs {
			if known[v.ContentHash] {
				continue
			}
			if _, err := st.Content(ctx, v.ContentHash); err != nil {
				st.Close()
				t.Fatalf("trial %d: %s does not read back: %v", trial, v.Label, err)
			}
			known[v.ContentHash] = true
		}
		st.Close()
		now, _ := os.ReadFile(transcript)
		if !known[store.ContentHash(now)] {
			t.Fatalf("trial %d (%s): the transcript is not a whole stored version (%d bytes)", trial, strings.Join(commands[i], " "), len(now))
		}
	}
}
