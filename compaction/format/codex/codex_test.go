package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

type wantMsg struct {
	role   transcript.Role
	origin transcript.Origin
	kinds  string // part kinds, comma separated
}

func checkMessages(t *testing.T, msgs []transcript.Message, want []wantMsg) {
	t.Helper()
	if len(msgs) != len(want) {
		for i, m := range msgs {
			t.Logf("message %d: %s/%s %s", i, m.Role, m.Origin, kinds(m))
		}
		t.Fatalf("got %d messages, want %d", len(msgs), len(want))
	}
	for i, w := range want {
		m := msgs[i]
		if m.Role != w.role || m.Origin != w.origin || kinds(m) != w.kinds {
			t.Errorf("message %d = %s/%s [%s], want %s/%s [%s]", i, m.Role, m.Origin, kinds(m), w.role, w.origin, w.kinds)
		}
	}
}

func kinds(m transcript.Message) string {
	var k []string
	for _, p := range m.Parts {
		k = append(k, string(p.Kind))
	}
	return strings.Join(k, ",")
}

const (
	sys       = transcript.RoleSystem
	dev       = transcript.RoleDeveloper
	user      = transcript.RoleUser
	assistant = transcript.RoleAssistant
	tool      = transcript.RoleTool
	injected  = transcript.OriginInjected
	human     = transcript.OriginHuman
	agent     = transcript.OriginAgent
	result    = transcript.OriginToolResult
	summary   = transcript.OriginSummary
)

func TestMixedFixture(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "mixed", formattest.Fixture(t, "mixed.jsonl"))
	if tr.Skipped != 1 || len(tr.Problems) != 1 || tr.Problems[0].Line != 15 || !strings.Contains(tr.Problems[0].Message, "line 15") {
		t.Errorf("problems = %+v, want the malformed line 15", tr.Problems)
	}
	byType := map[string]transcript.RecordKind{}
	for _, r := range tr.Records {
		byType[r.Type] = r.Kind
	}
	if byType["world_state"] != transcript.RecordUnknown || byType["event_msg"] != transcript.RecordMeta || byType["session_meta"] != transcript.RecordMessage {
		t.Errorf("record kinds by type = %v", byType)
	}
	checkMessages(t, tr.Messages, []wantMsg{
		{sys, injected, "text"},
		{dev, injected, "text"},
		{user, injected, "text"}, // AGENTS.md
		{user, injected, "text"}, // environment_context
		{user, human, "text,image"},
		{assistant, agent, "reasoning"},
		{assistant, agent, "tool_call"},
		{tool, result, "tool_result"},
		{assistant, agent, "tool_call"}, // apply_patch
		{tool, result, "tool_result"},
		{assistant, agent, "tool_call"}, // local_shell_call
		{tool, result, "tool_result"},
		{assistant, agent, "tool_call"}, // web_search_call
		{assistant, agent, "text"},
		{user, human, "text"},
		{assistant, agent, "text"},
	})
	m := tr.Messages
	if !m[0].Pinned || m[0].Parts[0].Text != "You are Codex, a coding agent.\nAlways run the tests." {
		t.Errorf("system message = %+v", m[0])
	}
	if img := m[4].Parts[1]; img.MIME != "image/png" || img.Width != 2 || img.Height != 3 || img.Size == 0 || img.Ref != (transcript.Ref{Record: 6, Block: 1}) {
		t.Errorf("image part = %+v, want a 2x3 PNG in block 1 of record 6", img)
	}
	if r := m[5].Parts[0]; !r.Signed || r.Opaque != len("gAAAAABpZ3+/enc==")+120 || r.Text != "**Reading the test**" {
		t.Errorf("reasoning = %+v", r)
	}
	if c := m[6].Parts[0]; c.ToolName != "shell" || c.ToolCallID != "call_A" || !json.Valid([]byte(c.Args)) || c.Ref.Block != -1 {
		t.Errorf("function call = %+v", c)
	}
	if r := m[7].Parts[0]; r.ToolName != "shell" || !strings.Contains(r.Text, "TestCheckout") {
		t.Errorf("function call output = %+v", r)
	}
	if c := m[8].Parts[0]; c.ToolName != "apply_patch" || !strings.HasPrefix(c.Args, "*** Begin Patch\n") {
		t.Errorf("custom tool call = %+v", c)
	}
	if r := m[9].Parts[0]; r.ToolName != "apply_patch" || !strings.HasPrefix(r.Text, "Success.") {
		t.Errorf("custom tool output = %+v", r)
	}
	if r := m[11].Parts[0]; r.ToolName != "local_shell" || r.ToolCallID != "call_C" {
		t.Errorf("local shell output = %+v", r)
	}
	if u := m[7].Usage; u == nil || u.Total != 9120 || u.CacheRead != 8000 || u.Input != 1000 || u.ContextTokens() != 9120 {
		t.Errorf("usage after the first call = %+v", u)
	}
	if u := m[13].Usage; u == nil || u.Total != 10680 {
		t.Errorf("usage of the first answer = %+v", u)
	}
	if m[15].Usage == nil || m[15].Usage.Total != 10650 || m[15].Model != "gpt-5.1-codex" || m[13].Model != "gpt-5-codex" {
		t.Errorf("last answer: usage %+v model %q; first answer model %q", m[15].Usage, m[15].Model, m[13].Model)
	}
	if tr.LastUsage() != 15 {
		t.Errorf("LastUsage = %d", tr.LastUsage())
	}
	if !strings.Contains(m[14].Parts[0].Text, "\ufffd") {
		t.Errorf("invalid UTF-8 and lone surrogate not replaced in the decoded text: %q", m[14].Parts[0].Text)
	}
	want := transcript.Meta{SessionID: "0199a1b2-0000-7000-8000-000000000001", Cwd: "/home/dev/shop", Model: "gpt-5.1-codex", ContextWindow: 272000, AgentVersion: "0.77.0"}
	if tr.Meta != want {
		t.Errorf("meta = %+v, want %+v", tr.Meta, want)
	}
	if len(tr.Turns) != 3 || tr.Turns[1].Start != 4 || tr.Turns[2].Start != 14 {
		t.Errorf("turns = %v", tr.Turns)
	}
	if tr.ToolCalls() != 4 {
		t.Errorf("tool calls = %d", tr.ToolCalls())
	}
}

