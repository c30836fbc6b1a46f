package qwen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

const session = "testdata/session.jsonl"

func TestParseSession(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	got := formattest.Lines(tr.Messages)
	want := []string{
		"user text|List the files and tell me what calc.go does.||",
		`assistant tool_call||call_a1|{"command":"ls","description":"List files"}`,
		"user tool_result|Command: ls\nDirectory: (root)\nOutput: calc.go\ncalc_test.go\ngo.mod\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)|call_a1|",
		"assistant reasoning|Checking what the package exports.||",
		"assistant text|calc.go defines Add and Sub.||",
		"user text|Fix Add: it subtracts.||",
		`assistant tool_call||call_b2|{"absolute_path":"/home/ada/calc/calc.go"}`,
		"user tool_result|package calc\n\nfunc Add(a, b int) int { return a - b }\n|call_b2|",
		"assistant text|Add returns a - b; it should return a + b.||",
	}
	formattest.SameLines(t, got, want)
	if tr.Messages[2].Origin != transcript.OriginToolResult || tr.Messages[4].Origin != transcript.OriginHuman {
		t.Fatalf("origins %v %v", tr.Messages[2].Origin, tr.Messages[5].Origin)
	}
	if len(tr.Turns) != 2 || tr.Turns[1].Start != 4 {
		t.Fatalf("turns %+v", tr.Turns)
	}
	if tr.Skipped != 1 || tr.Problems[0].Line != 5 {
		t.Fatalf("problems %+v", tr.Problems)
	}
	m := tr.Meta
	if m.SessionID != "3c9e2b7a-8f41-4d6c-a1e5-7b0d9f2c4e18" || m.Cwd != "/home/ada/calc" || m.Model != "qwen3-coder-plus" || m.ContextWindow != 1_000_000 || m.AgentVersion != "0.24.4" {
		t.Fatalf("meta %+v", m)
	}
	kinds := map[transcript.RecordKind]int{}
	for _, r := range tr.Records {
		kinds[r.Kind]++
	}
	if kinds[transcript.RecordUnknown] != 1 || kinds[transcript.RecordMeta] != 8 || kinds[transcript.RecordMessage] != 8 {
		t.Fatalf("record kinds %v", kinds)
	}
}

// TestGaugeEqualsReported: the gauge of a session whose last message is a
// response equals what the API reported for it (totalTokenCount), and it
// counts the tool calls, where the Claude Code reading gave 120 tokens and
// 0 calls.
func TestGaugeEqualsReported(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	g := formattest.LiveGauge(t, tr, tokens.CL100kBase)
	if g.Source != gauge.SourceReported || g.Tokens != 18900 || g.Reported != 18900 || g.ToolCalls != 2 || g.ContextWindow != 1_000_000 {
		t.Fatalf("gauge %+v", g)
	}
}

func TestAppendInChunks(t *testing.T) {
	src := formattest.Read(t, session)
	for seed := range uint64(20) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}
}

func TestRewindFollowsTheChain(t *testing.T) {
	src := formattest.Read(t, session)
	// A new prompt whose parent is the first answer: the second turn is
	// off the chain now.
	rewind := `{"uuid":"9a8b7c6d-0000-4000-8000-000000000001","parentUuid":"23315772-dd40-4413-9077-83e73254f095","sessionId":"s","timestamp":"2026-11-23T20:10:00.000Z","type":"user","cwd":"/home/ada/calc","message":{"role":"user","parts":[{"text":"Never mind; explain Sub."}]}}` + "\n"
	tr := formattest.RoundTrip(t, Codec{}, "rewound", append(bytes.Clone(src), rewind...))
	got := formattest.Lines(tr.Messages)
	if len(got) != 6 || got[5] != "user text|Never mind; explain Sub.||" {
		t.Fatalf("after rewind:\n%s", strings.Join(got, "\n"))
	}
	formattest.AppendInChunks(t, Codec{}, append(bytes.Clone(src), rewind...), 3)
}

func TestDetect(t *testing.T) {
	head := formattest.Head(t, session)
	if s := (Codec{}).Detect("x.jsonl", head); s < 90 {
		t.Fatalf("own session scored %d", s)
	}
	formattest.DetectsNone(t, Codec{}, "../claude/testdata/mixed.jsonl", "../gemini/testdata/session-2026-04-29T21-39-5f1c2a9e.jsonl")
}

func TestParseErrors(t *testing.T) {
	if _, err := (Codec{}).Parse([]byte("not json\nat all\n")); err == nil {
		t.Fatal("garbage parsed")
	}
}

func FuzzParseQwen(f *testing.F) {
	f.Add(formattest.Read(f, session))
	f.Add(formattest.Read(f, "testdata/fork-summary.golden.jsonl"))
	f.Add([]byte(`{"uuid":"a","parentUuid":"a","sessionId":"s","type":"system","subtype":"chat_compression","systemPayload":{"compressedHistory":[{"role":"user","parts":[{"text":"x"}]},7]}}` + "\n"))
	f.Fuzz(func(t *testing.T, src []byte) { formattest.ParseAndFork(t, Codec{}, "x.jsonl", src) })
}

func TestForkGolden(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	cases := formattest.ForkCases(4, "Earlier: listed the files; calc.go defines Add and Sub.")
	opts := format.ForkOptions{SessionID: "fork-0001", Timestamp: "2026-11-24T10:00:00.000Z", TokensBefore: 18900, TokensAfter: 900}
	golden := func(name string) string { return "fork-" + name + ".golden.jsonl" }
	formattest.ForkGoldens(t, Codec{}, tr, cases, opts, golden, func(t *testing.T, name string, v *transcript.View, _ []byte, back *transcript.Transcript) {
		formattest.SameLines(t, formattest.Lines(back.Messages, ackText), formattest.ViewLines(v))
		if back.Meta.SessionID != "fork-0001" || back.Meta.Cwd != "/home/ada/calc" {
			t.Fatalf("fork meta %+v", back.Meta)
		}
		if name == "summary" && back.Messages[0].Origin != transcript.OriginSummary {
			t.Fatalf("summary origin %v", back.Messages[0].Origin)
		}
		// A fork of the fork reads the same again (the compression
		// record's history forks too).
		again, back2 := formattest.ForkParse(t, Codec{}, transcript.NewView(back), format.ForkOptions{SessionID: "fork-0002"})
		if !bytes.Contains(again, []byte("fork-0002")) {
			t.Fatal("second fork kept the old session id")
		}
		formattest.SameLines(t, formattest.Lines(back2.Messages), formattest.Lines(back.Messages))
	})
}
