package jobs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/store"
)

// An agent appends lines to its transcript the way agents do (open,
// write one whole line, close), each with a marker, while compactions
// run; for Claude Code each line names the agent's previous line as its
// parent, as Claude Code does, whatever a compaction did to the file.
type agent interface {
	line(i int) []byte
}

type claudeAgent struct {
	session, cwd, parent string
}

func (a *claudeAgent) line(i int) []byte {
	id := uuid4()
	role, body := "user", fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"appended-%06d: go on"}]}`, i)
	if i%2 == 1 {
		role = "assistant"
		body = fmt.Sprintf(`{"id":"msg_app%06d","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"appended-%06d: done"}],"usage":{"input_tokens":9,"output_tokens":3}}`, i, i)
	}
	l := fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.0.42","type":%q,"message":%s,"uuid":%q,"timestamp":"2025-11-17T10:00:00.000Z"}`+"\n",
		a.parent, a.cwd, a.session, role, body, id)
	a.parent = id
	return []byte(l)
}

type codexAgent struct{}

func (codexAgent) line(i int) []byte {
	role, kind := "user", "input_text"
	if i%2 == 1 {
		role, kind = "assistant", "output_text"
	}
	return []byte(fmt.Sprintf(`{"timestamp":"2025-11-17T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":%q,"content":[{"type":%q,"text":"appended-%06d"}]}}`+"\n", role, kind, i))
}

func uuid4() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

var markerRE = regexp.MustCompile(`appended-(\d{6})`)

func marker(digits []byte) int {
	n, _ := strconv.Atoi(string(digits))
	return n
}

// TestConcurrentAppendClaudeCode and TestConcurrentAppendCodex run the
// real pipeline and codecs, in place and as forks, under an appending
// agent: no appended line is lost (each is in the file or in a source
// version a compaction read), and each one in the file is on the
// conversation the codec reads (for Claude Code: attached to the chain).
func TestConcurrentAppendClaudeCode(t *testing.T) {
	root := isolate(t)
	dir := filepath.Join(root, "proj")
	path, data := claudeSession(t, dir, 41, 6)
	tr := parse(t, path, data)
	leaf := ""
	for i := len(tr.Records) - 1; i >= 0 && leaf == ""; i-- {
		leaf = tr.Records[i].ID
	}
	concurrentAppend(t, path, &claudeAgent{session: tr.Meta.SessionID, cwd: tr.Meta.Cwd, parent: leaf})
}

func TestConcurrentAppendCodex(t *testing.T) {
	root := isolate(t)
	dir := filepath.Join(root, "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rollout-2025-11-17T09-30-00-0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl")
	if err := os.WriteFile(path, sessiongen.Codex(sessiongen.Options{Seed: 42, Turns: 6}), 0o644); err != nil {
		t.Fatal(err)
	}
	concurrentAppend(t, path, codexAgent{})
}

func concurrentAppend(t *testing.T, path string, a agent) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, os.Getenv("COMPACTD_STORE"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := New(s) // the real pipeline and codecs
	duration, minRuns := 3*time.Second, 6
	switch {
	case os.Getenv("COMPACTD_STRESS") == "1":
		minRuns = 1000
	case testing.Short():
		duration = time.Second
	}
	var mu sync.Mutex
	written := 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			// Opened as the agents open it (Node's libuv and Rust share
			// delete on Windows, so a rename never refuses them).
			f, err := platform.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := f.Write(a.line(i)); err != nil {
				t.Error(err)
			}
			f.Close()
			mu.Lock()
			written = i + 1
			mu.Unlock()
		}
	})
	deadline := time.Now().Add(duration)
	runs := 0
	opts := strategy.Options{Strategies: []string{strategy.StrategyTurnWindow}, Turns: 3}
	for runs < minRuns || time.Now().Before(deadline) {
		if _, err := r.Compact(ctx, Request{Path: path, InPlace: runs%2 == 0, Options: opts}); err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("compaction %d: %v", runs, err)
		}
		runs++
	}
	close(stop)
	wg.Wait()

	final, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, m := range markerRE.FindAllSubmatch(final, -1) {
		seen[marker(m[1])] = true
	}
	inFile := len(seen)

	vs, err := s.AllVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Kind != store.KindSource {
			continue
		}
		b, err := s.Content(ctx, v.ContentHash)
		if err != nil {
			t.Fatalf("%s: %v", v.Label, err)
		}

		for _, m := range markerRE.FindAllSubmatch(b, -1) {
			seen[marker(m[1])] = true
		}
	}
	lost := 0
	for i := 0; i < written; i++ {
		if !seen[i] {
			lost++
			if lost <= 5 {
				t.Errorf("appended line %d was lost", i)
			}
		}
	}
	// Every appended line in the file is part of the conversation the
	// codec reads (for Claude Code: on the chain to the leaf).
	tr := parse(t, path, final)
	visible := map[int]bool{}
	for _, m := range tr.Messages {
		for _, p := range m.Parts {
			if sm := markerRE.FindStringSubmatch(p.Text); sm != nil {
				visible[marker([]byte(sm[1]))] = true
			}
		}
	}
	detached := 0
	for _, line := range bytes.Split(final, []byte("\n")) {
		sm := markerRE.FindSubmatch(line)
		if sm == nil || !isConversationLine(line) {
			continue
		}
		n := marker(sm[1])
		if !visible[n] {
			detached++
			if detached <= 5 {
				t.Errorf("appended line %d is in the file but not in the conversation (detached from the chain)", n)
			}
		}
	}
	if written < 20 || runs < 2 {
		t.Errorf("too little happened: %d lines, %d compactions", written, runs)
	}
	t.Logf("%s: %d lines appended during %d compactions (%d in the file at the end); %d lost, %d detached",
		tr.Format, written, runs, inFile, lost, detached)
}

// isConversationLine reports whether an appended line is one the agent
// wrote (not a compaction summary quoting it).
func isConversationLine(line []byte) bool {
	var probe struct {
		Type    string          `json:"type"`
		Summary bool            `json:"isCompactSummary"`
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(line, &probe) != nil || probe.Summary {
		return false
	}
	return probe.Type == "user" || probe.Type == "assistant" || (probe.Type == "response_item" && bytes.Contains(probe.Payload, []byte(`"type":"message"`)))
}