func TestCompactedReplacesHistory(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "compacted", formattest.Fixture(t, "compacted.jsonl"))
	checkMessages(t, tr.Messages, []wantMsg{
		{sys, injected, "text"},
		{user, human, "text"},
		{dev, injected, "text"},
		{assistant, agent, "reasoning"},
		{user, summary, "text"},
		{user, human, "text"},
		{assistant, agent, "tool_call"},
		{tool, result, "tool_result,image"},
		{assistant, agent, "text"},
	})
	m := tr.Messages
	for k := 1; k <= 4; k++ {
		if m[k].Records[0] != 8 || m[k].Parts[0].Ref != (transcript.Ref{Record: 8, Block: k - 1}) {
			t.Errorf("replacement message %d refs %v %+v, want record 8 block %d", k, m[k].Records, m[k].Parts[0].Ref, k-1)
		}
	}
	if r := m[3].Parts[0]; !r.Signed || r.Opaque != len("gAAAAABkept") || r.Text != "kept thought" {
		t.Errorf("replacement reasoning = %+v", r)
	}
	if tr.LastUsage() != 8 || m[8].Usage.Total != 12040 {
		t.Errorf("usage: last at %d (%+v); the pre-compaction usage must be gone with its messages", tr.LastUsage(), m[8].Usage)
	}
	if r := m[7].Parts; r[0].ToolName != "shell" || r[0].Text != "package cart\n" || r[1].Width != 2 || r[1].Ref.Block != 1 {
		t.Errorf("tool output with image = %+v", r)
	}
	if len(tr.Turns) != 4 {
		t.Errorf("turns = %v", tr.Turns)
	}
}

