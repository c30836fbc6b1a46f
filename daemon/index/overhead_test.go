package index

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestForkGaugeAddsSourceOverhead: the daemon gauges a fork compactd wrote
// (no usage of its own) as its own count plus the overhead the store
// recorded for its source, an estimate; once the resumed agent reports
// usage on the fork, that usage is the gauge again.
func TestForkGaugeAddsSourceOverhead(t *testing.T) {
	src, err := os.ReadFile("testdata/claude-mcp-overhead.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// The fork: the same conversation without the source's usage.
	fork := regexp.MustCompile(`,"usage":\{[^}]*\{[^}]*\}[^}]*\}`).ReplaceAll(src, nil)
	if bytes.Contains(fork, []byte(`"usage"`)) {
		t.Fatal("fixture: usage left in the fork")
	}
	path := filepath.Join(t.TempDir(), "fork.jsonl")
	if err := os.WriteFile(path, fork, 0o644); err != nil {
		t.Fatal(err)
	}
	const overhead = 189_000
	ix := testIndexer(t)
	ix.overhead = func(p string) (int, bool) { return overhead, p == path }
	tr := &tracked{path: path}
	if _, err := tr.update(ix); err != nil {
		t.Fatal(err)
	}
	plain := &tracked{path: path}
	if _, err := plain.update(testIndexer(t)); err != nil {
		t.Fatal(err)
	}
	got, own := tr.snap.Load(), plain.snap.Load().Tokens
	if got.Source != "estimate" || got.Tokens != own+overhead {
		t.Fatalf("fork gauge %d (%s), want its own %d plus the overhead %d, an estimate", got.Tokens, got.Source, own, overhead)
	}
	// The agent resumes the fork and reports usage: that is the gauge.
	last := regexp.MustCompile(`"uuid":"([^"]+)"`).FindAllSubmatch(fork, -1)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, `{"parentUuid":%q,`, last[len(last)-1][1])
	fmt.Fprintln(f, `"isSidechain":false,"type":"assistant","uuid":"9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d","sessionId":"6d5c4b3a-2f1e-4d0c-9b8a-7e6f5d4c3b2a","timestamp":"2026-05-14T10:00:00.000Z","message":{"id":"msg_resumed","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Resumed."}],"usage":{"input_tokens":4,"cache_read_input_tokens":191000,"cache_creation_input_tokens":900,"output_tokens":20}}}`)
	f.Close()
	if _, err := tr.update(ix); err != nil {
		t.Fatal(err)
	}
	if got := tr.snap.Load(); got.Source != "reported+estimate" || got.Tokens != 191_924 {
		t.Fatalf("after the agent reported usage: %d (%s), want 191,924 reported", got.Tokens, got.Source)
	}
}
