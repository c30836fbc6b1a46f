package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// runGaugeCLI runs `compactd gauge args...` in-process with a temp HOME.
func runGaugeCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	home := t.TempDir()
	for _, k := range []string{"HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COMPACTD_STORE"} {
		t.Setenv(k, filepath.Join(home, k))
	}
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = run(context.Background(), e, append([]string{"gauge"}, args...))
	return out.String(), errb.String(), code
}

func gaugeFixture(name string) string { return filepath.Join("testdata", "gauge", name) }

func decodeGaugeRows(t *testing.T, out string) []gaugeRow {
	t.Helper()
	var rows []gaugeRow
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		t.Fatalf("gauge --json output is not the documented array: %v\n%s", err, out)
	}
	return rows
}

func TestGaugeJSON(t *testing.T) {
	out, stderr, code := runGaugeCLI(t, "--json", gaugeFixture("claude-session.jsonl"), gaugeFixture("no-usage.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := decodeGaugeRows(t, out)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	withUsage, noUsage := rows[0], rows[1]
	if withUsage.Format != "claude-code" || withUsage.Model != "claude-sonnet-4-5-20250929" || withUsage.ContextWindow != 200_000 {
		t.Errorf("claude session: %+v", withUsage)
	}
	// The error is shown only when enough spans between usage points
	// agree; either way the row says what it rests on.
	if withUsage.Source != "reported+estimate" || withUsage.EstimateErrorSpans == 0 || withUsage.EstimateErrorNote == "" {
		t.Errorf("a session with usage must be calibrated and account for its error: %+v", withUsage)
	}
	for _, r := range rows {
		if r.Tokens <= 0 || math.Abs(r.Ratio-float64(r.Tokens)/float64(r.ContextWindow)) > 1e-12 {
			t.Errorf("%s: tokens %d ratio %v window %d", r.Path, r.Tokens, r.Ratio, r.ContextWindow)
		}
		if r.Messages == 0 || r.Turns == 0 || r.Level != "ok" {
			t.Errorf("%s: %+v", r.Path, r)
		}
	}
	if withUsage.ToolCalls == 0 {
		t.Error("generated session has tool calls; none counted")
	}
	if noUsage.Source != "estimate" || noUsage.EstimateError != nil || noUsage.Model != "claude-opus-4-1-20250805" {
		t.Errorf("session without usage: %+v", noUsage)
	}
	// The fixture ends with an unknown record (kept) and a malformed line (skipped).
	if noUsage.SkippedRecords != 1 || noUsage.Messages != 2 {
		t.Errorf("no-usage fixture: skipped %d, messages %d", noUsage.SkippedRecords, noUsage.Messages)
	}
}

func TestGaugeJSONKeyOrder(t *testing.T) {
	out, _, code := runGaugeCLI(t, "--json", gaugeFixture("no-usage.jsonl"))
	if code != 0 {
		t.Fatal(code)
	}
	want := []string{"path", "format", "model", "contextWindow", "windowSource", "tokens", "ratio", "level", "source", "turns", "messages", "toolCalls", "skippedRecords", "estimateError", "approx", "estimateErrorSpans", "estimateErrorNote", "breakdown", "reach", "cost", "autoCompact"}
	var objects []json.RawMessage
	if err := json.Unmarshal([]byte(out), &objects); err != nil || len(objects) != 1 {
		t.Fatalf("output %q: %v", out, err)
	}
	dec := json.NewDecoder(bytes.NewReader(objects[0]))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key.(string))
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Fatalf("keys %v\nwant %v", keys, want)
	}
}

