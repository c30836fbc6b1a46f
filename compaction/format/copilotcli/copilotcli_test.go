package copilotcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

const session = "testdata/events.jsonl"

func TestParseEvents(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	want := []string{
		"user text|List the files and tell me what calc.go does.||",
		"assistant reasoning|I should look at the files first.||",
		`assistant tool_call||toolu_01|{"command":"ls"}`,
		`assistant tool_call||toolu_02|{"path":"/home/ada/calc/nope.go"}`,
		"tool tool_result|calc.go\ncalc_test.go\ngo.mod|toolu_01|",
		"tool tool_result|Path does not exist: /home/ada/calc/nope.go|toolu_02|",
		"assistant text|calc.go defines Add and Sub.||",
		"user text|Fix Add: it subtracts.||",
		"assistant text|Add returns a - b; it should return a + b.||",
	}
	formattest.SameLines(t, formattest.Lines(tr.Messages), want)
	if !tr.Messages[3].Parts[0].IsError || tr.Messages[3].Parts[0].ToolName != "view" {
		t.Fatalf("failed result %+v", tr.Messages[3].Parts[0])
	}
	if u := tr.Messages[4].Usage; u == nil || u.ContextTokens() != 12320 {
		t.Fatalf("assistant.usage %+v", u)
	}
	if u := tr.Messages[6].Usage; u == nil || u.ContextTokens() != 12480 {
		t.Fatalf("shutdown usage %+v", u)
	}
	if tr.Skipped != 1 || tr.Problems[0].Line != 15 {
		t.Fatalf("problems %+v", tr.Problems)
	}
	m := tr.Meta
	if m.SessionID != "b6f0c3a2-5d41-4e8a-9c17-2f3e4d5a6b7c" || m.Cwd != "/home/ada/calc" || m.Model != "claude-sonnet-4.5" || m.AgentVersion != "0.0.407" {
		t.Fatalf("meta %+v", m)
	}
	if len(tr.Turns) != 2 {
		t.Fatalf("turns %+v", tr.Turns)
	}
}

// TestGaugeEqualsShutdownCount: the gauge is the context size Copilot
// counted at shutdown.
func TestGaugeEqualsShutdownCount(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	g := formattest.LiveGauge(t, tr, tokens.O200kBase)
	if g.Source != gauge.SourceReported || g.Tokens != 12480 || g.ToolCalls != 2 {
		t.Fatalf("gauge %+v", g)
	}
}

func TestCompactionReplacesHistory(t *testing.T) {
	src := append(formattest.Read(t, session), []byte(`{"type":"session.compaction_complete","data":{"success":true,"summaryContent":"Listed files; Add subtracts.","postCompactionTokens":900},"id":"c1","timestamp":"2026-11-20T10:00:00.000Z","parentId":null}
{"type":"user.message","data":{"content":"Now add a test."},"id":"u9","timestamp":"2026-11-20T10:01:00.000Z","parentId":"c1"}
`)...)
	tr := formattest.RoundTrip(t, Codec{}, "compacted", src)
	got := formattest.Lines(tr.Messages)
	if len(got) != 2 || got[0] != "user text|Listed files; Add subtracts.||" || tr.Messages[0].Origin != transcript.OriginSummary {
		t.Fatalf("after compaction:\n%s", strings.Join(got, "\n"))
	}
	for seed := range uint64(5) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}
}

func TestAppendInChunks(t *testing.T) {
	src := formattest.Read(t, session)
	for seed := range uint64(20) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}
}

func TestDetect(t *testing.T) {
	if s := (Codec{}).Detect("events.jsonl", formattest.Head(t, session)); s < 95 {
		t.Fatalf("own session scored %d", s)
	}
	formattest.DetectsNone(t, Codec{}, "../claude/testdata/mixed.jsonl", "../qwen/testdata/session.jsonl", "../codex/testdata/compacted.jsonl")
}

