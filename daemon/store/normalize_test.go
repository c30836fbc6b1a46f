package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
)

func TestNormalizeRoundTrips(t *testing.T) {
	cases := []string{
		``,
		`{}`,
		`{"uuid":"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f","parentUuid":null}`,
		`{"uuid":"0A1B2C3D-4E5F-4061-8071-2A3B4C5D6E7F"}`, // upper case stays in the body
		`"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"`,
		`{"message":{"id":"msg_1","usage":{"input_tokens":3,"cache_creation":{"x":"}\"{"},"service_tier":"standard"}},"uuid":"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"}`,
		`{"message":{"usage":{"a":1}},"x":{"usage":{"b":"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"}}}`,
		`{"message":{"usage":{"unclosed":1}`,
		`{"text":"\"usage\":{ not a member","a":"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f0"}`,
		`x"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"y"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{`"`, `{`, `}`, `,"usage":{`, `\`, `-`, `0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f`, "a", "7", `"usage"`, `:`}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		body, patch := normalize([]byte(c))
		back, err := applyPatch(nil, body, patch)
		if err != nil || string(back) != c {
			t.Fatalf("%q: normalized to %q, back %q, %v", c, body, back, err)
		}
	}
	body, _ := normalize([]byte(cases[5]))
	if bytes.Contains(body, []byte("usage")) || bytes.Contains(body, []byte("0a1b2c3d")) {
		t.Errorf("usage and uuid not cut: %q", body)
	}
}

func FuzzNormalize(f *testing.F) {
	f.Add([]byte(`{"uuid":"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f","message":{"usage":{"a":"}"}}}`))
	f.Fuzz(func(t *testing.T, rec []byte) {
		body, patch := normalize(rec)
		back, err := applyPatch(nil, body, patch)
		if err != nil || !bytes.Equal(back, rec) {
			t.Fatalf("%q does not come back: %q, %v", rec, back, err)
		}
	})
}

// claudeFork compacts src with the real pipeline and writes the fork with
// the Claude Code codec: new ids on every line, usage dropped past the cut.
func claudeFork(t *testing.T, src []byte, strategies ...string) []byte {
	t.Helper()
	tr, err := claude.Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := strategy.Run(context.Background(), tr, c, strategy.Options{Strategies: strategies, NoRetention: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := claude.Codec{}.Fork(v, format.ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func storedBytes(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	if err := s.db.QueryRow(`SELECT coalesce(sum(length(data)), 0) FROM blobs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	var segs int64
	s.db.QueryRow(`SELECT coalesce(sum(length(segments)) + sum(coalesce(length(patches), 0)), 0) FROM contents`).Scan(&segs)
	return n + segs
}

// TestForksShareRecords: a fork the Claude Code codec writes renews every
// id and drops usage, yet stores as little more than what it changed; a
// source that grew stores what it added; every version reads back exact.
func TestForksShareRecords(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	c, _ := s.EnsureConversation(ctx, Conversation{Key: "session:x", SourcePath: "/x.jsonl"})
	full := sessiongen.ClaudeCode(sessiongen.Options{Seed: 9, TargetBytes: 2 << 20})
	cut := bytes.LastIndexByte(full[:len(full)*3/4], '\n') + 1
	src := full[:cut]
	record := func(kind string, b []byte, parent int64) Version {
		t.Helper()
		tr, err := claude.Codec{}.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		var cuts []int64
		for _, r := range tr.Records {
			cuts = append(cuts, r.Start)
		}
		v, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: kind, ParentID: parent, SourcePath: "/x.jsonl", Content: b, Cuts: cuts})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Content(ctx, v.ContentHash)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%s version does not read back: %v", kind, err)
		}
		return v
	}
	v1 := record(KindSource, src, 0)
	one := storedBytes(t, s)
	fork := claudeFork(t, src, "strip-reasoning")
	record(KindCompact, fork, v1.ID)
	forkCost := storedBytes(t, s) - one
	if forkCost > int64(len(fork))/10 {
		t.Errorf("a %d-byte fork (new ids on every line) cost %d bytes beside its %d-byte source's %d", len(fork), forkCost, len(src), one)
	}
	window := claudeFork(t, src, "turn-window")
	before := storedBytes(t, s)
	record(KindCompact, window, v1.ID)
	if cost := storedBytes(t, s) - before; cost > int64(len(window))/10 {
		t.Errorf("a %d-byte turn-window fork (usage dropped) cost %d bytes", len(window), cost)
	}
	// The source grew: only what it added is stored.
	before = storedBytes(t, s)
	record(KindSource, full, v1.ID)
	added := int64(len(full) - len(src))
	if cost := storedBytes(t, s) - before; cost > added/2 {
		t.Errorf("a source that grew by %d bytes cost %d", added, cost)
	}
	t.Logf("source %d bytes stored in %d; fork %d bytes in %d", len(src), one, len(fork), forkCost)
}

// TestGrowsOnSchema2Content: a source stored by an older build (raw
// deflated segments, no patches) that grew is recorded on top of it and
// both read back exact.
func TestGrowsOnSchema2Content(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	c, _ := s.EnsureConversation(ctx, Conversation{Key: "session:y", SourcePath: "/y.jsonl"})
	var lines []string
	for i := range 1500 {
		lines = append(lines, fmt.Sprintf(`{"uuid":"%08x-0000-4000-8000-000000000000","n":%d}`, i, i))
	}
	old := []byte(strings.Join(lines[:1100], "\n") + "\n")
	grown := []byte(strings.Join(lines, "\n") + "\n")
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := putContentV1(ctx, tx, old, LineCuts(old))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO versions(conversation_id, label, source_path, created_at, kind, source_hash, content_hash, size) VALUES (?, 'v1', '/y.jsonl', '2025-01-01T00:00:00Z', 'source', ?, ?, ?)`, c.ID, h, h, len(old)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	v, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindSource, SourcePath: "/y.jsonl", Content: grown, Cuts: LineCuts(grown)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]byte{old, grown} {
		got, err := s.Content(ctx, ContentHash(want))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("content of %d bytes: %v", len(want), err)
		}
	}
	_ = v
}