func TestGaugeText(t *testing.T) {
	out, stderr, code := runGaugeCLI(t, gaugeFixture("claude-session.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	line := strings.TrimSpace(out)
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("want one line, got %q", out)
	}
	for _, want := range []string{gaugeFixture("claude-session.jsonl"), "claude-code", "claude-sonnet-4-5-20250929", " / 200,000", "%", " ok ", "(reported+estimate, auto-compacts at 155k (default), 118k left)"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
}

func TestGaugeFlags(t *testing.T) {
	out, _, code := runGaugeCLI(t, "--json", "--window", "10000", gaugeFixture("claude-session.jsonl"))
	if code != 0 {
		t.Fatal(code)
	}
	r := decodeGaugeRows(t, out)[0]
	if r.ContextWindow != 10_000 || r.Level != "critical" || r.Ratio <= 1 {
		t.Errorf("--window 10000: %+v", r)
	}
	out, _, code = runGaugeCLI(t, gaugeFixture("no-usage.jsonl"), "--json", "--model", "gpt-4o")
	if code != 0 {
		t.Fatal(code)
	}
	r = decodeGaugeRows(t, out)[0]
	if r.Model != "gpt-4o" || r.ContextWindow != 128_000 {
		t.Errorf("--model gpt-4o: %+v", r)
	}
}

func TestGaugeCodex(t *testing.T) {
	if _, ok := format.Lookup(transcript.FormatCodex); !ok {
		t.Skip("codex codec not registered in format/all yet")
	}
	out, stderr, code := runGaugeCLI(t, "--json", gaugeFixture("codex-session.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := decodeGaugeRows(t, out)[0]
	// Codex reports its own window (272k for gpt-5-codex), which wins over the registry's 400k.
	if r.Format != "codex" || r.ContextWindow != 272_000 || r.Source != "reported+estimate" {
		t.Errorf("codex: %+v", r)
	}
}

func TestGaugeErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stderr   []string
		stdoutOK bool
	}{
		{"no paths", nil, 2, []string{"usage: compactd gauge"}, false},
		{"bad flag", []string{"--bogus", "x"}, 2, []string{"bogus"}, false},
		{"negative window", []string{"--window", "-5", gaugeFixture("no-usage.jsonl")}, 2, []string{"--window"}, false},
		{"not a transcript", []string{gaugeFixture("notes.txt")}, 2, []string{"notes.txt is not a recognized transcript", "claude-code"}, false},
		{"missing file", []string{gaugeFixture("does-not-exist.jsonl")}, 1, []string{"does-not-exist.jsonl"}, false},
		{"one bad among good", []string{gaugeFixture("no-usage.jsonl"), gaugeFixture("notes.txt")}, 2, []string{"notes.txt"}, true},
	}
	for _, tt := range tests {
		out, stderr, code := runGaugeCLI(t, tt.args...)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", tt.name, code, tt.code, stderr)
		}
		for _, s := range tt.stderr {
			if !strings.Contains(stderr, s) {
				t.Errorf("%s: stderr %q lacks %q", tt.name, stderr, s)
			}
		}
		if tt.stdoutOK != strings.Contains(out, "no-usage.jsonl") {
			t.Errorf("%s: stdout %q", tt.name, out)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 156234: "156,234", 1048576: "1,048,576", -1234: "-1,234"} {
		if got := tokens.Thousands(n); got != want {
			t.Errorf("tokens.Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestGaugeCompressedRollout: a Codex rollout recompressed to .jsonl.zst
// gauges exactly as its plain twin.
func TestGaugeCompressedRollout(t *testing.T) {
	data, err := os.ReadFile(gaugeFixture("codex-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "rollout-2026-11-22T09-00-00-0196a0b1-aaaa-7bbb-8ccc-000000000004.jsonl")
	os.WriteFile(plain, data, 0o644)
	enc, _ := zstd.NewWriter(nil)
	os.WriteFile(plain+".zst", enc.EncodeAll(data, nil), 0o644)
	enc.Close()
	out, stderr, code := runGaugeCLI(t, "--json", plain, plain+".zst")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := decodeGaugeRows(t, out)
	if len(rows) != 2 || rows[1].Format != "codex" || rows[1].Tokens != rows[0].Tokens || rows[1].Messages != rows[0].Messages {
		t.Fatalf("plain and compressed rows differ: %+v", rows)
	}
	os.WriteFile(plain+".zst", []byte("not zstd"), 0o644)
	if _, stderr, code := runGaugeCLI(t, plain+".zst"); code == 0 || !strings.Contains(stderr, plain+".zst") {
		t.Fatalf("a corrupt compressed rollout: exit %d, %q", code, stderr)
	}
}

// TestVersionCommandsOnCompressedRollout: compact (to a fork), history,
// diff and restore take a .jsonl.zst path; compacting or restoring it in
// place is refused with a sentence that says to fork, exit 1, the file
// untouched.
func TestVersionCommandsOnCompressedRollout(t *testing.T) {
	envs := isolatedEnv(t)
	dir := filepath.Join(envs["CODEX_HOME"], "sessions", "2026", "11", "22")
	os.MkdirAll(dir, 0o755)
	data := sessiongen.Codex(sessiongen.Options{Seed: 9, Turns: 20, Cwd: dir})
	enc, _ := zstd.NewWriter(nil)
	compressed := enc.EncodeAll(data, nil)
	enc.Close()
	path := filepath.Join(dir, "rollout-2026-11-22T09-00-00-0196a0b1-aaaa-7bbb-8ccc-000000000009.jsonl.zst")
	os.WriteFile(path, compressed, 0o644)

	code, out, stderr := runCLI(t, envs, "compact", "--json", path)
	if code != 0 {
		t.Fatalf("compact: exit %d %s", code, stderr)
	}
	res := compactResult(t, out)
	if filepath.Dir(res.ForkPath) != dir || !strings.HasSuffix(res.ForkPath, ".jsonl") {
		t.Fatalf("fork %s: want a plain rollout beside the source", res.ForkPath)
	}
	out, stderr, code = runGaugeCLI(t, "--json", res.ForkPath)
	if rows := decodeGaugeRows(t, out); code != 0 || len(rows) != 1 || rows[0].Format != "codex" {
		t.Fatalf("gauge of the fork: exit %d %s %s", code, out, stderr)
	}
	if code, out, stderr = runCLI(t, envs, "history", path); code != 0 || !strings.Contains(out, "v1") || !strings.Contains(out, res.ForkPath) {
		t.Errorf("history: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr = runCLI(t, envs, "diff", path, "v1", res.Version); code != 0 || !strings.Contains(out, "--- v1") {
		t.Errorf("diff: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr = runCLI(t, envs, "restore", path, "v1"); code != 0 || strings.Contains(out, ".zst") {
		t.Errorf("restore as a fork: exit %d\n%s%s", code, out, stderr)
	}
	for _, args := range [][]string{{"compact", "--in-place", path}, {"restore", path, "v1", "--in-place"}} {
		code, _, stderr := runCLI(t, envs, args...)
		if code != 1 || !strings.Contains(stderr, path) || !strings.Contains(stderr, "fork") {
			t.Errorf("%s: exit %d, %q; want a refusal", strings.Join(args, " "), code, stderr)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, compressed) {
			t.Fatalf("%s changed the compressed rollout", strings.Join(args, " "))
		}
	}
}