func TestCompactedWithoutReplacementHistory(t *testing.T) {
	src := []byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"s1","instructions":"Be brief."}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"old prompt"}]}}
{"timestamp":"t","type":"compacted","payload":{"message":"We fixed the bug."}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"new prompt"}]}}
{"timestamp":"t","type":"compacted","payload":{"message":"","replacement_history":null}}
`)
	tr := formattest.RoundTrip(t, Codec{}, "summary only", src)
	checkMessages(t, tr.Messages, []wantMsg{{sys, injected, "text"}, {user, summary, "text"}, {user, human, "text"}})
	if tr.Messages[1].Parts[0].Text != "We fixed the bug." || tr.Messages[1].Parts[0].Ref != (transcript.Ref{Record: 2, Block: -1}) {
		t.Errorf("summary = %+v", tr.Messages[1].Parts[0])
	}
	if tr.Messages[0].Parts[0].Text != "Be brief." {
		t.Errorf("older instructions field not read: %+v", tr.Messages[0])
	}
}

func TestBareOldRollout(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "bare", formattest.Fixture(t, "bare-old.jsonl"))
	checkMessages(t, tr.Messages, []wantMsg{
		{sys, injected, "text"},
		{user, human, "text"},
		{assistant, agent, "tool_call"},
		{tool, result, "tool_result"},
		{assistant, agent, "text"},
	})
	if tr.Meta.SessionID != "old-session-1" || tr.Messages[3].Parts[0].ToolName != "shell" || tr.Skipped != 0 {
		t.Errorf("meta %+v, result %+v, skipped %d", tr.Meta, tr.Messages[3].Parts[0], tr.Skipped)
	}
	if s := (Codec{}).Detect("x.jsonl", formattest.Fixture(t, "bare-old.jsonl")); s < 50 {
		t.Errorf("older rollout detected with score %d", s)
	}
}

func TestBadInput(t *testing.T) {
	src := formattest.Fixture(t, "mixed.jsonl")
	cut := append(bytes.Clone(src), []byte(`{"timestamp":"t","type":"response_item","payload":{"ty`)...)
	tr := formattest.RoundTrip(t, Codec{}, "partial", cut)
	if tr.Size != int64(len(src)) {
		t.Errorf("size %d, want %d: the partial line must not be consumed", tr.Size, len(src))
	}
	noNL := bytes.TrimSuffix(src, []byte("\n"))
	if tr := formattest.RoundTrip(t, Codec{}, "no final newline", noNL); tr.Size != int64(len(noNL)) || len(tr.Messages) != 16 {
		t.Errorf("a complete last line without newline is a record: size %d want %d, %d messages", tr.Size, len(noNL), len(tr.Messages))
	}
	crlf := bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
	if tr := formattest.RoundTrip(t, Codec{}, "crlf", crlf); len(tr.Messages) != 16 {
		t.Errorf("CRLF file: %d messages", len(tr.Messages))
	}
	blanks := append([]byte("\n\n"), bytes.ReplaceAll(src, []byte("}\n{"), []byte("}\n\n \n{"))...)
	if tr := formattest.RoundTrip(t, Codec{}, "blank lines", blanks); len(tr.Messages) != 16 || tr.Problems[0].Line != 2+15+14*2 {
		t.Errorf("blank lines: %d messages, problems %+v", len(tr.Messages), tr.Problems)
	}
	for name, junk := range map[string]string{
		"claude line":  `{"parentUuid":null,"sessionId":"x","type":"user","message":{"role":"user","content":"hi"}}` + "\n",
		"not json":     "hello\nworld\n",
		"json scalars": "1\n\"x\"\n[]\n",
	} {
		if _, err := (Codec{}).Parse([]byte(junk)); err == nil || !strings.Contains(err.Error(), "not a Codex rollout") {
			t.Errorf("%s: err = %v, want a clear refusal", name, err)
		}
	}
	if tr, err := (Codec{}).Parse(nil); err != nil || len(tr.Messages) != 0 {
		t.Errorf("empty source: %v", err)
	}
}

func TestHugeLine(t *testing.T) {
	big := strings.Repeat("x", 8<<20)
	line := `{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_A","output":"` + big + `"}}` + "\n"
	src := append(formattest.Fixture(t, "mixed.jsonl"), line...)
	tr := formattest.RoundTrip(t, Codec{}, "huge", src)
	last := tr.Messages[len(tr.Messages)-1]
	if len(last.Parts[0].Text) != 8<<20 || last.Parts[0].ToolName != "shell" {
		t.Errorf("huge line not read whole")
	}
}

func TestCorpus(t *testing.T) {
	for _, f := range formattest.Corpus(t, "codex", "*.jsonl") {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := formattest.RoundTrip(t, Codec{}, f, src)
		if s := (Codec{}).Detect(f, src); s < 90 {
			t.Errorf("%s: detect score %d", f, s)
		}
		if c, err := format.Detect(f, src); err != nil || c.Format() != transcript.FormatCodex {
			t.Errorf("%s: detected as %v, %v", f, c, err)
		}
		if len(tr.Messages) == 0 || tr.Skipped != 0 || tr.Meta.SessionID == "" || tr.Meta.ContextWindow == 0 {
			t.Errorf("%s: %d messages, %d skipped, meta %+v", f, len(tr.Messages), tr.Skipped, tr.Meta)
		}
		for seed := range uint64(3) {
			formattest.AppendInChunks(t, Codec{}, src, seed)
		}
	}
}

// Detect must not claim other agents' files: Claude Code sessions are
// JSONL too.
func TestDetectRefusesOtherFormats(t *testing.T) {
	claude := 0
	for _, s := range formattest.Samples(t) {
		if s.Owner == "codex" || filepath.Ext(s.Path) == ".md" || !s.Corpus && s.Owner != "claude" {
			continue
		}
		if s.Owner == "claude" {
			claude++
		}
		if score := (Codec{}).Detect(s.Path, formattest.Head(t, s.Path)); score != 0 {
			t.Errorf("%s: codex detect score %d, want 0", s.Path, score)
		}
	}
	if claude == 0 {
		t.Fatal("no Claude Code fixtures found")
	}
	gen := sessiongen.ClaudeCode(sessiongen.Options{Seed: 2, Turns: 3})
	if s := (Codec{}).Detect("rollout-x.jsonl", gen); s != 0 {
		t.Errorf("generated Claude session: score %d", s)
	}
	// A head cut inside a long session_meta line still detects.
	long := sessiongen.Codex(sessiongen.Options{Seed: 2, Turns: 1})
	if s := (Codec{}).Detect("x.jsonl", long[:300]); s < 90 {
		t.Errorf("cut head: score %d", s)
	}
}

func TestAppendInChunks(t *testing.T) {
	inputs := map[string][]byte{
		"mixed":     formattest.Fixture(t, "mixed.jsonl"),
		"compacted": formattest.Fixture(t, "compacted.jsonl"),
		"bare":      formattest.Fixture(t, "bare-old.jsonl"),
		"generated": sessiongen.Codex(sessiongen.Options{Seed: 11, Turns: 12}),
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(6) {
				formattest.AppendInChunks(t, Codec{}, src, seed)
			}
		})
	}
}

