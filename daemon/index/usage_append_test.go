package index

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCodexUsageInSecondRead: Codex writes its final answer and, in a
// later write, the token_count event carrying that answer's usage. Read
// in two appends, the gauge shows the new usage at once (what a fresh
// index of the same bytes shows), not the previous turn's figure.
func TestCodexUsageInSecondRead(t *testing.T) {
	src, err := os.ReadFile("testdata/codex-v0.169-rollout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(src, []byte(`"type":"token_count"`))
	cut := bytes.LastIndexByte(src[:i], '\n') + 1
	end := cut + bytes.IndexByte(src[cut:], '\n') + 1

	ix := testIndexer(t)
	path := filepath.Join(t.TempDir(), "rollout-2026-06-02T14-00-00-019e4f2a-7c31-7d08-9a5e-3b6c1d8e2f40.jsonl")
	if err := os.WriteFile(path, src[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &tracked{path: path}
	if _, err := tr.update(ix); err != nil {
		t.Fatal(err)
	}
	before := tr.snap.Load().Tokens
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(src[cut:end]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if changed, err := tr.update(ix); err != nil || !changed {
		t.Fatalf("second read: changed=%v err=%v", changed, err)
	}
	fresh := &tracked{path: path}
	if _, err := fresh.update(ix); err != nil {
		t.Fatal(err)
	}
	got, want := tr.snap.Load(), fresh.snap.Load()
	if got.Tokens != want.Tokens || got.Source != want.Source {
		t.Fatalf("after the token_count read: gauge %d (%s), a fresh index of the same bytes %d (%s); before it %d",
			got.Tokens, got.Source, want.Tokens, want.Source, before)
	}
	if want.Tokens != 15_581 {
		t.Fatalf("fresh gauge %d, want the reported 15,581", want.Tokens)
	}
}
