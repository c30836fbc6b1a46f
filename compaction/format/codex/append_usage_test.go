package codex

import (
	"bytes"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// splitBeforeLastTokenCount cuts a rollout before its last token_count
// event: what the daemon reads while Codex works is the final answer in
// one read and the event carrying its usage in the next.
func splitBeforeLastTokenCount(t *testing.T, src []byte) (head, tail []byte) {
	t.Helper()
	i := bytes.LastIndex(src, []byte(`"type":"token_count"`))
	if i < 0 {
		t.Fatal("fixture has no token_count")
	}
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	end := start + bytes.IndexByte(src[start:], '\n') + 1
	return src[:start], src[start:end]
}

// TestAppendTokenCountInLaterRead: the token_count that carries the last
// answer's usage arrives in its own Append. The usage attaches to that
// answer, and Kept says the answer changed (it is not among the leading
// messages left as they were), so a consumer carrying figures forward
// (the daemon's gauge statistics) sees the new usage at once.
func TestAppendTokenCountInLaterRead(t *testing.T) {
	src := formattest.Fixture(t, "v0.169-world-state.jsonl")
	head, tail := splitBeforeLastTokenCount(t, src)
	prev, err := Codec{}.Parse(head)
	if err != nil {
		t.Fatal(err)
	}
	next, err := Codec{}.Append(prev, tail)
	if err != nil {
		t.Fatal(err)
	}
	last := len(next.Messages) - 1
	if len(next.Messages) != len(prev.Messages) || next.Messages[last].Usage == nil || next.Messages[last].Usage.Total != 15_581 {
		t.Fatalf("usage not attached to the last answer: %+v", next.Messages[last].Usage)
	}
	if next.Kept != last {
		t.Fatalf("Kept = %d, want %d: the last answer gained usage, the messages before it are unchanged", next.Kept, last)
	}
	carried := transcript.StatsOf(prev.Messages).Advance(prev.Messages, next.Messages, next.Kept)
	if want := transcript.StatsOf(next.Messages); carried != want {
		t.Fatalf("carried stats %+v, recomputed %+v", carried, want)
	}
}
