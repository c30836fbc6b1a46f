package sessiongen

import (
	"bytes"
	"encoding/json"

	"github.com/compactd/compactd/compaction/transcript"
)

// AppendChunk returns n more complete lines of a session in format (Claude
// Code or Codex), as an agent appends them while it works; nil for other
// formats. The lines stand alone: use Continue to chain them onto an
// existing session's last record.
func AppendChunk(format transcript.Format, seed uint64, n int) []byte {
	return Continue(format, nil, seed, n)
}

// Continue returns n complete lines that continue prev: for Claude Code the
// first new record's parentUuid is prev's last uuid and the sessionId and
// cwd are prev's, so a parser sees the conversation simply grow.
func Continue(format transcript.Format, prev []byte, seed uint64, n int) []byte {
	if n <= 0 {
		return nil
	}
	switch format {
	case transcript.FormatClaudeCode:
		last := lastClaudeRecord(prev)
		opts := Options{Seed: seed, Cwd: last.Cwd}.withDefaults("claude-sonnet-4-5-20250929")
		g := newClaudeGen(opts, last.SessionID, last.UUID)
		for turn := 1; g.lines < n; turn++ {
			g.turn(turn)
		}
		return firstLines(g.buf.Bytes(), n)
	case transcript.FormatCodex:
		opts := Options{Seed: seed}.withDefaults("gpt-5-codex")
		g := newCodexGen(opts)
		for turn := 1; g.lines < n; turn++ {
			g.turn(turn)
		}
		return firstLines(g.buf.Bytes(), n)
	}
	return nil
}

type claudeTail struct {
	UUID      string `json:"uuid"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
}

// lastClaudeRecord finds the last line of src that has a uuid, scanning
// backwards so the cost does not depend on the file's size.
func lastClaudeRecord(src []byte) claudeTail {
	for end := len(src); end > 0; {
		start := bytes.LastIndexByte(src[:end], '\n')
		line := src[start+1 : end]
		end = start
		if start < 0 {
			end = 0
		}
		var t claudeTail
		if json.Unmarshal(line, &t) == nil && t.UUID != "" {
			return t
		}
	}
	return claudeTail{}
}

func firstLines(b []byte, n int) []byte {
	at := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(b[at:], '\n')
		if j < 0 {
			return b
		}
		at += j + 1
	}
	return b[:at]
}
