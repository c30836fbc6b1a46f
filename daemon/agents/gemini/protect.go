package gemini

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	codec "github.com/compactd/compactd/compaction/format/gemini"
)

// protect is Agent.Protect: Gemini CLI's next start of any other
// session — a fork's resume too — deletes a session that has a stub
// beside it (see compaction/format/gemini.IsStub). The stubs it removes
// hold nothing of the conversation; any other file that would take the
// session down is named in a note instead, and left alone.
func protect(path string) []string {
	real, err := os.Stat(path)
	if err != nil {
		return nil
	}
	sessionID := geminiSession(path)
	if len(sessionID) < 8 {
		return nil
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []string{fmt.Sprintf("could not list %s to look for the stubs Gemini CLI deletes this session with: %v", dir, err)}
	}
	var removed, dangerous []string
	for _, e := range entries {
		name := e.Name()
		if name == base || !codec.MaySessionFile(name, sessionID) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := e.Info()
		if err != nil || fi.Size() > codec.StubMaxBytes {
			continue // a session of its own (or gone): Gemini keeps it
		}
		data, err := os.ReadFile(p)
		if err != nil || !codec.SweepTakes(data) {
			continue // Gemini CLI keeps it, and the session with it
		}
		if !codec.IsStub(data, sessionID) {
			// What it holds is not compactd's to judge: say so.
			dangerous = append(dangerous, name)
			continue
		}
		// Gemini CLI writes a stub only while it starts, then moves on to
		// the session's real file: a stub written after the real file
		// was last is still being started, and stays.
		if !fi.ModTime().Before(real.ModTime()) {
			dangerous = append(dangerous, name)
			continue
		}
		// Nothing may have been added since it was read.
		if now, err := os.Lstat(p); err != nil || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
			continue
		}
		if err := os.Remove(p); err != nil {
			dangerous = append(dangerous, name)
			continue
		}
		removed = append(removed, name)
	}
	var notes []string
	if len(removed) > 0 {
		sort.Strings(removed)
		notes = append(notes, fmt.Sprintf("removed %s beside the source: empty stub%s Gemini CLI left when it resumed session %s, with which its next start of another session (this fork too) would delete the session (google-gemini/gemini-cli#27368)",
			strings.Join(removed, ", "), plural(len(removed)), sessionID))
	}
	if len(dangerous) > 0 {
		sort.Strings(dangerous)
		notes = append(notes, fmt.Sprintf("warning: Gemini CLI may delete session %s at its next start of another session (this fork too): %s beside it hold%s no conversation it resumes (google-gemini/gemini-cli#27368); set general.sessionRetention.enabled to false in ~/.gemini/settings.json to keep it",
			sessionID, strings.Join(dangerous, ", "), map[bool]string{true: "s", false: ""}[len(dangerous) == 1]))
	}
	return notes
}

// geminiSession reads the session id of a Gemini CLI recording: the
// sessionId of its first object (a JSONL recording's header line, or a
// legacy document's metadata).
func geminiSession(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		var id string
		if key == "sessionId" && json.Unmarshal(v, &id) == nil {
			return id
		}
	}
	return ""
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
