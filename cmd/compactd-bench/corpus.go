package main

// Bench sessions built from real ones: the Claude Code sessions of the
// shared corpus (../shared/corpus, real transcripts under MIT licences)
// repeated into one long conversation. Each copy gets new uuids chained
// line after line (as Claude Code writes them), its own message ids (so a
// response's split lines merge only within their copy) and its texts
// marked with the copy's number (so no cache answers for a copy what it
// counted for the one before). What stays is what makes a session cost
// what it costs: real tool output, thinking with signatures, split
// assistant lines, file-history snapshots, attachments.

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compactd/compactd/compaction/sessiongen"
)

// corpusSessions are the real Claude Code sessions the scaled sessions
// repeat (see ../shared/corpus/SOURCES.md).
var corpusSessions = []string{
	"claude-code/real-v2.0.42-thinking-PREFIX.jsonl",
	"claude-code/real-v1.0.51-tools-summary.jsonl",
}

// corpusDir finds the shared corpus beside the repository, "" when absent.
func corpusDir() string {
	root, err := repoRoot()
	if err != nil {
		return ""
	}
	for _, d := range []string{filepath.Join(root, "..", "shared", "corpus"), "/work/shared/corpus"} {
		if fi, err := os.Stat(filepath.Join(d, "claude-code")); err == nil && fi.IsDir() {
			return d
		}
	}
	return ""
}

// realSession returns a Claude Code session of about size bytes scaled
// up from the corpus's real sessions, with cwd as its working folder; ok
// is false when the corpus is not there.
func realSession(size int, cwd string) (data []byte, ok bool, err error) {
	dir := corpusDir()
	if dir == "" {
		return nil, false, nil
	}
	var lines [][]byte
	for _, name := range corpusSessions {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, false, err
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
	}
	session := newUUIDText()
	var out bytes.Buffer
	out.Grow(size + size/8)
	parent := ""
	for copyN := 0; out.Len() < size; copyN++ {
		ids := map[string]string{} // this copy's uuids, old → new
		for _, l := range lines {
			var rec map[string]any
			if json.Unmarshal(l, &rec) != nil {
				continue
			}
			if _, has := rec["uuid"]; has {
				id := newUUIDText()
				if old, ok := rec["uuid"].(string); ok {
					ids[old] = id
				}
				rec["uuid"] = id
				if parent == "" {
					rec["parentUuid"] = nil
				} else {
					rec["parentUuid"] = parent
				}
				parent = id
				rec["isSidechain"] = false
			}
			if _, has := rec["sessionId"]; has {
				rec["sessionId"] = session
			}
			if _, has := rec["cwd"]; has {
				rec["cwd"] = cwd
			}
			if _, has := rec["leafUuid"]; has {
				rec["leafUuid"] = parent
			}
			if m, ok := rec["message"].(map[string]any); ok {
				if id, ok := m["id"].(string); ok {
					m["id"] = fmt.Sprintf("%s_c%d", id, copyN)
				}
				m["content"] = markTexts(m["content"], copyN)
			}
			if r, ok := rec["toolUseResult"]; ok {
				rec["toolUseResult"] = markTexts(r, copyN)
			}
			b, err := json.Marshal(rec)
			if err != nil {
				return nil, false, err
			}
			out.Write(b)
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), true, nil
}

// markTexts appends the copy's number to every text of a message's
// content (a string, or blocks with text, thinking or tool output).
func markTexts(v any, n int) any {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%s (pass %d)", x, n)
	case []any:
		for i := range x {
			x[i] = markTexts(x[i], n)
		}
		return x
	case map[string]any:
		for _, k := range []string{"text", "thinking", "content", "stdout", "stderr"} {
			if s, ok := x[k]; ok {
				x[k] = markTexts(s, n)
			}
		}
		if id, ok := x["id"].(string); ok && x["type"] == "tool_use" {
			x["id"] = fmt.Sprintf("%s_c%d", id, n)
		}
		if id, ok := x["tool_use_id"].(string); ok {
			x["tool_use_id"] = fmt.Sprintf("%s_c%d", id, n)
		}
		return x
	}
	return v
}

func newUUIDText() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// benchSession is the Claude Code session of about size bytes the benches
// time: scaled from the corpus's real sessions when the corpus is there,
// else generated (sessiongen). It says which.
func benchSession(size int, seed uint64, cwd string) ([]byte, string, error) {
	data, ok, err := realSession(size, cwd)
	if err != nil {
		return nil, "", err
	}
	if ok {
		return data, "real sessions of the corpus, scaled", nil
	}
	return sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, TargetBytes: size, Cwd: cwd}), "generated: the corpus is missing", nil
}
