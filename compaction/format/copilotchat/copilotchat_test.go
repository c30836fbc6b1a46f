package copilotchat

import (
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

const session = "testdata/session.jsonl"

var first = []string{
	"user text|List the files and tell me what calc.go does.||",
	"assistant text|Let me list the files.||",
	`assistant tool_call||call_Qx1|{"command":"ls","explanation":"List files"}`,
	"tool tool_result|calc.go\ncalc_test.go\ngo.mod|call_Qx1|",
	`assistant tool_call||call_Qx2|{"filePath":"/home/ada/calc/calc.go"}`,
	"tool tool_result|package calc\n\nfunc Add(a, b int) int { return a - b }\n|call_Qx2|",
	"assistant reasoning|Start by looking at the files.||",
	"assistant text|calc.go defines Add and Sub.||",
}

func TestParseOperationLog(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	want := append(append([]string{}, first...), "user text|Fix Add: it subtracts.||", "assistant text|Add returns a - b; it should return a + b.||")
	formattest.SameLines(t, formattest.Lines(tr.Messages), want)
	if tr.Skipped != 1 || tr.Problems[0].Line != 6 {
		t.Fatalf("problems %+v", tr.Problems)
	}
	m := tr.Meta
	if m.SessionID != "7a3c1e52-9b0d-4f6e-8c21-5d4e3f2a1b0c" || m.Title != "Fix Add in calc.go" || m.Model != "gpt-4.1" {
		t.Fatalf("meta %+v", m)
	}
	if u := tr.Messages[4].Usage; u != nil {
		t.Fatalf("usage on a tool result: %+v", u)
	}
	if u := tr.Messages[5].Usage; u == nil || u.ContextTokens() != 11936 {
		t.Fatalf("first request's usage %+v", u)
	}
	// Each message points at the last line that wrote its request.
	if r := tr.Messages[len(tr.Messages)-1].Records[0]; r != 8 {
		t.Fatalf("last answer's record %d", r)
	}
	if len(tr.Turns) != 2 {
		t.Fatalf("turns %+v", tr.Turns)
	}
}

// TestGaugeEqualsPromptTokens: the gauge is the last request's reported
// prompt and output tokens.
func TestGaugeEqualsPromptTokens(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	g := formattest.LiveGauge(t, tr, tokens.O200kBase)
	if g.Source != gauge.SourceReported || g.Tokens != 12540 || g.ToolCalls != 2 {
		t.Fatalf("gauge %+v", g)
	}
}

func TestLegacyDocument(t *testing.T) {
	path := "testdata/legacy-session.json"
	tr := formattest.RoundTrip(t, Codec{}, path, formattest.Read(t, path))
	formattest.SameLines(t, formattest.Lines(tr.Messages), first)
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{"not json\n", `{"kind":1,"k":["a"],"v":1}` + "\n", "[1,2]"} {
		if _, err := (Codec{}).Parse([]byte(src)); err == nil {
			t.Errorf("%q parsed", src)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, p := range []string{session, "testdata/legacy-session.json"} {
		if s := (Codec{}).Detect("/ws/chatSessions/x.jsonl", formattest.Head(t, p)); s < 75 {
			t.Fatalf("%s scored %d", p, s)
		}
	}
	formattest.DetectsNone(t, Codec{}, "../claude/testdata/mixed.jsonl", "../opencode/testdata/session.json", "../gemini/testdata/legacy-session.json", "../copilotcli/testdata/events.jsonl")
}

func TestForkGolden(t *testing.T) {
	for _, fx := range []struct{ name, path, ext string }{{"log", session, "jsonl"}, {"legacy", "testdata/legacy-session.json", "json"}} {
		t.Run(fx.name, func(t *testing.T) {
			tr := formattest.RoundTrip(t, Codec{}, fx.path, formattest.Read(t, fx.path))
			cases := formattest.ForkCases(tr.Turns[len(tr.Turns)-1].Start, "Earlier: listed the files.")
			golden := func(name string) string { return "fork-" + fx.name + "-" + name + ".golden." + fx.ext }
			formattest.ForkGoldens(t, Codec{}, tr, cases, format.ForkOptions{SessionID: "fork-0001"}, golden, func(t *testing.T, _ string, v *transcript.View, _ []byte, back *transcript.Transcript) {
				formattest.SameLines(t, formattest.Lines(back.Messages), formattest.ViewLines(v))
				if back.Meta.SessionID != "fork-0001" {
					t.Fatalf("fork session %q", back.Meta.SessionID)
				}
			})
		})
	}
}

func FuzzParseCopilotChat(f *testing.F) {
	f.Add(formattest.Read(f, session))
	f.Add(formattest.Read(f, "testdata/legacy-session.json"))
	f.Add([]byte(`{"kind":0,"v":{"requests":[]}}` + "\n" + `{"kind":2,"k":["requests"],"v":[{"message":{"text":"x"}}],"i":0}` + "\n" + `{"kind":3,"k":["requests",0]}` + "\n"))
	f.Fuzz(func(t *testing.T, src []byte) { formattest.ParseAndFork(t, Codec{}, "chatSessions/x.jsonl", src) })
}
