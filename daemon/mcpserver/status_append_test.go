package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/claude"
)

// TestContextStatusReadsWhatWasAppended: the second context_status of a
// session reads only the bytes appended since the first, and answers what
// a server that never saw the session answers.
func TestContextStatusReadsWhatWasAppended(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	env := agents.Env{Home: filepath.Join(root, "home"), Vars: map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(root, "claude")}}
	dir := claude.ProjectDir(env, project)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "5d1c7a20-3b4e-4f60-8a9b-1c2d3e4f5a6b.jsonl")
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 7, TargetBytes: 2 << 20, Cwd: project})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	server := func() *Server {
		s := &Server{StorePath: filepath.Join(root, "store", "compactd.db"), Env: env, Cwd: project, Agent: claude.Agent}
		t.Cleanup(func() { s.Close() })
		return s
	}
	status := func(s *Server) (string, int64) {
		t.Helper()
		st, err := s.ContextStatus(ctx, StatusRequest{Session: path})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), s.status.Stats().BytesRead
	}

	s := server()
	first, read := status(s)
	if read < int64(len(data)) { // and its head once more, to know its format
		t.Fatalf("the first call read %d bytes, want at least the whole file's %d", read, len(data))
	}
	more := sessiongen.Continue(transcript.FormatClaudeCode, data, 4, 3)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(more); err != nil {
		t.Fatal(err)
	}
	f.Close()
	second, total := status(s)
	if got := total - read; got != int64(len(more)) {
		t.Fatalf("the second call read %d bytes, want the %d appended", got, len(more))
	}
	if second == first {
		t.Fatal("the status did not change with the append")
	}
	fresh, freshRead := status(server())
	if freshRead < int64(len(data)+len(more)) {
		t.Fatalf("a fresh server read %d bytes, want at least %d", freshRead, len(data)+len(more))
	}
	if second != fresh {
		t.Fatalf("after the append:\n%s\nfrom scratch:\n%s", second, fresh)
	}
	var st Status
	if err := json.Unmarshal([]byte(second), &st); err != nil {
		t.Fatal(err)
	}
	if st.Compaction == nil || st.Compaction.Saves <= 0 || len(st.Breakdown) == 0 || st.Tokens == 0 {
		t.Fatalf("the status lacks its figures: %s", second)
	}
}
