package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/copilotcli"
)

// copilotListing is the sessions Copilot CLI lists under home, as its
// runtime's session_directory_files_with_metadata (the @github/copilot
// 1.0.52 package, called on such a folder) lists them: every folder of
// session-state holding an events.jsonl, the folder's name being the
// session's id. A file beside events.jsonl (compactd's forks once were
// events.compactd-vN.jsonl) and a loose file are not sessions.
func copilotListing(t *testing.T, home string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(home, "session-state"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if fi, err := os.Stat(filepath.Join(home, "session-state", e.Name(), "events.jsonl")); e.IsDir() && err == nil && fi.Mode().IsRegular() {
			ids = append(ids, e.Name())
		}
	}
	return ids
}

// copilotStart is the session.start event's data of the events at path.
func copilotStart(t *testing.T, path string) map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(line, &ev); err != nil || ev.Type != "session.start" {
		t.Fatalf("%s starts with %.200s (%v), not a session.start", path, line, err)
	}
	return ev.Data
}

// TestCopilotCLIForkIsASessionItLists is issue 34's Copilot CLI fork: a
// fork of session-state/<id>/events.jsonl was written beside it as
// events.compactd-vN.jsonl, which Copilot CLI never lists. It is now a
// session of its own, as the agent's own /fork makes one: a new folder
// beside the source's named by a new id, its events.jsonl starting with a
// session.start of that id, and compact prints `copilot --resume <id>`.
// The sessions are the codec's fixture and, when the forward corpus is at
// hand ($COMPACTD_FORWARD_SESSIONS), the real Copilot CLI sessions in it
// (1.0.40–1.0.74), each laid out as the agent lays it out. The agent
// itself cannot run here (it needs a GitHub sign-in): its listing rule is
// the proof, not a resume.
func TestCopilotCLIForkIsASessionItLists(t *testing.T) {
	sources := []string{filepath.Join("..", "..", "compaction", "format", "copilotcli", "testdata", "events.jsonl")}
	if root := os.Getenv("COMPACTD_FORWARD_SESSIONS"); root != "" {
		real, _ := filepath.Glob(filepath.Join(root, "*", "copilot", "*.jsonl"))
		if testing.Short() && len(real) > 1 {
			real = real[:1]
		}
		sources = append(sources, real...)
	}
	for _, src := range sources {
		t.Run(filepath.Base(src), func(t *testing.T) {
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			envs := isolatedEnv(t)
			home := filepath.Join(envs["HOME"], ".copilot")
			envs["COPILOT_HOME"] = home
			tmp := filepath.Join(t.TempDir(), "events.jsonl")
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			id, _ := copilotStart(t, tmp)["sessionId"].(string)
			if id == "" {
				t.Fatal("the source's session.start names no sessionId")
			}
			path := filepath.Join(home, "session-state", id, "events.jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			cwd, _ := copilotcli.Cwd(path)

			seen := []string{id}
			from := path
			for round := range 2 { // a fork, then a fork of the fork
				code, stdout, stderr := runCLI(t, envs, "compact", "--json", from)
				if code != 0 {
					t.Fatalf("round %d: compact: exit %d: %s", round, code, stderr)
				}
				var res struct {
					ForkPath, Session, Resume string
				}
				if err := json.Unmarshal([]byte(stdout), &res); err != nil {
					t.Fatalf("compact --json: %v\n%s", err, stdout)
				}
				if _, err := uuid.Parse(res.Session); err != nil || slices.Contains(seen, res.Session) {
					t.Fatalf("round %d: the fork's session id %q: want a new UUID (sessions so far %v)", round, res.Session, seen)
				}
				if want := filepath.Join(home, "session-state", res.Session, "events.jsonl"); res.ForkPath != want {
					t.Fatalf("round %d: fork written at %s; want %s, a session folder of its own", round, res.ForkPath, want)
				}
				seen = append(seen, res.Session)
				if got := copilotListing(t, home); !sameSet(got, seen) {
					t.Fatalf("round %d: Copilot CLI lists %v; want %v", round, got, seen)
				}
				start := copilotStart(t, res.ForkPath)
				if start["sessionId"] != res.Session {
					t.Fatalf("round %d: the fork's session.start names %v, its folder %s", round, start["sessionId"], res.Session)
				}
				if inUse, ok := start["alreadyInUse"]; ok && inUse != false {
					t.Fatalf("round %d: the fork starts alreadyInUse=%v", round, inUse)
				}
				if _, ok := start["remoteSteerable"]; ok {
					t.Fatalf("round %d: the fork keeps the source's remoteSteerable", round)
				}
				want := "copilot --resume " + agents.ShellQuote(res.Session)
				if cwd != "" {
					want = "cd " + agents.ShellQuote(cwd) + " && " + want
				}
				if res.Resume != want {
					t.Fatalf("round %d: resume command %q, want %q", round, res.Resume, want)
				}
				fork, err := os.ReadFile(res.ForkPath)
				if err != nil {
					t.Fatal(err)
				}
				c, err := format.Detect(res.ForkPath, fork)
				if err != nil || c.Format() != transcript.FormatCopilotCLI {
					t.Fatalf("round %d: the fork is detected as %v (%v)", round, c, err)
				}
				if tr, err := c.Parse(fork); err != nil || len(tr.Messages) == 0 {
					t.Fatalf("round %d: the fork does not read: %v", round, err)
				}
				if !copilotcli.Agent.Session(res.ForkPath, nil) {
					t.Fatalf("round %d: compactd does not take its own fork for a Copilot CLI session", round)
				}
				from = res.ForkPath
			}
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(after, data) {
				t.Fatalf("the source changed (%v)", err)
			}
			if names, _ := os.ReadDir(filepath.Dir(path)); len(names) != 1 {
				t.Fatalf("the source's folder holds %d entries; compactd wrote beside the source", len(names))
			}
		})
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestCopilotCLIAgentCompactionCommands: Copilot CLI's own compaction is
// in the ledger — history lists it, restore a1 writes the session as it
// was before it as a session of its own the agent lists, compact --before
// a1 compacts that history.
func TestCopilotCLIAgentCompactionCommands(t *testing.T) {
	envs := isolatedEnv(t)
	home := filepath.Join(envs["HOME"], ".copilot")
	envs["COPILOT_HOME"] = home
	id := "2c4e6a8b-1d3f-4a5c-9e7b-0f2d4c6e8a1b"
	var events bytes.Buffer
	parent := any(nil)
	add := func(typ string, data map[string]any) {
		n := events.Len()
		ev := map[string]any{"type": typ, "data": data, "id": fmt.Sprintf("e%d", n), "timestamp": "2026-07-24T11:00:00.000Z", "parentId": parent}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		events.Write(append(b, '\n'))
		parent = ev["id"]
	}
	add("session.start", map[string]any{"sessionId": id, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.74", "startTime": "2026-07-24T11:00:00.000Z", "context": map[string]any{"cwd": envs["HOME"]}, "alreadyInUse": false, "remoteSteerable": false})
	for i := range 6 {
		add("user.message", map[string]any{"content": fmt.Sprintf("Step %d: read parser_%d.go and tell me what ParseHeader%d returns.", i, i, i)})
		add("assistant.message", map[string]any{"messageId": fmt.Sprintf("m%d", i), "content": fmt.Sprintf("ParseHeader%d returns the header's length and ErrShortHeader%d when the input ends early.", i, i), "toolRequests": []any{}})
	}
	add("session.compaction_start", map[string]any{"conversationTokens": 90000})
	add("session.compaction_complete", map[string]any{"success": true, "summaryContent": "The user read the parsers.", "preCompactionTokens": 91000, "preCompactionMessagesLength": 12})
	add("user.message", map[string]any{"content": "Now write the tests."})
	path := filepath.Join(home, "session-state", id, "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, events.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, envs, "history", path)
	if code != 0 || !strings.Contains(stdout, "a1") || !strings.Contains(stdout, "91,000 tokens before") {
		t.Fatalf("history: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, envs, "restore", "--json", path, "a1")
	var res struct {
		ForkPath string `json:"path"`
		Session  string
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil {
		t.Fatalf("restore a1: exit %d\n%s%s", code, stdout, stderr)
	}
	if want := filepath.Join(home, "session-state", res.Session, "events.jsonl"); res.ForkPath != want || res.Session == id {
		t.Fatalf("restore a1 wrote %s (session %s); want a session of its own", res.ForkPath, res.Session)
	}
	if got := copilotListing(t, home); !sameSet(got, []string{id, res.Session}) {
		t.Fatalf("Copilot CLI lists %v", got)
	}
	fork, err := os.ReadFile(res.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := format.Detect(res.ForkPath, fork)
	if err != nil {
		t.Fatal(err)
	}
	before, err := tr.Parse(fork)
	if err != nil || len(before.Messages) != 12 {
		t.Fatalf("the session before a1: %v, %d messages; want the 12 the agent compacted", err, len(before.Messages))
	}
	code, stdout, stderr = runCLI(t, envs, "compact", "--before", "a1", path)
	if code != 0 || !strings.Contains(stdout, "the agent's a1 (session.compaction) kept") {
		t.Fatalf("compact --before a1: exit %d\n%s%s", code, stdout, stderr)
	}
}
