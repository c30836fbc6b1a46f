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

// protect is Agent.Protect. Gemini CLI's next start of any other session
// — a fork's resume too — deletes every file named for a session's first
// 8 characters when one of them holds no conversation it resumes: the
// stubs its --resume leaves (see compaction/format/gemini.StubOf). path is
// a file of a chats folder; the files named like it are looked at, and
// the settled stubs of a session compactd knows (known) are removed: they
// hold nothing of the conversation. Stubs still being written, and other
// files that would take the session down, are named in a note instead.
func protect(path string, known func(session string) bool) []string {
	dir, base := filepath.Dir(path), filepath.Base(path)
	short := shortID(base)
	if short == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []string{fmt.Sprintf("could not list %s to look for the stubs Gemini CLI deletes sessions with: %v", dir, err)}
	}
	type stub struct {
		name string
		codec.Stub
		size int64
		mod  int64
	}
	var named []os.DirEntry
	for _, e := range entries {
		if shortID(e.Name()) == short && e.Type().IsRegular() {
			named = append(named, e)
		}
	}
	if len(named) < 2 {
		// The sweep would take this file alone: no stub endangers
		// another. Said before reading it, which every write of the
		// agent would cost (up to StubMaxBytes parsed each time).
		return nil
	}
	var stubs []stub
	var damaged []string
	sessions := map[string][]string{} // session id → its files
	for _, e := range named {
		name := e.Name()
		p := filepath.Join(dir, name)
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if fi.Size() > codec.StubMaxBytes {
			if id := sessionOf(p); id != "" {
				sessions[id] = append(sessions[id], p)
			}
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if !codec.SweepTakes(data) {
			if id := sessionOf(p); id != "" {
				sessions[id] = append(sessions[id], p)
			}
			continue
		}
		st, ok := codec.StubOf(data)
		if !ok {
			damaged = append(damaged, name) // not compactd's to judge
			continue
		}
		stubs = append(stubs, stub{name, st, fi.Size(), fi.ModTime().UnixNano()})
	}
	// protects reports whether the stub endangers a session compactd knows.
	protects := func(s stub) bool {
		for id, files := range sessions {
			if s.SessionID != "" && id != s.SessionID {
				continue
			}
			for _, f := range files {
				if known(f) {
					return true
				}
			}
		}
		return false
	}
	anyKnown := false
	for _, files := range sessions {
		for _, f := range files {
			anyKnown = anyKnown || known(f)
		}
	}
	if !anyKnown {
		return nil // sessions compactd never touched are left to the agent
	}
	var removed, waiting []string
	for _, s := range stubs {
		if !protects(s) {
			continue
		}
		if !s.Settled {
			waiting = append(waiting, s.name)
			continue
		}
		p := filepath.Join(dir, s.name)
		// Nothing may have been added since it was read.
		if now, err := os.Lstat(p); err != nil || now.Size() != s.size || now.ModTime().UnixNano() != s.mod {
			waiting = append(waiting, s.name)
			continue
		}
		if err := os.Remove(p); err != nil {
			waiting = append(waiting, s.name)
			continue
		}
		removed = append(removed, s.name)
	}
	var notes []string
	if len(removed) > 0 {
		sort.Strings(removed)
		notes = append(notes, fmt.Sprintf("removed %s from %s: stub%s Gemini CLI's --resume left, holding no conversation, with which its next start of another session (a fork's too) would delete the session (google-gemini/gemini-cli#27368)",
			strings.Join(removed, ", "), dir, plural(len(removed))))
	}
	if len(waiting)+len(damaged) > 0 {
		left := append(waiting, damaged...)
		sort.Strings(left)
		notes = append(notes, fmt.Sprintf("warning: Gemini CLI may delete the session of %s at its next start of another session (a fork's too): %s beside it hold%s no conversation it resumes%s (google-gemini/gemini-cli#27368); set general.sessionRetention.enabled to false in ~/.gemini/settings.json to keep it",
			strings.Join(sortedKeys(sessions), ", "), strings.Join(left, ", "), map[bool]string{true: "s", false: ""}[len(left) == 1], stillRunning(len(waiting) > 0)))
	}
	return notes
}

func stillRunning(b bool) string {
	if b {
		return " (a Gemini CLI still running may be writing it; compactd removes it once it is done, while the editor runs compactd)"
	}
	return ""
}

// shortID is the session's 8 characters a chats file is named for
// (session-<time>-<8>.json[l]), "" for other names.
func shortID(name string) string {
	if !strings.HasPrefix(name, "session-") {
		return ""
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
	if stem == name || len(stem) < len("session-")+9 || stem[len(stem)-9] != '-' {
		return ""
	}
	return stem[len(stem)-8:]
}

// sessionOf reads the session id of a Gemini CLI recording: the sessionId
// of its first object (a JSONL recording's header line, or a legacy
// document's metadata).
func sessionOf(path string) string {
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

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
