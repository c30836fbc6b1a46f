package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
)

// subagentThread is a Claude Code subagent's own transcript (the
// auto-compaction agent's, an agent-<id>.jsonl): every row a sidechain
// carrying agentId, no main thread at all.
func subagentThread(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(sessiongen.ClaudeCode(sessiongen.Options{Seed: 7, Turns: 30})), []byte("\n")) {
		var row map[string]any
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		if _, ok := row["uuid"]; ok {
			row["isSidechain"] = true
			row["agentId"] = "a7c3e9f1"
		}
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// TestCompactsRealShapes is issue 23's item 2: sessions the agent itself
// resumes, which compaction refused. Each compacts with every strategy,
// and its fork reads back with the conversation the view kept.
//   - A Gemini CLI recording where the model changed mid-session (info
//     messages), an API error was shown, and a model message kept its text
//     once its tool calls were cut: the fork's check mapped a model
//     message with tool results to its results' message, and saw two
//     model messages in a row where there are none.
//   - A Claude Code subagent's own thread: the fork's compact_boundary
//     was a main-thread row, so the kept sidechain rows read back as a
//     side branch of an empty conversation.
func TestCompactsRealShapes(t *testing.T) {
	cases := []struct {
		name string
		data func(t *testing.T) []byte
	}{
		{"session-2026-10-14T09-00-8bb01460.jsonl", func(t *testing.T) []byte {
			b, err := os.ReadFile(filepath.Join("testdata", "shapes", "session-2026-10-14T09-00-8bb01460.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}},
		{"agent-a7c3e9f1.jsonl", subagentThread},
	}
	for _, c := range cases {
		for _, s := range []string{"auto", "turn-window", "token-budget", "extractive", "strip-tool-results", "dedup-tools"} {
			t.Run(c.name+"/"+s, func(t *testing.T) {
				root := isolate(t)
				r := realRunner(t)
				path := filepath.Join(root, c.name)
				src := c.data(t)
				if err := os.WriteFile(path, src, 0o644); err != nil {
					t.Fatal(err)
				}
				opts := strategy.Options{Strategies: []string{s}, KeepLast: new(1), Turns: 3, Budget: 2000, Window: 20000}
				res, err := r.Compact(context.Background(), Request{Path: path, Options: opts})
				if err != nil {
					t.Fatal(err)
				}
				fork := parse(t, res.ForkPath, readFile(t, res.ForkPath))
				if len(fork.Messages) == 0 {
					t.Fatalf("the fork holds no conversation")
				}
				if err := strategy.CheckTranscript(fork); err != nil {
					t.Errorf("the fork breaks the API's rules: %v", err)
				}
			})
		}
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