// TestAppendTrimmed: a rollout followed trimmed to its last message
// appends without ever needing a fresh parse, compactions included, and
// its messages stay Parse's.
func TestAppendTrimmed(t *testing.T) {
	inputs := map[string][]byte{
		"mixed":     formattest.Fixture(t, "mixed.jsonl"),
		"compacted": formattest.Fixture(t, "compacted.jsonl"),
		"bare":      formattest.Fixture(t, "bare-old.jsonl"),
		"generated": sessiongen.Codex(sessiongen.Options{Seed: 11, Turns: 20}),
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(8) {
				if n := formattest.AppendTrimmed(t, Codec{}, src, seed); n > 0 {
					t.Fatalf("seed %d: %d appends needed a fresh parse", seed, n)
				}
			}
		})
	}
}

func TestAppendRejectsForeignTranscript(t *testing.T) {
	foreign := &transcript.Transcript{Records: []transcript.Record{{Raw: []byte("{}")}}}
	if _, err := (Codec{}).Append(foreign, []byte("{}\n")); err == nil {
		t.Error("Append accepted a transcript another codec parsed")
	}
}

func TestSessiongen(t *testing.T) {
	src := sessiongen.Codex(sessiongen.Options{Seed: 4, Turns: 8, SessionID: "gen-session"})
	tr := formattest.RoundTrip(t, Codec{}, "generated", src)
	calls := bytes.Count(src, []byte(`"type":"function_call",`))
	outputs := bytes.Count(src, []byte(`"type":"function_call_output"`))
	if tr.ToolCalls() != calls || calls == 0 || outputs != calls {
		t.Errorf("tool calls %d, want %d (outputs %d)", tr.ToolCalls(), calls, outputs)
	}
	if tr.Skipped != 0 || tr.Meta.SessionID != "gen-session" || tr.Meta.ContextWindow != 272000 || tr.Meta.Model != "gpt-5-codex" {
		t.Errorf("skipped %d, meta %+v", tr.Skipped, tr.Meta)
	}
	// system, developer, AGENTS.md, environment, then 8 turns.
	if len(tr.Turns) != 9 || tr.Messages[0].Role != transcript.RoleSystem || tr.Messages[2].Origin != transcript.OriginInjected {
		t.Errorf("%d turns; first messages %s, %s", len(tr.Turns), tr.Messages[0].Role, tr.Messages[2].Origin)
	}
	usages := 0
	for _, m := range tr.Messages {
		if m.Usage != nil {
			usages++
			if m.Usage.Total <= 0 || m.Usage.ContextTokens() != m.Usage.Total {
				t.Errorf("usage %+v", m.Usage)
			}
		}
	}
	if want := bytes.Count(src, []byte(`"type":"token_count"`)); usages != want {
		t.Errorf("%d messages carry usage, want one per token_count (%d)", usages, want)
	}
	for _, m := range tr.Messages {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolResult && p.ToolName != "shell" {
				t.Errorf("tool result without its call's name: %+v", p)
			}
			if p.Kind == transcript.PartReasoning && (!p.Signed || p.Opaque < 800) {
				t.Errorf("reasoning without its encrypted content: %+v", p)
			}
		}
	}
}

