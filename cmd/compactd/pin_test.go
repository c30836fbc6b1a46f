package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCompactPinAndBudget: --pin LINE keeps that message verbatim in this
// compaction and, stored with the conversation, in the next ones; --budget
// N lands within 5 % of N.
func TestCompactPinAndBudget(t *testing.T) {
	envs := isolatedEnv(t)
	t.Chdir(t.TempDir())
	ws := t.TempDir()
	path, data := writeSession(t, ws, "chat.jsonl", 5, 12)
	// An assistant line early in the session, with text.
	lines := bytes.Split(data, []byte("\n"))
	line, text := 0, ""
	for i, l := range lines[:len(lines)/3] {
		var rec struct {
			Type    string
			Message struct {
				Content []struct{ Type, Text string }
			}
		}
		if json.Unmarshal(l, &rec) != nil || rec.Type != "assistant" {
			continue
		}
		for _, c := range rec.Message.Content {
			if c.Type == "text" && len(c.Text) > 20 {
				line, text = i+1, c.Text
			}
		}
		if line > 0 {
			break
		}
	}
	if line == 0 {
		t.Fatal("no assistant text line to pin")
	}
	forkHas := func(out string) bool {
		t.Helper()
		res := compactResult(t, out)
		fork, err := os.ReadFile(res.ForkPath)
		if err != nil {
			t.Fatal(err)
		}
		quoted, _ := json.Marshal(text)
		return bytes.Contains(fork, quoted[1:len(quoted)-1])
	}
	code, out, stderr := runCLI(t, envs, "compact", "--json", "--pin", strconv.Itoa(line), "--strategy", "turn-window", "--turns", "1", "--out", filepath.Join(ws, "a.jsonl"), path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !forkHas(out) {
		t.Errorf("the message pinned on line %d is not in the fork", line)
	}
	// Stored: the next compaction keeps it without the flag, with a budget.
	code, out, stderr = runCLI(t, envs, "compact", "--json", "--budget", "1500", "--out", filepath.Join(ws, "b.jsonl"), path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !forkHas(out) {
		t.Errorf("the pin was not kept for the next compaction")
	}
	var res struct {
		TokensAfter int
		Notes       []string
	}
	json.Unmarshal([]byte(out), &res)
	if res.TokensAfter > 1575 {
		t.Errorf("--budget 1500 gave %d tokens (notes %q)", res.TokensAfter, res.Notes)
	}
	// Unpinned, a tight window drops it again.
	code, out, stderr = runCLI(t, envs, "compact", "--json", "--unpin", strconv.Itoa(line), "--strategy", "turn-window", "--turns", "1", "--out", filepath.Join(ws, "c.jsonl"), path)
	if code != 0 || forkHas(out) {
		t.Errorf("after --unpin: exit %d, pinned message still kept (%s)", code, strings.TrimSpace(stderr))
	}
}
