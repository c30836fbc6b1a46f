package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runStatuslineCLI(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := run(context.Background(), e, append([]string{"statusline"}, args...))
	return out.String(), errb.String(), code
}

// Claude Code's statusline payload, as it sends it, naming a transcript of
// the 2.1.92 case: one line with the gauge, the breakdown in brief, the
// cost, and why compaction cannot help.
func TestStatuslineRealPayload(t *testing.T) {
	envs := isolatedEnv(t)
	payload, err := os.ReadFile(filepath.Join("testdata", "statusline", "payload.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	// The transcript where Claude Code keeps it, under the test's HOME.
	dir := filepath.Join(envs["HOME"], ".claude", "projects", "-home-dev-src-inventory-service")
	os.MkdirAll(dir, 0o755)
	src, _ := os.ReadFile(filepath.Join("testdata", "insight", "claude-2.1.92-outside.jsonl"))
	transcript := filepath.Join(dir, filepath.Base(p["transcript_path"].(string)))
	os.WriteFile(transcript, src, 0o600)
	p["transcript_path"] = transcript
	payload, _ = json.Marshal(p)

	out, stderr, code := runStatuslineCLI(t, payload)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "195k / 200k · 97 % critical │ auto-compacts at 167k (default), due now │ outside 192k · assistant text 1.8k · tool results 1.4k (mcp__github__get_issue 1.4k) │ $0.141 so far · next turn $0.058 │ compaction can't help: 98 % is outside the transcript\n"
	if out != want {
		t.Fatalf("statusline\n got %q\nwant %q", out, want)
	}
	// The window Claude Code reports wins over the registry's (1M here).
	p["context_window"] = map[string]any{"context_window_size": 1_000_000}
	payload, _ = json.Marshal(p)
	if out, _, _ := runStatuslineCLI(t, payload); !strings.HasPrefix(out, "195k / 1M · 19 %") {
		t.Errorf("1M window: %q", out)
	}
	if out, _, _ := runStatuslineCLI(t, payload, "--color"); !strings.HasPrefix(out, "\x1b[32m195k / 1M") {
		t.Errorf("--color: %q", out)
	}
}

// Bad input yields one clear line on stdout (Claude Code blanks the status
// line on a failing command), exit 0; wrong usage exits 2.
func TestStatuslineBadInput(t *testing.T) {
	envs := isolatedEnv(t)
	transcriptJSON := func(path string) string {
		b, err := json.Marshal(map[string]string{"transcript_path": path})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct{ name, stdin, want string }{
		{"not JSON", "hello", "compactd: stdin is not Claude Code's statusline JSON"},
		{"no transcript yet", `{"hook_event_name":"Status","session_id":"x","model":{"id":"claude-opus-4-7"}}`, "compactd: no transcript yet"},
		{"missing transcript", transcriptJSON(filepath.Join(envs["HOME"], "gone.jsonl")), "compactd: " + filepath.Join(envs["HOME"], "gone.jsonl") + " does not exist"},
		{"not a transcript", transcriptJSON(filepath.Join("testdata", "gauge", "notes.txt")), "is not a recognized transcript"},
	}
	for _, c := range cases {
		out, _, code := runStatuslineCLI(t, []byte(c.stdin))
		if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, %q; want one line with %q", c.name, code, out, c.want)
		}
	}
	if _, _, code := runStatuslineCLI(t, nil, "extra"); code != 2 {
		t.Errorf("an argument: exit %d, want 2", code)
	}
}
