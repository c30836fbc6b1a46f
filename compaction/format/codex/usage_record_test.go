package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

// TestUsageRecordAttachesMidTurn: Codex 0.169 writes a response's usage as
// a token_usage_record right after the response's items, and its
// token_count only once the response's tools have run. A rollout read
// while a tool runs (compactd's context_status, called by Codex itself)
// already carries the usage of the response that called it, on that
// response; the token_count repeating it later attaches nothing again.
func TestUsageRecordAttachesMidTurn(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "usage-record-mid-turn.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	last := tr.LastUsage()
	if last != len(tr.Messages)-1 {
		t.Fatalf("the last usage is on message %d of %d; the rollout ends with the call the usage belongs to", last, len(tr.Messages))
	}
	lines := bytes.Split(bytes.TrimSpace(src), []byte("\n"))
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Usage struct {
				Total int `json:"total_tokens"`
			} `json:"usage"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(lines[len(lines)-1], &rec); err != nil || rec.Type != "token_usage_record" {
		t.Fatalf("the fixture must end with a token_usage_record: %v", err)
	}
	m := tr.Messages[last]
	if m.Role != transcript.RoleAssistant || m.Usage.ContextTokens() != rec.Payload.Usage.Total || m.Parts[len(m.Parts)-1].ToolName != "context_status" {
		t.Fatalf("last usage %d on a %s message ending in %q, want %d on the context_status call", m.Usage.ContextTokens(), m.Role, m.Parts[len(m.Parts)-1].ToolName, rec.Payload.Usage.Total)
	}
	// The recall call's output, written before the token_count that
	// repeats the recall response's usage, takes no usage of its own.
	usages := 0
	for _, m := range tr.Messages {
		if m.Usage != nil {
			usages++
			if m.Role != transcript.RoleAssistant {
				t.Errorf("a %s message carries usage %d", m.Role, m.Usage.ContextTokens())
			}
		}
	}
	// The rollout is a compactd fork (which carries none of its source's
	// usage) resumed for one turn: the recall call and the status call.
	if usages != 2 {
		t.Errorf("%d messages carry usage; the resumed turn recorded 2 responses before this point", usages)
	}
}
