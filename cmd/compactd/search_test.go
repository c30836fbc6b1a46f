package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSearchJSONSaysWhatItsSyncRead: --json reports what bringing the
// index up to date read — the whole session the first time, about what
// was appended after a turn (at most the short piece it ended in again),
// and nothing when nothing changed — and the appended turn is found.
func TestSearchJSONSaysWhatItsSyncRead(t *testing.T) {
	envs := isolatedEnv(t)
	ws := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "gauge", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(ws, "claude-session.jsonl")
	if err := os.WriteFile(session, src, 0o644); err != nil {
		t.Fatal(err)
	}
	type output struct {
		Hits []struct {
			Path string `json:"path"`
		} `json:"hits"`
		Indexed *struct {
			Sessions int   `json:"sessions"`
			Read     int64 `json:"read_bytes"`
			Text     int64 `json:"text_bytes"`
		} `json:"indexed"`
	}
	search := func(query string) output {
		t.Helper()
		code, stdout, stderr := runCLI(t, envs, "search", "--folder", ws, "--json", query)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var out output
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("%v: %s", err, stdout)
		}
		return out
	}

	first := search("inventory")
	if first.Indexed == nil || first.Indexed.Sessions != 1 || first.Indexed.Read != int64(len(src)) || first.Indexed.Text <= 0 {
		t.Fatalf("the first search's sync: %+v, want the one session's %d bytes read", first.Indexed, len(src))
	}

	// A turn as Claude Code appends it.
	var turn []byte
	for i, rec := range []map[string]any{
		{"type": "user", "uuid": "append-0", "parentUuid": "2a4eb824-af35-4b68-acdd-177039f568d4", "sessionId": "743a6a45-51a9-4830-b901-5ec7f256d640",
			"timestamp": "2025-11-17T09:40:00.000Z", "cwd": "/home/dev/src/inventory-service",
			"message": map[string]any{"role": "user", "content": "reconcile the quay manifests before the tide tables"}},
		{"type": "assistant", "uuid": "append-1", "parentUuid": "append-0", "sessionId": "743a6a45-51a9-4830-b901-5ec7f256d640",
			"timestamp": "2025-11-17T09:40:05.000Z", "cwd": "/home/dev/src/inventory-service",
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "The manifests reconcile."}}}},
	} {
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(i, err)
		}
		turn = append(append(turn, b...), '\n')
	}
	f, err := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(turn); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The index reads growing sessions in pieces of about 32 KiB; a last
	// piece shorter than a quarter of that is read again with the append.
	const shortPiece = 8 << 10
	after := search(`"quay manifests before the tide"`)
	if len(after.Hits) != 1 || after.Hits[0].Path != session {
		t.Fatalf("the appended prompt: %+v", after.Hits)
	}
	if after.Indexed == nil || after.Indexed.Sessions != 1 || after.Indexed.Read < int64(len(turn)) || after.Indexed.Read > int64(len(turn))+shortPiece {
		t.Fatalf("after a %d-byte append the sync read %+v, want the append (and at most a short last piece again)", len(turn), after.Indexed)
	}

	if again := search("inventory"); again.Indexed != nil {
		t.Errorf("nothing changed, yet the sync says %+v", again.Indexed)
	}
}
