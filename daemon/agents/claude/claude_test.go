package claude_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/claude"
	"github.com/compactd/compactd/daemon/index"
)

// subagent writes a subagent's transcript as Claude Code 2.1 does: the
// parent's sessionId, agentId, every row a sidechain; and its .meta.json.
func subagent(t *testing.T, path, session string) {
	t.Helper()
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, Turns: 3, SessionID: session})), []byte("\n")) {
		var row map[string]any
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		if _, ok := row["uuid"]; ok {
			row["isSidechain"], row["agentId"] = true, "a91c2e7"
		}
		b, _ := json.Marshal(row)
		out.Write(append(b, '\n'))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"agentType": "general-purpose", "spawnDepth": 2})
	os.WriteFile(path[:len(path)-len(".jsonl")]+".meta.json", meta, 0o644)
}

// TestTheDaemonWatchesWorkflowSubagents is issue 23's item 6: Claude Code
// 2.1 keeps a workflow's subagents a level deeper,
// <session>/subagents/workflows/<workflow>/agent-<id>.jsonl. The daemon
// tracks them, from the scan and as a workflow writes them.
func TestTheDaemonWatchesWorkflowSubagents(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws, home := t.TempDir(), t.TempDir()
	env := agents.Env{Home: home, Vars: map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude")}}
	project := claude.ProjectDir(env, ws)
	session := "7d3f1a2b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(project, session+".jsonl"), sessiongen.ClaudeCode(sessiongen.Options{Seed: 2, Turns: 3, SessionID: session}), 0o644)
	early := filepath.Join(project, session, "subagents", "workflows", "wf-review", "agent-a91c2e7.jsonl")
	subagent(t, early, session)

	seen := make(chan string, 32)
	d, err := daemon.New(daemon.Options{Folders: []string{ws}, Env: env, OnChange: func(ev index.Event) {
		if ev.Snapshot != nil {
			seen <- ev.Path
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	<-d.ScanDone()
	if s := d.Snapshot(early); s == nil || s.Messages == 0 {
		t.Fatalf("the scan did not read the workflow's subagent %s: %+v", early, s)
	}
	late := filepath.Join(project, session, "subagents", "workflows", "wf-tests", "agent-b72d3f8.jsonl")
	subagent(t, late, session)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-seen:
			if p == late {
				return
			}
		case <-deadline:
			t.Fatalf("a workflow's subagent written under a new folder was not seen: %s", late)
		}
	}
}
