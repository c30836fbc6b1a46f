package jobs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/compactd/compactd/compaction/format/codex"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/store"
)

// TestCompressedRolloutForksAndRefusesInPlace: a Codex rollout compressed
// to .jsonl.zst compacts to a plain JSONL fork the agent can resume; the
// store keeps its decompressed content; writing it in place is refused and
// leaves the compressed file byte for byte as it was.
func TestCompressedRolloutForksAndRefusesInPlace(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	s, err := store.Open(ctx, os.Getenv("COMPACTD_STORE"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := New(s) // the real pipeline and codec

	dir := filepath.Join(root, "codex", "sessions", "2026", "11", "22")
	os.MkdirAll(dir, 0o755)
	data := sessiongen.Codex(sessiongen.Options{Seed: 5, Turns: 30, Cwd: root})
	enc, _ := zstd.NewWriter(nil)
	compressed := enc.EncodeAll(data, nil)
	enc.Close()
	path := filepath.Join(dir, "rollout-2026-11-22T09-00-00-0196a0b1-aaaa-7bbb-8ccc-000000000003.jsonl.zst")
	if err := os.WriteFile(path, compressed, 0o644); err != nil {
		t.Fatal(err)
	}

	res, err := r.Compact(ctx, Request{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "codex" || !strings.HasSuffix(res.ForkPath, ".jsonl") || filepath.Dir(res.ForkPath) != dir {
		t.Fatalf("fork %s (%s): want a plain .jsonl rollout beside the source", res.ForkPath, res.Format)
	}
	fork, err := os.ReadFile(res.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	ft, err := codex.Codec{}.Parse(fork)
	if err != nil || ft.Skipped > 0 || len(ft.Messages) == 0 {
		t.Fatalf("the fork does not parse as a Codex rollout: %v (%d skipped)", err, ft.Skipped)
	}
	if res.TokensAfter >= res.TokensBefore {
		t.Errorf("compaction saved nothing: %d → %d", res.TokensBefore, res.TokensAfter)
	}
	// The source version is the decompressed rollout.
	conv, ok, err := s.FindConversation(ctx, path, conversationKey(ft, path))
	if err != nil || !ok {
		t.Fatalf("no conversation for the source: %v", err)
	}
	v1, err := s.Version(ctx, conv.ID, res.Parent)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Content(ctx, v1.ContentHash); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the source version is not the decompressed rollout (%d bytes, %v)", len(got), err)
	}

	for name, run := range map[string]func() error{
		"compact --in-place": func() error { _, err := r.Compact(ctx, Request{Path: path, InPlace: true}); return err },
		"restore --in-place": func() error { _, err := r.Restore(ctx, path, res.Version, true); return err },
	} {
		err := run()
		if err == nil || !strings.Contains(err.Error(), "compressed") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err %v, want a refusal naming the compressed file", name, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, compressed) {
			t.Fatalf("%s changed the compressed rollout", name)
		}
	}
	// Restoring as a fork writes plain JSONL too: the whole rollout,
	// under a session id of its own.
	rr, err := r.Restore(ctx, path, res.Parent, false)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := codex.Codec{}.Parse(data)
	got, _ := os.ReadFile(rr.Path)
	rt, err := codex.Codec{}.Parse(got)
	if err != nil || strings.HasSuffix(rr.Path, ".zst") || len(rt.Messages) != len(st.Messages) {
		t.Fatalf("restore %s as a fork: %s, %v: %d messages, want %d", res.Parent, rr.Path, err, len(rt.Messages), len(st.Messages))
	}
}
