package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The two files Gemini CLI 0.61.0 left for one session resumed a minute
// after it began (testdata/SOURCES.md).
const (
	twoFilesID   = "11111111-2222-4333-8444-555555555555"
	twoFilesReal = "testdata/two-files/session-2026-11-26T00-57-11111111.jsonl"
	twoFilesStub = "testdata/two-files/session-2026-11-26T00-58-11111111.jsonl"
)

func line(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestStubOf(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	stub := read(twoFilesStub)
	header := line(t, map[string]any{"sessionId": twoFilesID, "projectHash": "abc", "startTime": "2026-11-26T00:58:04.121Z", "lastUpdated": "2026-11-26T00:58:04.121Z", "kind": "main"})
	user := func(text string) map[string]any {
		return map[string]any{"id": "m1", "timestamp": "2026-11-26T00:58:04.123Z", "type": "user", "content": []any{map[string]any{"text": text}}}
	}
	context := line(t, map[string]any{"$set": map[string]any{"messages": []any{user("<session_context>\nThis is the Gemini CLI.")}, "lastUpdated": "2026-11-26T00:58:06Z"}})
	cases := []struct {
		name, data string
		want       *Stub
	}{
		{"the stub Gemini CLI left", stub, &Stub{twoFilesID, true}},
		{"a header alone: Gemini CLI still runs", header, &Stub{twoFilesID, false}},
		{"a header and the context", header + context, &Stub{twoFilesID, true}},
		{"the context without its header: the leftover of a stub removed too early", context, &Stub{"", true}},
		{"two resumes in one minute", header + context + header + context, &Stub{twoFilesID, true}},
		{"two resumes in one minute, the second running", header + context + header, &Stub{twoFilesID, false}},
		{"a header of another session after", header + context + line(t, map[string]any{"sessionId": "22222222-2222-4222-8222-222222222222", "projectHash": "abc"}), nil},
		{"a header, then a slash command", header + line(t, user("/stats")), &Stub{twoFilesID, false}},
		{"a header, then hook context in a string", header + line(t, map[string]any{"id": "h", "type": "user", "content": "  <hook_context>x</hook_context>"}), &Stub{twoFilesID, false}},
		{"a header and lastUpdated", header + line(t, map[string]any{"$set": map[string]any{"lastUpdated": "2026-11-26T00:59:00Z"}}), &Stub{twoFilesID, false}},
		{"the session's real file", read(twoFilesReal), nil},
		{"a prompt", header + line(t, user("fix the bug")), nil},
		{"a prompt in a $set", header + line(t, map[string]any{"$set": map[string]any{"messages": []any{user("fix the bug")}}}), nil},
		{"an image", header + line(t, map[string]any{"id": "i", "type": "user", "content": []any{map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": "AA=="}}}}), nil},
		{"a model message", header + line(t, map[string]any{"id": "g", "type": "gemini", "content": ""}), nil},
		{"an error shown to the user", header + line(t, map[string]any{"id": "e", "type": "error", "content": "quota exceeded"}), nil},
		{"a summary", header + line(t, map[string]any{"$set": map[string]any{"summary": "Refactor the parser"}}), nil},
		{"a patch naming another session", header + line(t, map[string]any{"$set": map[string]any{"sessionId": "22222222-2222-4222-8222-222222222222"}}), nil},
		{"a rewind", header + line(t, map[string]any{"$rewindTo": "m1"}), nil},
		{"a damaged line", header + "{\"$set\":\n", nil},
		{"a message first", line(t, user("/stats")), nil},
		{"empty", "", nil},
		{"too large to be one", header + strings.Repeat(" \n", StubMaxBytes), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := StubOf([]byte(c.data))
			if ok != (c.want != nil) || ok && got != *c.want {
				t.Errorf("StubOf = %+v, %v; want %+v", got, ok, c.want)
			}
		})
	}
}

func TestMaySessionFile(t *testing.T) {
	for name, want := range map[string]bool{
		filepath.Base(twoFilesReal):                     true,
		filepath.Base(twoFilesStub):                     true,
		"session-2026-11-26T00-58-11111111.json":        true,
		"session-2026-11-26T00-58-11111112.jsonl":       false,
		"session-2026-11-26T00-58-11111111.jsonl.bak":   false,
		"checkpoint-2026-11-26T00-58-11111111.jsonl":    false,
		"session-2026-11-26T00-58-11111111.compactd-v2": false,
	} {
		if got := MaySessionFile(name, twoFilesID); got != want {
			t.Errorf("MaySessionFile(%q) = %v, want %v", name, got, want)
		}
	}
	if MaySessionFile("session-x-1111111.jsonl", "1111111") {
		t.Error("an id shorter than 8 characters names no files")
	}
}

func TestSweepTakes(t *testing.T) {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	header := line(t, map[string]any{"sessionId": twoFilesID, "projectHash": "abc", "kind": "main"})
	cases := []struct {
		name string
		data []byte
		want bool
	}{
		{"the stub Gemini CLI left", read(twoFilesStub), true},
		{"a recording", read(twoFilesReal), false},
		{"a recording Gemini CLI 0.61 resumed", read("testdata/v0.61-resumed-session.jsonl"), false},
		{"a legacy document", read("testdata/legacy-session.json"), false},
		{"a subagent's", []byte(line(t, map[string]any{"sessionId": twoFilesID, "projectHash": "abc", "kind": "subagent"}) + line(t, map[string]any{"id": "u", "type": "user", "content": "go"})), true},
		{"an error only", []byte(header + line(t, map[string]any{"id": "e", "type": "error", "content": "quota"})), true},
		{"a model message with text", []byte(header + line(t, map[string]any{"id": "g", "type": "gemini", "content": "Hi"})), false},
		{"a model message, empty", []byte(header + line(t, map[string]any{"id": "g", "type": "gemini", "content": ""})), true},
		{"a prompt, then replaced by a $set of context", []byte(header + line(t, map[string]any{"id": "u", "type": "user", "content": "go"}) +
			line(t, map[string]any{"$set": map[string]any{"messages": []any{map[string]any{"id": "c", "type": "user", "content": "<session_context>x"}}}})), true},
		{"no project", []byte(line(t, map[string]any{"sessionId": twoFilesID}) + line(t, map[string]any{"id": "u", "type": "user", "content": "go"})), true},
		{"not JSON", []byte("hello\n"), true},
	}
	for _, c := range cases {
		if got := SweepTakes(c.data); got != c.want {
			t.Errorf("%s: SweepTakes = %v, want %v", c.name, got, c.want)
		}
	}
}

// FuzzStub holds StubOf to what it is for: a file it calls a stub (which
// compactd removes) is one Gemini CLI's sweep deletes anyway — it holds
// no message Gemini CLI resumes.
func FuzzStub(f *testing.F) {
	for _, p := range []string{twoFilesStub, twoFilesReal, "testdata/v0.61-resumed-session.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, ok := StubOf(data); ok && !SweepTakes(data) {
			t.Fatalf("StubOf holds a file Gemini CLI keeps:\n%s", data)
		}
	})
}
