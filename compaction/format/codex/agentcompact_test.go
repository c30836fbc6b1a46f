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
