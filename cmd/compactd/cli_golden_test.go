package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/recall"
)

// TestCLIOutputGolden pins what each command prints, per case, as a user
// sees it: testdata/cli/<command>/<case>.txt holds the exit code, stdout
// and stderr (-update rewrites them). The cases run in order in one
// workspace and store (a compaction makes the versions that history,
// diff, restore and recall show), on a fixed clock; the temporary
// folders, times, hashes and generated ids are replaced by placeholders.
func TestCLIOutputGolden(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skip: the goldens spell paths with /")
	}
	envs := isolatedEnv(t)
	ws := t.TempDir()
	for _, f := range []string{"gauge/claude-session.jsonl", "gauge/codex-session.jsonl", "gauge/no-usage.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	payload, err := os.ReadFile(filepath.Join("testdata", "statusline", "payload.json"))
	if err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(ws, "claude-session.jsonl")
	codex := filepath.Join(ws, "codex-session.jsonl")
	noUsage := filepath.Join(ws, "no-usage.jsonl")
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

	run := func(stdin []byte, args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		e := &env{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return envs[k] }, now: func() time.Time { return now }}
		code := run(context.Background(), e, args)
		return code, out.String(), errb.String()
	}
	golden := func(command, name string, stdin []byte, args ...string) string {
		t.Helper()
		code, stdout, stderr := run(stdin, args...)
		if err := os.MkdirAll(filepath.Join("testdata", "cli", command), 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("$ compactd %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, stdout, stderr)
		formattest.Golden(t, filepath.Join("cli", command, name+".txt"), normalizeCLI(text, ws, envs))
		return stdout
	}

	golden("gauge", "one", nil, "gauge", claude)
	golden("gauge", "several", nil, "gauge", claude, codex, noUsage)
	golden("gauge", "json", nil, "gauge", "--json", codex)
	golden("gauge", "breakdown", nil, "gauge", "--breakdown", claude)
	golden("gauge", "window-flag", nil, "gauge", "--window", "100000", claude)
	golden("gauge", "missing-file", nil, "gauge", filepath.Join(ws, "nope.jsonl"))

	golden("compact", "dry-run", nil, "compact", "--dry-run", claude)
	golden("compact", "dry-run-json", nil, "compact", "--dry-run", "--json", "--keep-last", "2", codex)
	golden("compact", "unknown-strategy", nil, "compact", "--strategy", "shrink-everything", claude)
	fork := golden("compact", "strip-tool-results", nil, "compact", "--strategy", "strip-tool-results", claude)
	src, err := os.ReadFile(claude)
	if err != nil {
		t.Fatal(err)
	}
	prompt := slices.IndexFunc(strings.Split(string(src), "\n"), func(l string) bool { return strings.Contains(l, "Add a SKU index migration") })
	golden("compact", "pin", nil, "compact", "--pin", strconv.Itoa(prompt+1), "--dry-run", claude)
	golden("compact", "pin-no-message", nil, "compact", "--pin", "3", "--dry-run", claude)

	golden("history", "text", nil, "history", claude)
	golden("history", "json", nil, "history", "--json", claude)
	golden("diff", "v1-v2", nil, "diff", claude, "v1", "v2")
	golden("restore", "v1", nil, "restore", claude, "v1")

	forkPath := regexp.MustCompile(`written to (\S+\.jsonl)`).FindStringSubmatch(fork)
	if forkPath == nil {
		t.Fatalf("the compaction names no fork: %s", fork)
	}
	b, err := os.ReadFile(forkPath[1])
	if err != nil {
		t.Fatal(err)
	}
	handles := recall.Find(string(b))
	if len(handles) == 0 {
		t.Fatal("the fork names no recall handle")
	}
	golden("recall", "handle", nil, "recall", handles[0])
	golden("recall", "not-a-handle", nil, "recall", "x123")

	golden("handoff", "to-codex", nil, "handoff", "--to", "codex", claude)
	golden("handoff", "to-gemini-json", nil, "handoff", "--json", "--to", "gemini", "--budget", "20000", codex)
	golden("handoff", "unknown-agent", nil, "handoff", "--to", "emacs", claude)
	golden("handoff", "no-agent", nil, "handoff", claude)

	// Search: the workspace's sessions, the fork the compaction wrote
	// and the stored versions, indexed on the first search.
	golden("search", "phrase", nil, "search", "--folder", ws, `"SKU index migration"`)
	golden("search", "path", nil, "search", "--folder", ws, "--limit", "3", "internal/api/middleware.go")
	golden("search", "json", nil, "search", "--folder", ws, "--json", "--limit", "2", "backoffJitter")
	golden("search", "no-hit", nil, "search", "--folder", ws, "zebra crossing")
	golden("search", "open", nil, "search", "--folder", ws, "--open", "1", `"SKU index migration"`)
	golden("search", "no-query", nil, "search", "--folder", ws)
	golden("search", "unknown-agent", nil, "search", "--agent", "nobody", "x")

	// The agent's statusline payload names the session it shows.
	var p map[string]any
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	p["transcript_path"], p["cwd"] = claude, ws
	if payload, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	golden("statusline", "payload", payload, "statusline")
	golden("statusline", "no-transcript", []byte(`{"transcript_path": "`+filepath.ToSlash(filepath.Join(ws, "gone.jsonl"))+`"}`), "statusline")
	golden("editor-info", "json", nil, "editor-info")
	golden("hooks", "status", nil, "hooks", "status")
	golden("mcp", "status", nil, "mcp", "status")
	golden("doctor", "text", nil, "doctor")
	// Last: it writes a session the cases above would find.
	golden("search", "handoff", nil, "search", "--folder", ws, "--agent", "claude", "--handoff", "qwen", "Store interface")
}

var (
	hashes = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	// geminiNames are Gemini CLI's session files: the minute and the id's
	// first 8 hex digits.
	geminiNames = regexp.MustCompile(`session-\d{4}-\d\d-\d\dT\d\d-\d\d-[0-9a-f]{8}\.`)
	uuids       = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	cliTimes    = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?|\b\d{8}T\d{6}(\.\d+)?`)
	cliSizes    = regexp.MustCompile(`\d+(\.\d+)? (MiB|KiB|B)\b`)
)

// normalizeCLI replaces what differs from run to run.
func normalizeCLI(s, ws string, envs map[string]string) []byte {
	s = strings.ReplaceAll(s, ws, "<workspace>")
	root := filepath.Dir(envs["HOME"])
	s = strings.ReplaceAll(s, root, "<home>")
	s = geminiNames.ReplaceAllString(s, "session-<time>-<id8>.")
	s = cliTimes.ReplaceAllString(s, "<time>")
	s = hashes.ReplaceAllString(s, "<sha256>")
	s = uuids.ReplaceAllString(s, "<uuid>")
	s = cliSizes.ReplaceAllString(s, "<size>")
	return []byte(s)
}
