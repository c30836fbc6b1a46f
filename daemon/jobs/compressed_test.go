package jobs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/compactd/compactd/compaction/format/codex"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
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
	compressed := zstdBytes(t, data)
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
	if before, after := gaugeTokens(t, data), gaugeTokens(t, fork); after >= before || after != res.TokensAfter {
		t.Errorf("the fork's gauge is %d tokens (the report says %d), the source's %d", after, res.TokensAfter, before)
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
		if err == nil || !strings.Contains(err.Error(), "compressed") || !strings.Contains(err.Error(), "fork") || !strings.Contains(err.Error(), path) {
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

	// History and diff find the conversation by the compressed path.
	h, err := r.History(ctx, path)
	if err != nil || len(h.Versions) < 3 {
		t.Fatalf("history of the compressed rollout: %v", err)
	}
	if diff, err := r.Diff(ctx, path, res.Parent, res.Version); err != nil || !strings.Contains(diff, "--- "+res.Parent) {
		t.Fatalf("diff %s %s: %v\n%s", res.Parent, res.Version, err, diff)
	}
	// A dry run reads it too and writes nothing beside it.
	entries, _ := os.ReadDir(dir)
	dry, err := r.Compact(ctx, Request{Path: path, DryRun: true})
	if err != nil || dry.TokensBefore != res.TokensBefore || dry.ReportPath == "" {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	if after, _ := os.ReadDir(dir); len(after) != len(entries) {
		t.Errorf("the dry run wrote beside the rollout: %d files, had %d", len(after), len(entries))
	}
}

// TestCompressedCorpusRollouts: the real rollouts of the shared corpus,
// compressed, compact to forks the Codex codec reads back.
func TestCompressedCorpusRollouts(t *testing.T) {
	files := formattest.Corpus(t, "codex", "*.jsonl")
	root := isolate(t)
	ctx := context.Background()
	s, err := store.Open(ctx, os.Getenv("COMPACTD_STORE"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := New(s)
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "sessions", filepath.Base(f))
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, fmt.Sprintf("rollout-2026-11-22T09-00-00-0196a0b1-aaaa-7bbb-8ccc-%012d.jsonl.zst", i))
		os.WriteFile(path, zstdBytes(t, data), 0o644)
		res, err := r.Compact(ctx, Request{Path: path})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		fork, _ := os.ReadFile(res.ForkPath)
		if ft, err := (codex.Codec{}).Parse(fork); err != nil || len(ft.Messages) == 0 || strings.HasSuffix(res.ForkPath, ".zst") {
			t.Errorf("%s: fork %s does not read back: %v", filepath.Base(f), filepath.Base(res.ForkPath), err)
		}
	}
}

func zstdBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

// gaugeTokens is what compactd gauge shows for a Codex rollout.
func gaugeTokens(t *testing.T, data []byte) int {
	t.Helper()
	tr, err := codex.Codec{}.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tokens.NewCounterSet().For(gauge.Resolve(tr, gauge.Options{}).Info)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := c.CountMessages(context.Background(), tr.Messages)
	if err != nil {
		t.Fatal(err)
	}
	return gauge.Compute(tr, counts, gauge.Options{}).Tokens
}