func FuzzParseCodex(f *testing.F) {
	for _, name := range []string{"mixed.jsonl", "compacted.jsonl", "bare-old.jsonl"} {
		f.Add(formattest.Fixture(f, name))
	}
	f.Add([]byte("{\"type\":\"session_meta\",\"payload\":{}}\n\n{"))
	f.Add([]byte(`{"timestamp":"t","type":"compacted","payload":{"message":"m","replacement_history":[1,{"type":"message"}]}}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		tr := formattest.WriteBack(t, Codec{}, src)
		if tr == nil {
			return
		}
		if _, err := (Codec{}).Fork(transcript.NewView(tr), format.ForkOptions{SessionID: "f", Timestamp: "t"}); err != nil {
			t.Logf("fork: %v", err)
		}
	})
}

func BenchmarkAppend10KB(b *testing.B) {
	b.Run("1MB", func(b *testing.B) { formattest.BenchmarkAppendTail(b, Codec{}, sessiongen.Codex, 1<<20) })
	if testing.Short() {
		return
	}
	b.Run("200MB", func(b *testing.B) { formattest.BenchmarkAppendTail(b, Codec{}, sessiongen.Codex, 200<<20) })
}

// Every prefix and many byte-flipped variants of the fixtures parse
// without panic and write back exactly, and their forks do not panic:
// a deterministic complement to FuzzParseCodex.
func TestMutatedInputs(t *testing.T) {
	for _, name := range []string{"mixed.jsonl", "compacted.jsonl", "bare-old.jsonl"} {
		src := formattest.Fixture(t, name)
		check := func(what string, b []byte) {
			tr, err := Codec{}.Parse(b)
			if err != nil {
				return
			}
			if out, _ := (Codec{}).Write(tr); !bytes.Equal(out, b) {
				t.Fatalf("%s %s: Write(Parse(x)) != x", name, what)
			}
			_, _ = Codec{}.Fork(transcript.NewView(tr), format.ForkOptions{SessionID: "f", Timestamp: "t"})
		}
		for n := 0; n <= len(src); n += 7 {
			check("prefix", src[:n])
		}
		for i := 0; i < len(src); i += 13 {
			for _, c := range []byte{'"', '{', ']', '\n', 0xff, '\\'} {
				b := bytes.Clone(src)
				b[i] = c
				check("flip", b)
			}
		}
	}
}