func TestForkGolden(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	cases := formattest.ForkCases(5, "Earlier: listed the files; calc.go defines Add and Sub.")
	opts := format.ForkOptions{SessionID: "fork-0001", Timestamp: "2026-11-24T10:00:00.000Z"}
	golden := func(name string) string { return "fork-" + name + ".golden.jsonl" }
	formattest.ForkGoldens(t, Codec{}, tr, cases, opts, golden, func(t *testing.T, _ string, v *transcript.View, _ []byte, back *transcript.Transcript) {
		formattest.SameLines(t, formattest.Lines(back.Messages), formattest.ViewLines(v))
		if back.Meta.SessionID != "fork-0001" || back.Meta.Cwd != "/home/ada/calc" {
			t.Fatalf("fork meta %+v", back.Meta)
		}
	})
}

func FuzzParseCopilotCLI(f *testing.F) {
	f.Add(formattest.Read(f, session))
	f.Add(formattest.Read(f, "testdata/history-session-state/session_3f2b9c1e-7d4a-4e8b-a6c5-1b0d9e8f7a6c_1759957816398.json"))
	f.Add([]byte(`{"type":"assistant.usage","data":{"inputTokens":5}}` + "\n" + `{"type":"session.compaction_complete","data":{"summaryContent":"s"}}` + "\n"))
	f.Fuzz(func(t *testing.T, src []byte) { formattest.ParseAndFork(t, Codec{}, "events.jsonl", src) })
}

