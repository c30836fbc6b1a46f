package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Gemini CLI 0.61 (and every release since its JSONL recording, up to at
// least 0.61.0) loses a resumed session when any other session starts:
//
//  1. `gemini --resume X` takes X as the process's session id and first
//     starts a new recording under it, session-<this minute>-<X[:8]>.jsonl,
//     before it reopens X's real file and records there. The new file
//     keeps only its header (and a $set of the injected <session_context>
//     message): a stub. When the minute differs from the one in the real
//     file's name, the stub is a second file for X.
//  2. At every start, its session retention sweep (on by default) lists
//     the chats folder; a file with no resumable message is "corrupted",
//     and for each such file it deletes every session-*-<the same 8
//     characters>.json[l] whose session id is not the starting process's:
//     X's real file included.
//
// So the next start of any other session — resuming a fork compactd wrote,
// too — deletes X (google-gemini/gemini-cli#27368, #27877). A stub holds
// nothing Gemini CLI ever reads back: it lists it as no session and
// resumes X from the real file. Removing it, once Gemini CLI has moved on
// to the real file, takes nothing away and keeps X.

// StubMaxBytes bounds the files worth reading as stubs: a stub is a header
// and one injected message, a few kilobytes.
const StubMaxBytes = 256 << 10

// MaySessionFile reports whether name is one of the files Gemini CLI's
// sweep takes together with session id's: session-*-<id[:8]>.json[l].
func MaySessionFile(name, sessionID string) bool {
	if len(sessionID) < 8 || !strings.HasPrefix(name, "session-") {
		return false
	}
	short := "-" + sessionID[:8]
	return strings.HasSuffix(name, short+".jsonl") || strings.HasSuffix(name, short+".json")
}

// A Stub is what StubOf read of a stub.
type Stub struct {
	// SessionID is the session its header names; "" for a headerless
	// leftover (see Settled).
	SessionID string
	// Settled is set once Gemini CLI is done writing it: a stub gets its
	// header when the process starts and one $set of the history its
	// unused chat holds (the injected context) while it runs, and nothing
	// after. A stub with its header alone may still get that $set: were it
	// removed then, the $set alone would make a file with no header, which
	// the sweep takes for a damaged session just the same. Such a
	// headerless leftover is settled.
	Settled bool
}

// StubOf reports whether data, a file of Gemini CLI's chats folder, is a
// stub (or a stub's headerless leftover): a JSONL recording whose header
// names a session and holds nothing else than what Gemini CLI writes into
// a stub — metadata patches and user messages it never resumes (empty, a
// slash command, the injected <session_context> or <hook_context>).
// Anything else (a model message, a real prompt, an error shown to the
// user, a line it cannot read) makes it not a stub: it is not compactd's
// to remove.
func StubOf(data []byte) (Stub, bool) {
	if len(data) == 0 || len(data) > StubMaxBytes {
		return Stub{}, false
	}
	var st Stub
	first, patched := true, false
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var rec map[string]json.RawMessage
		if json.Unmarshal(line, &rec) != nil {
			return Stub{}, false
		}
		if first {
			first = false
			if rec["$set"] == nil {
				id, ok := headerOf(rec)
				if !ok {
					return Stub{}, false
				}
				st.SessionID = id
				continue
			}
		}
		switch {
		case rec["$set"] != nil:
			msgs, ok := stubPatch(rec["$set"], st.SessionID)
			if !ok {
				return Stub{}, false
			}
			patched = patched || msgs
		case rec["id"] != nil:
			if !ignoredUserMessage(line) {
				return Stub{}, false
			}
		default:
			// Another header: a second resume in the same minute starts
			// its stub in the same file.
			id, ok := headerOf(rec)
			if !ok || st.SessionID != "" && id != st.SessionID {
				return Stub{}, false
			}
			st.SessionID = id
			patched = false // that resume's $set is still to come
		}
	}
	if first {
		return Stub{}, false
	}
	st.Settled = patched || st.SessionID == ""
	return st, true
}

// headerOf reads the first line of a recording: the session it names,
// when it holds a session id, a project and only metadata.
func headerOf(rec map[string]json.RawMessage) (string, bool) {
	var id, hash string
	if json.Unmarshal(rec["sessionId"], &id) != nil || id == "" || json.Unmarshal(rec["projectHash"], &hash) != nil {
		return "", false
	}
	for k := range rec {
		if !stubMetadata[k] {
			return "", false
		}
	}
	return id, true
}

// stubMetadata are the keys of a stub's header and patches.
var stubMetadata = map[string]bool{
	"sessionId": true, "projectHash": true, "startTime": true, "lastUpdated": true,
	"kind": true, "directories": true, "messages": true,
}

