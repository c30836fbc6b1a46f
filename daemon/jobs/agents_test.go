package jobs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
)

// TestQwenForkIsANewSession: a Qwen Code session compacts into a new
// <session id>.jsonl beside it (the name Qwen's --resume looks for), read
// back as Qwen Code with its conversation, and the result says how to
// resume it.
func TestQwenForkIsANewSession(t *testing.T) {
	root := isolate(t)
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	src, err := os.ReadFile("../../compaction/format/qwen/testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "3c9e2b7a-8f41-4d6c-a1e5-7b0d9f2c4e18.jsonl")
	os.WriteFile(path, src, 0o644)
	res, err := r.Compact(context.Background(), Request{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "qwen-code" || filepath.Base(res.ForkPath) != res.Session+".jsonl" || filepath.Dir(res.ForkPath) != root {
		t.Fatalf("result %+v", res)
	}
	if res.Resume != "cd /home/ada/calc && qwen --resume "+res.Session {
		t.Fatalf("resume %q", res.Resume)
	}
	fork, _ := os.ReadFile(res.ForkPath)
	c, err := format.Detect(res.ForkPath, fork)
	if err != nil || c.Format() != "qwen-code" {
		t.Fatalf("fork detected as %v (%v)", c, err)
	}
	tr, err := c.Parse(fork)
	if err != nil || len(tr.Messages) == 0 || tr.Meta.SessionID != res.Session {
		t.Fatalf("fork parse: %v, %d messages, session %q", err, len(tr.Messages), tr.Meta.SessionID)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, src) {
		t.Fatal("the source changed")
	}
}

// TestOpenCodeForkIsAnExportToImport: a database session (its rendering)
// compacts into an export with a new session id, never in place, and the
// result names the import and resume commands.
func TestOpenCodeForkIsAnExportToImport(t *testing.T) {
	root := isolate(t)
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	src, err := os.ReadFile("../../compaction/format/opencode/testdata/session.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "sessions", "opencode")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, "ses_df6018d8cffeeRX164hLZrrQC7.json")
	os.WriteFile(path, src, 0o600)
	if _, err := r.Compact(context.Background(), Request{Path: path, InPlace: true}); err == nil || !strings.Contains(err.Error(), "never writes") {
		t.Fatalf("in-place compaction of a database session: %v", err)
	}
	res, err := r.Compact(context.Background(), Request{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "opencode" || !strings.HasPrefix(res.Session, "ses_") || res.Session == "ses_df6018d8cffeeRX164hLZrrQC7" {
		t.Fatalf("result %+v", res)
	}
	fork := res.ForkPath
	if runtime.GOOS == "windows" {
		fork = "'" + fork + "'" // C:\… holds characters a shell would read
	}
	want := "cd /home/ada/calc && opencode import " + fork + " && opencode --session " + res.Session
	if res.Resume != want {
		t.Fatalf("resume %q, want %q", res.Resume, want)
	}
	// --import without the agent on PATH: the fork stands, a note says why.
	t.Setenv("PATH", t.TempDir())
	res2, err := r.Compact(context.Background(), Request{Path: path, Import: true})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Imported || len(res2.Notes) == 0 || !strings.Contains(res2.Notes[len(res2.Notes)-1], "not on PATH") {
		t.Fatalf("import without opencode: %+v", res2)
	}
}
