package cursor

import (
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

const session = "testdata/transcript.jsonl"

func TestParseTranscript(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	want := []string{
		"user text|<user_query>\nList the files and tell me what calc.go does.\n</user_query>||",
		"assistant reasoning|Look at the files first.||",
		"assistant text|Listing the files.||",
		`assistant tool_call||call-1|{"command":"ls"}`,
		"user tool_result|calc.go\ncalc_test.go\ngo.mod|call-1|",
		`assistant tool_call||call-2|{"path":"calc.go"}`,
		"user tool_result|package calc\n\nfunc Add(a, b int) int { return a - b }\n|call-2|",
		"assistant text|calc.go defines Add, which subtracts.||",
		"user text|<user_query>\nFix Add.\n</user_query>||",
		"assistant text|Add now returns a + b.||",
	}
	formattest.SameLines(t, formattest.Lines(tr.Messages), want)
	if tr.Skipped != 1 || tr.Problems[0].Line != 8 || len(tr.Turns) != 2 {
		t.Fatalf("problems %+v turns %+v", tr.Problems, tr.Turns)
	}
	if tr.Records[6].Kind != transcript.RecordMeta || tr.Records[10].Kind != transcript.RecordUnknown {
		t.Fatalf("record kinds %v %v", tr.Records[6].Kind, tr.Records[10].Kind)
	}
	// No usage is recorded: the gauge is an estimate.
	if g := formattest.LiveGauge(t, tr, tokens.O200kBase); g.Source != gauge.SourceEstimate || g.Tokens == 0 || g.ToolCalls != 2 {
		t.Fatalf("gauge %+v", g)
	}
}

func TestAppendInChunks(t *testing.T) {
	src := formattest.Read(t, session)
	for seed := range uint64(20) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}
}

func TestDetect(t *testing.T) {
	if s := (Codec{}).Detect("/h/.cursor/projects/p/agent-transcripts/x/x.jsonl", formattest.Head(t, session)); s < 95 {
		t.Fatalf("own transcript scored %d", s)
	}
	formattest.DetectsNone(t, Codec{}, "../claude/testdata/mixed.jsonl", "../qwen/testdata/session.jsonl", "../copilotcli/testdata/events.jsonl", "../codex/testdata/compacted.jsonl")
}

func TestForkGolden(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	cases := formattest.ForkCases(6, "Earlier: listed the files; Add subtracts.")
	golden := func(name string) string { return "fork-" + name + ".golden.jsonl" }
	formattest.ForkGoldens(t, Codec{}, tr, cases, format.ForkOptions{SessionID: "fork-0001"}, golden, func(t *testing.T, name string, v *transcript.View, out []byte, back *transcript.Transcript) {
		formattest.SameLines(t, formattest.Lines(back.Messages), formattest.ViewLines(v))
		if name == "unchanged" {
			if c, err := format.Detect("x.jsonl", out); err != nil || c.Format() != transcript.FormatCursorAgent {
				t.Fatalf("fork detected as %v (%v)", c, err)
			}
		}
	})
}

func FuzzParseCursor(f *testing.F) {
	f.Add(formattest.Read(f, session))
	f.Add([]byte(`{"role":"user","message":{"content":"hi"}}` + "\n" + `{"role":"assistant","message":{"content":[{"type":"tool_result"}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, src []byte) { formattest.ParseAndFork(t, Codec{}, "x.jsonl", src) })
}