// stubPatch reports whether a $set patch keeps the file a stub of
// sessionID ("" for a headerless leftover: any session): metadata only,
// no other session, messages Gemini CLI never resumes; msgs is set when
// it sets the messages (the last thing a stub gets).
func stubPatch(raw json.RawMessage, sessionID string) (msgs, ok bool) {
	var set map[string]json.RawMessage
	if json.Unmarshal(raw, &set) != nil {
		return false, false
	}
	for k, v := range set {
		if !stubMetadata[k] {
			return false, false
		}
		switch k {
		case "sessionId":
			var id string
			if json.Unmarshal(v, &id) != nil || sessionID != "" && id != sessionID {
				return false, false
			}
		case "messages":
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil {
				return false, false
			}
			for _, m := range list {
				if !ignoredUserMessage(m) {
					return false, false
				}
			}
			msgs = true
		}
	}
	return msgs, true
}

// SweepTakes reports whether Gemini CLI's session retention sweep takes
// data, a file of its chats folder, for a damaged session — and with it
// every file whose name ends in the same 8 characters, whatever session
// they hold: it has no header naming a session and project, it is a
// subagent's, or none of its messages is one Gemini CLI resumes (a
// prompt, or a model message with text, tool calls or thoughts).
// Unreadable lines are skipped, as Gemini CLI's loader skips them; a
// legacy document is read as one line when it is one.
func SweepTakes(data []byte) bool {
	var id, project, kind string
	resumable := map[string]bool{}
	var order []string
	note := func(raw json.RawMessage) {
		var m struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &m) != nil || m.ID == "" {
			return
		}
		if _, seen := resumable[m.ID]; !seen {
			order = append(order, m.ID)
		}
		resumable[m.ID] = resumableMessage(raw, m.Type)
	}
	lines := bytes.Split(data, []byte("\n"))
	if json.Valid(data) {
		lines = [][]byte{data} // a legacy document: metadata and messages[]
	}
	for _, line := range lines {
		var rec map[string]json.RawMessage
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		meta := rec
		if set, ok := rec["$set"]; ok {
			meta = nil
			json.Unmarshal(set, &meta)
		}
		if _, isMessage := rec["id"]; !isMessage {
			if msgs, ok := meta["messages"]; ok {
				var elems []json.RawMessage
				if json.Unmarshal(msgs, &elems) == nil {
					resumable, order = map[string]bool{}, nil
					for _, el := range elems {
						note(el)
					}
				}
			}
		} else {
			note(line)
			continue
		}
		json.Unmarshal(meta["sessionId"], &id)
		json.Unmarshal(meta["projectHash"], &project)
		json.Unmarshal(meta["kind"], &kind)
	}
	if id == "" || project == "" || kind == "subagent" {
		return true
	}
	for _, m := range order {
		if resumable[m] {
			return false
		}
	}
	return true
}

// resumableMessage is Gemini CLI's isResumableMessageRecord: a user
// message that is not ignored, or a model message with text, tool calls
// or thoughts.
func resumableMessage(raw []byte, typ string) bool {
	switch typ {
	case "user":
		return !ignoredUserMessage(raw)
	case "gemini":
		var m struct {
			Content   json.RawMessage   `json:"content"`
			ToolCalls []json.RawMessage `json:"toolCalls"`
			Thoughts  []json.RawMessage `json:"thoughts"`
		}
		if json.Unmarshal(raw, &m) != nil {
			return false
		}
		text, textual := textOnly(m.Content)
		return !textual || strings.TrimSpace(text) != "" || len(m.ToolCalls) > 0 || len(m.Thoughts) > 0
	}
	return false
}

// ignoredUserMessage reports whether raw is a user message Gemini CLI
// never resumes (its isIgnoredUserContent): text parts only, whose text,
// trimmed, is empty or starts with "/", "?", "<session_context>" or
// "<hook_context>".
func ignoredUserMessage(raw []byte) bool {
	var m struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Type != "user" {
		return false
	}
	text, ok := textOnly(m.Content)
	if !ok {
		return false
	}
	text = strings.TrimSpace(text)
	return text == "" || strings.HasPrefix(text, "/") || strings.HasPrefix(text, "?") ||
		strings.HasPrefix(text, "<session_context>") || strings.HasPrefix(text, "<hook_context>")
}

// textOnly joins a PartListUnion's text, as Gemini CLI's partToString does
// for text; ok is false when it holds anything but text.
func textOnly(content json.RawMessage) (string, bool) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, true
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal(content, &parts) != nil {
		var one map[string]json.RawMessage
		if json.Unmarshal(content, &one) != nil {
			return "", false
		}
		parts = append(parts, one)
	}
	var b strings.Builder
	for _, p := range parts {
		for k := range p {
			if k != "text" {
				return "", false
			}
		}
		var t string
		if json.Unmarshal(p["text"], &t) != nil {
			return "", false
		}
		b.WriteString(t)
	}
	return b.String(), true
}
