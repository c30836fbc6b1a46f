package lsp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/daemon"
)

// TestCommandResultsGolden pins the JSON every command answers, as the
// client receives it (testdata/commands/<command>.json; -update rewrites
// them): the names the VS Code extension and the Neovim plugin read. The
// temporary folders, times, hashes and generated ids are replaced by
// placeholders.
func TestCommandResultsGolden(t *testing.T) {
	home := testEnv(t)
	c, ws, path := openAgentCompacted(t)
	u := pathURI(path)

	run := func(command string, args map[string]any) json.RawMessage {
		t.Helper()
		args["uri"] = u
		var raw json.RawMessage
		if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": []any{args}}, &raw); err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		return raw
	}
	golden := func(command string, raw json.RawMessage) { commandGolden(t, command, raw, ws, home) }

	golden(cmdDryRun, run(cmdDryRun, map[string]any{"keepLast": 1}))
	golden(cmdCompact, run(cmdCompact, map[string]any{"keepLast": 1}))
	hist := run(cmdHistory, map[string]any{})
	golden(cmdHistory, hist)
	var h CommandResult[*daemon.History]
	if err := json.Unmarshal(hist, &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Result.Versions) < 2 {
		t.Fatalf("history: %s", hist)
	}
	// The stored versions (v1, v2, …; the agent's own compactions a1, …
	// are listed too but have no content of their own to diff).
	var stored []string
	for _, v := range h.Result.Versions {
		if strings.HasPrefix(v.Label, "v") {
			stored = append(stored, v.Label)
		}
	}
	first, last := stored[0], stored[len(stored)-1]
	golden(cmdDiff, run(cmdDiff, map[string]any{"from": first, "to": last}))
	golden(cmdRestore, run(cmdRestore, map[string]any{"version": first}))
	golden(cmdRestoreBeforeAgent, run(cmdRestoreBeforeAgent, map[string]any{}))
	golden(cmdRecompactAgent, run(cmdRecompactAgent, map[string]any{"keepLast": 1}))
	golden(cmdCompactInPlace, run(cmdCompactInPlace, map[string]any{"keepLast": 1}))
	golden(cmdHandoff, run(cmdHandoff, map[string]any{"agent": "codex", "mcp": false}))
}

// TestRecallAndPinResultsGolden pins compactd.recall, compactd.pin and
// compactd.unpin: a handle a compaction's placeholder names, and a pin on
// a user message's line.
func TestRecallAndPinResultsGolden(t *testing.T) {
	home := testEnv(t)
	ws := t.TempDir()
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
	c.initialize(ws, map[string]any{"compact": map[string]any{"keepLast": 1}})
	u, _, data := openFixture(t, c, ws, "claude-2.1.330-24k.jsonl")
	run := func(command string, args map[string]any) json.RawMessage {
		t.Helper()
		args["uri"] = u
		var raw json.RawMessage
		if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": []any{args}}, &raw); err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		return raw
	}
	var res CommandResult[*daemon.Compaction]
	if err := json.Unmarshal(run(cmdCompact, map[string]any{"strategies": []string{"strip-tool-results"}}), &res); err != nil {
		t.Fatal(err)
	}
	fork, err := os.ReadFile(uriPath(protocol.DocumentURI(res.Open)))
	if err != nil {
		t.Fatal(err)
	}
	handles := recall.Find(string(fork))
	if len(handles) == 0 {
		t.Fatal("the fork names no recall handle")
	}
	commandGolden(t, cmdRecall, run(cmdRecall, map[string]any{"handle": handles[0]}), ws, home)
	line := -1
	for i, l := range strings.Split(data, "\n") {
		if strings.Contains(l, `"type":"user"`) {
			line = i
			break
		}
	}
	if line < 0 {
		t.Fatal("no user message in the fixture")
	}
	commandGolden(t, cmdPin, run(cmdPin, map[string]any{"line": line}), ws, home)
	commandGolden(t, cmdUnpin, run(cmdUnpin, map[string]any{"line": line}), ws, home)
}

// commandGolden compares a command's answer, normalized, with
// testdata/commands/<command>.json.
func commandGolden(t *testing.T, command string, raw json.RawMessage, ws, home string) {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, normalize(raw, ws, home), "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	formattest.Golden(t, filepath.Join("commands", command+".json"), out.Bytes())
}

var (
	timestamps = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)|\b\d{8}T\d{6}(\.\d+)?`)
	hashes     = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	uuids      = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	// rolloutDates are the dated folders and names of Codex's rollouts.
	rolloutDates = regexp.MustCompile(`\d{4}/\d\d/\d\d/rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d`)
)

// normalize replaces what differs from run to run.
func normalize(raw json.RawMessage, ws, home string) []byte {
	s := string(raw)
	for dir, name := range map[string]string{ws: "<workspace>", home: "<home>"} {
		s = strings.ReplaceAll(s, string(pathURI(dir)), "file://"+name)
		s = strings.ReplaceAll(s, dir, name)
		enc, _ := json.Marshal(dir) // as it stands in JSON: a Windows path's \ doubled
		s = strings.ReplaceAll(s, string(enc[1:len(enc)-1]), name)
	}
	if runtime.GOOS == "windows" {
		// The rest of a path under them, with the goldens' separators.
		s = strings.ReplaceAll(s, `\\`, "/")
	}
	s = timestamps.ReplaceAllString(s, "<time>")
	s = hashes.ReplaceAllString(s, "<sha256>")
	s = uuids.ReplaceAllString(s, "<uuid>")
	s = rolloutDates.ReplaceAllString(s, "<date>/rollout-<time>")
	return []byte(s)
}
