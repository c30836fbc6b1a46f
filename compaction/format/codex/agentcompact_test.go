package codex

import (
	"bytes"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
)

// TestAgentCompactions: a rollout Codex compacted lists the compacted
// record with its summary and replacement history, and the rollout before
// it comes back whole as a new session forked from this one.
func TestAgentCompactions(t *testing.T) {
	src := formattest.Fixture(t, "v0.169-compacted.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "compacted", src)
	list := Codec{}.AgentCompactions(tr)
	if len(list) != 1 || !strings.HasPrefix(list[0].Summary, "Summary: the nightly export") || len(list[0].After) != 4 || list[0].TokensBefore != 31_080 {
		t.Fatalf("agent compactions = %+v", list)
	}
	out, err := Codec{}.BeforeCompaction(tr, 0, format.ForkOptions{SessionID: "019e6b2c-3d4e-7f5a-8b6c-7d8e9f0a1b2c"})
	if err != nil {
		t.Fatal(err)
	}
	before, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if before.Meta.SessionID != "019e6b2c-3d4e-7f5a-8b6c-7d8e9f0a1b2c" || before.Meta.ForkedFrom != tr.Meta.SessionID {
		t.Fatalf("before a1: meta %+v", before.Meta)
	}
	if bytes.Contains(out, []byte(`"type":"compacted"`)) || !bytes.Contains(out, []byte("The export reads every account twice")) {
		t.Fatalf("before a1 is not the rollout before its compaction:\n%s", out)
	}
	cut := bytes.Index(src, []byte(`"type":"compacted"`))
	cut = bytes.LastIndexByte(src[:cut], '\n') + 1
	if got := bytes.Count(out, []byte("\n")); got != bytes.Count(src[:cut], []byte("\n")) {
		t.Fatalf("before a1 has %d lines, the rollout before its compaction %d", got, bytes.Count(src[:cut], []byte("\n")))
	}
}

// TestAgentCompactionLoggedAsATurn: Codex 0.169 compacting inline logs its
// summarisation request like a turn before the compacted record — a
// task_started, the summary as an assistant message, the request's usage
// (29,630: the history and the summary prompt, without tools). The
// conversation before the compaction ends before them: restored with them,
// the fork ended on the summary, and its gauge calibrated on the
// summarisation request stood 13.6 % below what the resumed Codex sent.
func TestAgentCompactionLoggedAsATurn(t *testing.T) {
	src := formattest.Fixture(t, "v0.169-own-compaction.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "own compaction", src)
	list := Codec{}.AgentCompactions(tr)
	if len(list) != 1 || list[0].TokensBefore != 31_080 {
		t.Fatalf("agent compactions = %+v, want one with 31,080 tokens before", list)
	}
	out, err := Codec{}.BeforeCompaction(tr, 0, format.ForkOptions{SessionID: "019e6b2c-3d4e-7f5a-8b6c-7d8e9f0a1b2c"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("Summary: the nightly")) || bytes.Contains(out, []byte(`"task_started"`)) || bytes.Contains(out, []byte("29630")) {
		t.Fatalf("before a1 holds the compaction's own records:\n%s", out)
	}
	before, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	last := before.LastUsage()
	if last < 0 || before.Messages[last].Usage.ContextTokens() != 31_080 {
		t.Errorf("before a1's last usage (message %d) is not the conversation's 31,080", last)
	}
}