// TestModelWhereCopilotNamesIt is issue 23's item 5: a Copilot CLI 1.0
// session whose model (claude-sonnet-4.6) is named only where later
// releases put it — session.resume's selectedModel, the model of a tool
// execution, session.shutdown's currentModel — was gauged as the format's
// default model. Each place names the model, the last one wins.
func TestModelWhereCopilotNamesIt(t *testing.T) {
	event := func(typ, id string, data map[string]any) string {
		b, err := json.Marshal(map[string]any{"type": typ, "id": id, "timestamp": "2026-10-02T08:00:00.000Z", "parentId": nil, "data": data})
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	start := event("session.start", "e1", map[string]any{"sessionId": "6a1f0e2d-3c4b-4a59-8d7e-0f1e2d3c4b5a", "copilotVersion": "1.0.52", "context": map[string]any{"cwd": "/home/ada/calc"}})
	prompt := event("user.message", "e3", map[string]any{"content": "Run the tests."})
	call := event("assistant.message", "e4", map[string]any{"messageId": "m1", "content": "", "toolRequests": []any{map[string]any{"toolCallId": "toolu_01", "name": "bash", "arguments": map[string]any{"command": "go test ./..."}}}})
	answer := event("assistant.message", "e6", map[string]any{"messageId": "m2", "content": "All tests pass."})
	cases := map[string]string{
		"session.resume": start + event("session.resume", "e2", map[string]any{"selectedModel": "claude-sonnet-4.6"}) + prompt + call + answer,
		"tool.execution_complete": start + prompt + call +
			event("tool.execution_complete", "e5", map[string]any{"toolCallId": "toolu_01", "success": true, "model": "claude-sonnet-4.6", "result": map[string]any{"content": "ok"}}) + answer,
		"session.shutdown": start + prompt + call + answer + event("session.shutdown", "e7", map[string]any{"currentModel": "claude-sonnet-4.6", "currentTokens": 15000}),
	}
	for where, src := range cases {
		tr, err := Codec{}.Parse([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if tr.Meta.Model != "claude-sonnet-4.6" {
			t.Errorf("%s: model %q, want claude-sonnet-4.6", where, tr.Meta.Model)
		}
		if r := gauge.Resolve(tr, gauge.Options{}); r.Model != "claude-sonnet-4.6" || !r.Known {
			t.Errorf("%s: gauged as %s (known %v)", where, r.Model, r.Known)
		}
	}
}

// events renders Copilot CLI events, each {type, data, id, timestamp,
// parentId} naming the one before it; ids are e1, e2, ….
func events(t *testing.T, evs ...any) []byte {
	t.Helper()
	var out []byte
	parent := any(nil)
	for i := 0; i+1 < len(evs); i += 2 {
		id := fmt.Sprintf("e%d", i/2+1)
		b, err := json.Marshal(map[string]any{"type": evs[i], "data": evs[i+1], "id": id, "timestamp": "2026-03-10T10:00:00.000Z", "parentId": parent})
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
		parent = id
	}
	return out
}

type obj = map[string]any

func call(id, name string) obj {
	return obj{"toolCallId": id, "name": name, "arguments": obj{"command": "ls"}}
}

func result(id, text string) obj {
	return obj{"toolCallId": id, "success": true, "result": obj{"content": text}}
}

var start = []any{"session.start", obj{"sessionId": "6a1f0e2d-3c4b-4a59-8d7e-0f1e2d3c4b5a", "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.52", "startTime": "2026-03-10T10:00:00.000Z"}}

// TestReadsAsCopilotLoads: the conversation is the one Copilot CLI
// rebuilds from the events when it resumes the session (its loader in
// @github/copilot 1.0.52 and 0.0.369): a subagent's messages and results
// (parentToolCallId or agentId) and the results of commands the user ran
// are not in it, a call's second result is ignored, a
// system.notification is a user message, an abort answers the calls it
// interrupted, and a compaction's summary replaces what the conversation
// held when the compaction started while what came during it stays — the
// call whose result came after the start moving with it.
func TestReadsAsCopilotLoads(t *testing.T) {
	src := events(t, append(start,
		"user.message", obj{"content": "Fix the race."},
		"assistant.message", obj{"content": "", "toolRequests": []any{call("c1", "task")}},
		"assistant.message", obj{"content": "", "toolRequests": []any{call("s1", "view")}, "parentToolCallId": "c1"},
		"tool.execution_complete", obj{"toolCallId": "s1", "success": true, "result": obj{"content": "sub"}, "parentToolCallId": "c1"},
		"assistant.message", obj{"content": "sub done", "toolRequests": []any{}, "parentToolCallId": "c1"},
		"tool.execution_complete", result("c1", "callers: 3"),
		"tool.execution_complete", result("c1", "callers: 4"),
		"tool.user_requested", obj{"toolCallId": "u1", "toolName": "bash"},
		"tool.execution_complete", obj{"toolCallId": "u1", "success": true, "result": obj{"content": "git log"}, "isUserRequested": true},
		"system.notification", obj{"content": "Agent explore completed.", "kind": obj{"type": "agent_completed"}},
		"system.notification", obj{"content": "AGENTS.md found", "kind": obj{"type": "instruction_discovered"}},
		"assistant.message", obj{"content": "", "toolRequests": []any{call("c2", "bash"), call("c3", "bash")}},
		"tool.execution_complete", result("c2", "ok"),
		"abort", obj{"reason": "user initiated"},
		"user.message", obj{"content": "Go on."},
		"assistant.message", obj{"content": "", "toolRequests": []any{call("c4", "view")}},
		"session.compaction_start", obj{},
		"tool.execution_complete", result("c4", "file"),
		"assistant.message", obj{"content": "Done.", "toolRequests": []any{}},
		"session.compaction_complete", obj{"success": true, "summaryContent": "Fixed the race."},
		"user.message", obj{"content": "Thanks."},
	)...)
	tr := formattest.RoundTrip(t, Codec{}, "events.jsonl", src)
	want := []string{
		"user text|Fixed the race.||",
		`assistant tool_call||c4|{"command":"ls"}`,
		"tool tool_result|file|c4|",
		"assistant text|Done.||",
		"user text|Thanks.||",
	}
	formattest.SameLines(t, formattest.Lines(tr.Messages), want)
	if tr.Messages[0].Origin != transcript.OriginSummary {
		t.Errorf("first message %+v, want the summary", tr.Messages[0])
	}
	for seed := range uint64(8) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}

	// The same session before its compaction completed.
	before := src[:bytes.LastIndexByte(src[:bytes.Index(src, []byte(`"type":"session.compaction_complete"`))], '\n')+1]
	tr = formattest.RoundTrip(t, Codec{}, "events.jsonl", before)
	want = []string{
		"user text|Fix the race.||",
		`assistant tool_call||c1|{"command":"ls"}`,
		"tool tool_result|callers: 3|c1|",
		"user text|Agent explore completed.||",
		`assistant tool_call||c2|{"command":"ls"}`,
		`assistant tool_call||c3|{"command":"ls"}`,
		"tool tool_result|ok|c2|",
		"tool tool_result|" + interrupted + "|c3|",
		"user text|Go on.||",
		`assistant tool_call||c4|{"command":"ls"}`,
		"tool tool_result|file|c4|",
		"assistant text|Done.||",
	}
	formattest.SameLines(t, formattest.Lines(tr.Messages), want)
	if err := strategy.CheckTranscript(tr); err != nil {
		t.Errorf("the conversation breaks the API's rules: %v", err)
	}
}

// TestForkWritesAStandInAsText: a strategy's stand-in for removed turns
// may sit on a message that held only tool requests (a turn the user
// interrupted mid-call). The fork writes it as the message's content, not
// over the first tool request, which kept a call without its result and
// was refused ("tool call without its result").
func TestForkWritesAStandInAsText(t *testing.T) {
	src := events(t, append(start,
		"user.message", obj{"content": "First."},
		"assistant.message", obj{"content": "", "toolRequests": []any{call("c1", "bash"), call("c2", "bash")}},
		"tool.execution_complete", result("c1", "ok"),
		"abort", obj{"reason": "user initiated"},
		"user.message", obj{"content": "Second."},
		"assistant.message", obj{"content": "Done.", "toolRequests": []any{}},
	)...)
	tr := formattest.RoundTrip(t, Codec{}, "events.jsonl", src)
	v := transcript.NewView(tr)
	stand := v.Messages[1]
	stand.Parts = []transcript.Part{{Kind: transcript.PartText, Text: "[compacted: 1 earlier turn removed]", Ref: stand.Parts[0].Ref, Changed: true}}
	v.Messages = []transcript.Message{v.Messages[0], stand, v.Messages[4], v.Messages[5]}
	out, err := Codec{}.Fork(v, format.ForkOptions{SessionID: "fork-1"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	formattest.SameLines(t, formattest.Lines(back.Messages), []string{
		"user text|First.||",
		"assistant text|[compacted: 1 earlier turn removed]||",
		"user text|Second.||",
		"assistant text|Done.||",
	})
	if err := strategy.CheckFork(back, tr); err != nil {
		t.Error(err)
	}
}

// TestForkKeepsOneCompaction: a compaction_complete replaces what the
// agent loaded before it, so a fork writes one only as its first
// conversation event; the source's summary kept after a new one is a user
// message.
func TestForkKeepsOneCompaction(t *testing.T) {
	src := events(t, append(start,
		"session.compaction_complete", obj{"success": true, "summaryContent": "Old summary."},
		"user.message", obj{"content": "Next."},
		"assistant.message", obj{"content": "Done.", "toolRequests": []any{}},
	)...)
	tr := formattest.RoundTrip(t, Codec{}, "events.jsonl", src)
	v := transcript.NewView(tr)
	v.Summaries = []transcript.Summary{{Text: "New summary.", Before: 0}}
	out, err := Codec{}.Fork(v, format.ForkOptions{SessionID: "fork-1"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	formattest.SameLines(t, formattest.Lines(back.Messages), []string{
		"user text|New summary.||",
		"user text|Old summary.||",
		"user text|Next.||",
		"assistant text|Done.||",
	})
	if n := bytes.Count(out, []byte(`"session.compaction_complete"`)); n != 1 {
		t.Errorf("%d compaction_complete events in the fork, want 1:\n%s", n, out)
	}
}

const legacySession = "testdata/history-session-state/session_3f2b9c1e-7d4a-4e8b-a6c5-1b0d9e8f7a6c_1759957816398.json"

// TestLegacySession: a session of the releases before 0.0.342
// (history-session-state/session_<id>_<ms>.json, one JSON document) reads
// as its chatMessages, the conversation the model had, with the session's
// id and model; it is recognised under its name and under any other.
func TestLegacySession(t *testing.T) {
	src := formattest.Read(t, legacySession)
	tr := formattest.RoundTrip(t, Codec{}, legacySession, src)
	var roles []string
	for _, m := range tr.Messages {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, " "); got != "user assistant tool tool assistant user assistant tool assistant" {
		t.Fatalf("roles %s", got)
	}
	if p := tr.Messages[1].Parts; len(p) != 3 || p[1].ToolName != "bash" || p[2].Args != `{"command":"view","path":"/home/ada/calc/calc.go"}` {
		t.Fatalf("tool calls %+v", p)
	}
	if p := tr.Messages[8].Parts; len(p) != 1 || p[0].Text != "Add now returns a + b." {
		t.Fatalf("last answer %+v", p)
	}
	if tr.Meta.SessionID != "3f2b9c1e-7d4a-4e8b-a6c5-1b0d9e8f7a6c" || tr.Meta.Model != "claude-sonnet-4.5" {
		t.Fatalf("meta %+v", tr.Meta)
	}
	if err := strategy.CheckTranscript(tr); err != nil {
		t.Fatal(err)
	}
	if s := (Codec{}).Detect(legacySession, formattest.Head(t, legacySession)); s < 95 {
		t.Fatalf("own session scored %d", s)
	}
	if c, err := format.Detect("notes.json", src); err != nil || c.Format() != transcript.FormatCopilotCLI {
		t.Fatalf("under another name: %v %v", c, err)
	}
	if _, err := (Codec{}).Append(tr, []byte("\n")); err == nil {
		t.Fatal("appended to a document the CLI rewrites whole")
	}
	formattest.DetectsNone(t, Codec{}, "../openaichat/testdata/bare.json", "../cline/testdata/api_conversation_history.json")
}

// TestLegacyFork: a fork of a legacy session is the same document under a
// new id and start time, its chatMessages the view, its timeline the kept
// prompts and answers; a renewed one keeps everything but the id.
func TestLegacyFork(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, legacySession, formattest.Read(t, legacySession))
	cases := formattest.ForkCases(4, "Earlier: listed the files; calc.go defines Add and Sub.")
	opts := format.ForkOptions{SessionID: "fork-0001", Timestamp: "2026-11-24T10:00:00.000Z"}
	golden := func(name string) string { return "history-session-state/fork-" + name + ".golden.json" }
	formattest.ForkGoldens(t, Codec{}, tr, cases, opts, golden, func(t *testing.T, _ string, v *transcript.View, out []byte, back *transcript.Transcript) {
		formattest.SameLines(t, formattest.Lines(back.Messages), formattest.ViewLines(v))
		if back.Meta.SessionID != "fork-0001" || back.Meta.Model != "claude-sonnet-4.5" {
			t.Fatalf("fork meta %+v", back.Meta)
		}
		var doc struct {
			StartTime string `json:"startTime"`
			Timeline  []struct {
				Type, Text, ID, Timestamp string
			} `json:"timeline"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.StartTime != opts.Timestamp || len(doc.Timeline) == 0 || doc.Timeline[len(doc.Timeline)-1].Text != "Add now returns a + b." {
			t.Fatalf("fork start %q, timeline %+v", doc.StartTime, doc.Timeline)
		}
	})
	out, err := Codec{}.Renew(tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Meta.SessionID != "fork-0001" || len(back.Messages) != len(tr.Messages) || !bytes.Contains(out, []byte(`"tool_call_completed"`)) {
		t.Fatalf("renewed: %+v, %d messages", back.Meta, len(back.Messages))
	}
}
