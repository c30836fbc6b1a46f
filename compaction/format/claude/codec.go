package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Codec reads and writes Claude Code session JSONL.
type Codec struct{}

var (
	_ format.Codec    = Codec{}
	_ format.Appender = Codec{}
	_ format.Trimmer  = Codec{}
)

func (Codec) Format() transcript.Format { return transcript.FormatClaudeCode }

// Detect looks for Claude Code's record shape in the first lines.
func (Codec) Detect(name string, head []byte) int {
	score := 0
	for i, l := range bytes.Split(head, []byte("\n")) {
		if i >= 20 {
			break
		}
		if bytes.Contains(l, []byte(`"parentUuid"`)) && bytes.Contains(l, []byte(`"sessionId"`)) {
			if genaiMessage(l) {
				// The envelope without Claude's messages: Qwen Code
				// wraps Gemini Content ({role, parts}) in it, which this
				// codec cannot read.
				return 0
			}
			score = 80
			if bytes.Contains(l, []byte(`"isSidechain"`)) || bytes.Contains(l, []byte(`"userType"`)) {
				score = 95
			}
			break
		}
		if bytes.Contains(l, []byte(`"type":"file-history-snapshot"`)) || bytes.Contains(l, []byte(`"type":"queue-operation"`)) ||
			(bytes.Contains(l, []byte(`"type":"summary"`)) && bytes.Contains(l, []byte(`"leafUuid"`))) {
			score = max(score, 60)
		}
	}
	base := filepath.Base(name)
	if score > 0 && (strings.Contains(filepath.ToSlash(name), ".claude/projects") || strings.HasPrefix(base, "agent-")) {
		score = min(score+5, 100)
	}
	return score
}

// genaiMessage reports whether a record's message is Gemini API Content
// (parts, no content) rather than an Anthropic message.
func genaiMessage(line []byte) bool {
	var r struct {
		Message struct {
			Parts   json.RawMessage `json:"parts"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		SystemPayload json.RawMessage `json:"systemPayload"`
	}
	if json.Unmarshal(line, &r) != nil {
		return false
	}
	return len(r.Message.Parts) > 0 && len(r.Message.Content) == 0 || len(r.SystemPayload) > 0
}

// Parse reads a whole session. A last line without a newline is a record
// when it decodes, and otherwise kept unconsumed (a write in progress).
func (c Codec) Parse(src []byte) (*transcript.Transcript, error) {
	t, err := c.append(empty(), src, true)
	if err != nil {
		return nil, err
	}
	if len(src) > 0 && countConversation(t) == 0 && len(t.Records) > 0 && t.Skipped == len(t.Records) {
		return nil, fmt.Errorf("not a Claude Code session: no line is a JSON record")
	}
	return t, nil
}

func countConversation(t *transcript.Transcript) int {
	n := 0
	for _, r := range t.Records {
		if r.Kind != transcript.RecordMalformed {
			n++
		}
	}
	return n
}

// Append parses the complete lines of tail (the bytes from prev.Size on).
func (c Codec) Append(prev *transcript.Transcript, tail []byte) (*transcript.Transcript, error) {
	if prev == nil || prev.State == nil {
		if prev != nil && len(prev.Records) > 0 {
			return nil, fmt.Errorf("append to a Claude Code transcript that was not parsed by this codec")
		}
		prev = empty()
	}
	return c.append(prev, tail, false)
}

func empty() *transcript.Transcript {
	return &transcript.Transcript{Format: transcript.FormatClaudeCode, State: &state{leaf: -1, byUUID: map[string]int{}, toolNames: map[string]string{}}, Frame: &jsonl.Frame{}}
}

// Write renders t; for a parsed transcript the bytes equal the source.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) {
	f, _ := t.Frame.(*jsonl.Frame)
	return jsonl.Write(f, t.Records), nil
}
