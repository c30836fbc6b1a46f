package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestMixedFixture(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "mixed", formattest.Fixture(t, "mixed.jsonl"))
	if tr.Skipped != 1 || len(tr.Problems) != 1 || tr.Problems[0].Line != 9 {
		t.Errorf("problems = %+v, want the malformed line 9", tr.Problems)
	}
	var kinds []string
	for _, r := range tr.Records {
		kinds = append(kinds, r.Kind.String())
	}
	if got := strings.Join(kinds, ","); !strings.Contains(got, "unknown") {
		t.Errorf("record kinds %s: unknown type not passed through", got)
	}
	// meta injection, human prompt with image, merged assistant, tool result, final assistant
	want := []struct {
		role   transcript.Role
		origin transcript.Origin
		parts  int
	}{
		{transcript.RoleUser, transcript.OriginInjected, 1},
		{transcript.RoleUser, transcript.OriginHuman, 2},
		{transcript.RoleAssistant, transcript.OriginAgent, 2},
		{transcript.RoleUser, transcript.OriginToolResult, 1},
		{transcript.RoleAssistant, transcript.OriginAgent, 2},
	}
	if len(tr.Messages) != len(want) {
		t.Fatalf("got %d messages, want %d: %+v", len(tr.Messages), len(want), tr.Messages)
	}
	for i, w := range want {
		m := tr.Messages[i]
		if m.Role != w.role || m.Origin != w.origin || len(m.Parts) != w.parts {
			t.Errorf("message %d = %s/%s with %d parts, want %s/%s with %d", i, m.Role, m.Origin, len(m.Parts), w.role, w.origin, w.parts)
		}
	}
	img := tr.Messages[1].Parts[0]
	if img.Kind != transcript.PartImage || img.Width != 2 || img.Height != 3 || img.MIME != "image/png" {
		t.Errorf("image part = %+v, want a 2x3 PNG", img)
	}
	merged := tr.Messages[2]
	if len(merged.Records) != 2 || merged.Usage.Output != 40 || !merged.Parts[0].Signed || merged.Parts[1].Ref != (transcript.Ref{Record: 4, Block: 0}) {
		t.Errorf("split assistant lines not merged right: %+v", merged)
	}
	if res := tr.Messages[3].Parts[0]; res.ToolName != "Read" || res.ToolCallID != "toolu_1" {
		t.Errorf("tool result = %+v, want named Read", res)
	}
	if p := tr.Messages[4].Parts[1]; p.Kind != transcript.PartOpaque {
		t.Errorf("redacted thinking = %+v", p)
	}
	if tr.Meta.Title != "Fix the test" || tr.Meta.SessionID != "sess-1" || tr.Meta.Model != "claude-sonnet-4-5" {
		t.Errorf("meta = %+v", tr.Meta)
	}
	if len(tr.Turns) != 2 {
		t.Errorf("turns = %v", tr.Turns)
	}
}

func TestCompactAfterRewind(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "rewind", formattest.Fixture(t, "compact-after-rewind.jsonl"))
	var texts []string
	for _, m := range tr.Messages {
		texts = append(texts, m.Parts[0].Text)
	}
	if len(tr.Messages) != 3 || tr.Messages[0].Origin != transcript.OriginSummary || texts[1] != "After compaction" {
		t.Errorf("messages after the boundary = %q", texts)
	}
}

func TestPartialLastLine(t *testing.T) {
	src := formattest.Fixture(t, "mixed.jsonl")
	cut := append(bytes.Clone(src), []byte(`{"type":"user","uuid":"half`)...)
	tr := formattest.RoundTrip(t, Codec{}, "partial", cut)
	if tr.Size != int64(len(src)) {
		t.Errorf("size %d, want %d: the partial line must not be consumed", tr.Size, len(src))
	}
	noNL := bytes.TrimSuffix(src, []byte("\n"))
	tr = formattest.RoundTrip(t, Codec{}, "no final newline", noNL)
	if tr.Size != int64(len(noNL)) {
		t.Errorf("a complete last line without newline is a record: size %d want %d", tr.Size, len(noNL))
	}
	crlf := bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
	if tr := formattest.RoundTrip(t, Codec{}, "crlf", crlf); len(tr.Messages) != 5 {
		t.Errorf("CRLF file: %d messages", len(tr.Messages))
	}
}

func TestHugeLine(t *testing.T) {
	big := strings.Repeat("x", 5<<20)
	src := append(formattest.Fixture(t, "mixed.jsonl"), []byte(`{"parentUuid":"a3","isSidechain":false,"type":"user","uuid":"big","sessionId":"sess-1","message":{"role":"user","content":"`+big+`"}}`+"\n")...)
	tr := formattest.RoundTrip(t, Codec{}, "huge", src)
	last := tr.Messages[len(tr.Messages)-1]
	if len(last.Parts[0].Text) != 5<<20 {
		t.Errorf("huge line not read whole")
	}
}

func TestCorpus(t *testing.T) {
	for _, f := range formattest.Corpus(t, "claude-code", "*.jsonl") {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := formattest.RoundTrip(t, Codec{}, f, src)
		if c, err := format.Detect(f, src); err != nil || c.Format() != transcript.FormatClaudeCode {
			t.Errorf("%s: detected as %v, %v", f, c, err)
		}
		if len(tr.Messages) == 0 {
			t.Errorf("%s: no messages", f)
		}
	}
}

func TestAppendInChunks(t *testing.T) {
	inputs := map[string][]byte{
		"mixed":     formattest.Fixture(t, "mixed.jsonl"),
		"rewind":    formattest.Fixture(t, "compact-after-rewind.jsonl"),
		"generated": sessiongen.ClaudeCode(sessiongen.Options{Seed: 11, Turns: 15}),
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(5) {
				formattest.AppendInChunks(t, Codec{}, src, seed)
			}
		})
	}
}

func TestForkReparses(t *testing.T) {
	src := sessiongen.ClaudeCode(sessiongen.Options{Seed: 5, Turns: 6})
	tr, err := Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	// Drop the first turn, strip every Read result, drop thinking.
	turns := v.Turns()
	v.Messages = v.Messages[turns[1].Start:]
	v.Cut = true
	v.Summaries = []transcript.Summary{{Text: "Earlier: the user asked to fix the reservation race.", Before: 0}}
	for i := range v.Messages {
		m := &v.Messages[i]
		var parts []transcript.Part
		for _, p := range m.Parts {
			if p.Kind == transcript.PartReasoning {
				continue
			}
			if p.Kind == transcript.PartToolResult && p.ToolName == "Read" {
				p.Text, p.Changed = "[file contents elided by compactd]", true
			}
			parts = append(parts, p)
		}
		m.Parts = parts
	}
	var kept []transcript.Message
	for _, m := range v.Messages {
		if len(m.Parts) > 0 {
			kept = append(kept, m)
		}
	}
	v.Messages = kept
	out, err := Codec{}.Fork(v, format.ForkOptions{SessionID: "11111111-2222-4333-8444-555555555555", Timestamp: "2025-12-01T00:00:00.000Z", TokensBefore: 1234})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) >= len(src) {
		t.Errorf("fork is %d bytes, source %d: stripping did not shrink it", len(out), len(src))
	}
	re, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if re.Skipped != 0 || re.Meta.SessionID != "11111111-2222-4333-8444-555555555555" {
		t.Errorf("fork reparse: %d problems, session %q", re.Skipped, re.Meta.SessionID)
	}
	want := append([]transcript.Message{{Role: transcript.RoleUser, Origin: transcript.OriginSummary,
		Parts: []transcript.Part{{Kind: transcript.PartText, Text: v.Summaries[0].Text}}}}, v.Messages...)
	if i, ok := formattest.SameContent(re.Messages, want); !ok {
		t.Fatalf("fork reparses to different messages (first difference at %d of %d/%d):\n got %+v\nwant %+v", i, len(re.Messages), len(want), re.Messages[i], want[i])
	}
	if bytes.Contains(out, []byte(`"toolUseResult":{"type":"text"`)) {
		t.Errorf("stripped Read results kept their toolUseResult sidecar")
	}
	// The source's usage described the uncompacted context; a fork that
	// kept it would show the old size on the gauge (and trip Claude Code's
	// own auto-compact) although the conversation is now smaller.
	if tr.LastUsage() < 0 {
		t.Fatal("generated source has no usage to test against")
	}
	if i := re.LastUsage(); i >= 0 {
		t.Errorf("fork message %d still carries the source's reported usage %+v", i, *re.Messages[i].Usage)
	}
}

func TestForkGolden(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Fixture(t, "mixed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	v.Messages[3].Parts[0].Text, v.Messages[3].Parts[0].Changed = "[elided]", true
	out, err := Codec{}.Fork(v, format.ForkOptions{SessionID: "fork-session", Timestamp: "2025-12-01T00:00:00.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	// uuids are random: normalize them for the golden comparison.
	re, _ := Codec{}.Parse(out)
	for i, r := range re.Records {
		if r.ID != "" {
			out = bytes.ReplaceAll(out, []byte(r.ID), []byte("uuid-"+string(rune('a'+i))))
		}
	}
	formattest.Golden(t, "mixed.fork.golden.jsonl", out)
}

func FuzzParseClaudeCode(f *testing.F) {
	f.Add(formattest.Fixture(f, "mixed.jsonl"))
	f.Add(formattest.Fixture(f, "compact-after-rewind.jsonl"))
	f.Add(formattest.Fixture(f, "parallel-tool-calls.jsonl"))
	f.Add([]byte("{\"type\":\"user\"}\n\n{"))
	f.Fuzz(func(t *testing.T, src []byte) {
		formattest.WriteBack(t, Codec{}, src)
	})
}

func BenchmarkAppend10KB(b *testing.B) {
	b.Run("1MB", func(b *testing.B) { formattest.BenchmarkAppendTail(b, Codec{}, sessiongen.ClaudeCode, 1<<20) })
	if testing.Short() {
		return
	}
	b.Run("200MB", func(b *testing.B) { formattest.BenchmarkAppendTail(b, Codec{}, sessiongen.ClaudeCode, 200<<20) })
}

// A strategy that strips an image leaves a text part in its place (same
// Ref, Changed); the fork must write a text block, not keep the image.
func TestForkReplacesStrippedImage(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Fixture(t, "mixed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	found := false
	for i := range v.Messages {
		for j := range v.Messages[i].Parts {
			p := &v.Messages[i].Parts[j]
			if p.Kind == transcript.PartImage {
				*p = transcript.Part{Kind: transcript.PartText, Text: "[compacted: image/png 2x3]", Ref: p.Ref, Changed: true}
				found = true
			}
		}
	}
	if !found {
		t.Fatal("fixture has no image to strip")
	}
	out, err := Codec{}.Fork(v, format.ForkOptions{SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(`"type":"image"`)) {
		t.Errorf("fork still holds the stripped image")
	}
	re, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := formattest.SameContent(re.Messages, v.Messages); !ok {
		t.Errorf("fork re-parses to different messages at %d", i)
	}
}

// TestBlocksAsTheMessagesAPI: Claude Code logs Messages API content, so its
// blocks read as the API's do: MCP tool use and results, server tool
// results and documents inside tool results are parts the gauge counts,
// not opaque bytes.
func TestBlocksAsTheMessagesAPI(t *testing.T) {
	src := []byte(`{"type":"assistant","uuid":"a1","parentUuid":null,"sessionId":"s","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[` +
		`{"type":"mcp_tool_use","id":"t1","name":"search","server_name":"docs","input":{"q": "retry"}},` +
		`{"type":"server_tool_use","id":"t2","name":"web_search","input":{"query":"zstd"}},` +
		`{"type":"web_search_tool_result","tool_use_id":"t2","content":[{"type":"web_search_result","url":"https://x","title":"zstd","encrypted_content":"abcd"}]}]}}` + "\n" +
		`{"type":"user","uuid":"u1","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[` +
		`{"type":"mcp_tool_result","tool_use_id":"t1","content":[{"type":"text","text":"found it"}]},` +
		`{"type":"tool_result","tool_use_id":"t9","content":[{"type":"text","text":"see the spec"},{"type":"document","source":{"type":"text","media_type":"text/plain","data":"the spec text"}}]}]}}` + "\n")
	tr, err := Codec{}.Parse(src)
	if err != nil || len(tr.Messages) != 2 {
		t.Fatalf("parse: %v, %d messages", err, len(tr.Messages))
	}
	kinds := func(m transcript.Message) (out []transcript.PartKind) {
		for _, p := range m.Parts {
			out = append(out, p.Kind)
		}
		return out
	}
	asst, user := tr.Messages[0], tr.Messages[1]
	want := []transcript.PartKind{transcript.PartToolCall, transcript.PartToolCall, transcript.PartToolResult}
	if got := kinds(asst); !slices.Equal(got, want) {
		t.Fatalf("assistant parts %v, want %v", got, want)
	}
	if a := asst.Parts[0]; a.ToolName != "search" || a.Args != `{"q":"retry"}` {
		t.Errorf("mcp_tool_use: %q %q (arguments as the model receives them, compact)", a.ToolName, a.Args)
	}
	if r := asst.Parts[2]; r.ToolName != "web_search" || r.ToolCallID != "t2" || r.Opaque == 0 {
		t.Errorf("server tool result: %+v", r)
	}
	want = []transcript.PartKind{transcript.PartToolResult, transcript.PartToolResult, transcript.PartDocument}
	if got := kinds(user); !slices.Equal(got, want) {
		t.Fatalf("user parts %v, want %v", got, want)
	}
	if user.Parts[0].Text != "found it" || user.Parts[2].Text != "the spec text" || user.Origin != transcript.OriginToolResult {
		t.Errorf("user parts: %+v", user.Parts)
	}
	// Untouched, the transcript still writes back byte for byte.
	if out, err := (Codec{}).Write(tr); err != nil || string(out) != string(src) {
		t.Fatalf("write: %v", err)
	}
}

// TestAppendTrimmed: the daemon follows a session trimmed to what Append
// needs; appends on a linear session never need a fresh parse, and the
// messages stay Parse's.
func TestAppendTrimmed(t *testing.T) {
	inputs := map[string][]byte{
		"mixed":     formattest.Fixture(t, "mixed.jsonl"),
		"rewind":    formattest.Fixture(t, "compact-after-rewind.jsonl"),
		"generated": sessiongen.ClaudeCode(sessiongen.Options{Seed: 11, Turns: 30}),
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(8) {
				n := formattest.AppendTrimmed(t, Codec{}, src, seed)
				if name == "generated" && n > 0 {
					t.Fatalf("seed %d: %d appends to a linear session needed a fresh parse", seed, n)
				}
			}
		})
	}
}

// TestTrimmedRewindNeedsParse: a rewind to a record whose message was
// trimmed is ErrTrimmed, not a silently shorter conversation; a compact
// boundary written after the trim starts a branch of new records and
// appends on.
func TestTrimmedRewindNeedsParse(t *testing.T) {
	src := formattest.Fixture(t, "compact-after-rewind.jsonl")
	lines := bytes.SplitAfter(src, []byte("\n"))
	// Lines 1-4 are u1 a1 b1u b1a; line 5 (b2u) rewinds to a1.
	tr, err := Codec{}.Append(nil, bytes.Join(lines[:4], nil))
	if err != nil {
		t.Fatal(err)
	}
	if kept := (Codec{}).Trim(tr, len(tr.Messages)); kept == 0 {
		t.Fatalf("nothing trimmed from %d messages", len(tr.Messages))
	}
	if _, err := (Codec{}).Append(tr, lines[4]); !errors.Is(err, format.ErrTrimmed) {
		t.Fatalf("rewind after trim: err %v, want ErrTrimmed", err)
	}
	// Up to the compact boundary and its summary, trimmed, then the rest.
	whole, err := Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	tr, err = Codec{}.Append(nil, bytes.Join(lines[:8], nil))
	if err != nil {
		t.Fatal(err)
	}
	Codec{}.Trim(tr, len(tr.Messages))
	got, err := Codec{}.Append(tr, bytes.Join(lines[8:], nil))
	if err != nil {
		t.Fatalf("append of a compact boundary after trim: %v", err)
	}
	if len(got.Messages) != len(whole.Messages) {
		t.Fatalf("%d messages after the boundary, Parse gives %d", len(got.Messages), len(whole.Messages))
	}
	for i := range got.Messages {
		if got.Messages[i].Parts == nil {
			t.Fatalf("message %d after a new boundary has no parts", i)
		}
	}
}

// TestAppendSuspended: a session carried from one process to the next
// after every append (a status line's runs) goes on as Parse reads it;
// appends that continue a linear conversation, system rows written after
// each response included, never need a fresh parse.
func TestAppendSuspended(t *testing.T) {
	generated := sessiongen.ClaudeCode(sessiongen.Options{Seed: 11, Turns: 30})
	inputs := map[string][]byte{
		"mixed":             formattest.Fixture(t, "mixed.jsonl"),
		"rewind":            formattest.Fixture(t, "compact-after-rewind.jsonl"),
		"two boundaries":    formattest.Fixture(t, "two-compact-boundaries.jsonl"),
		"parallel calls":    formattest.Fixture(t, "parallel-tool-calls.jsonl"),
		"generated":         generated,
		"system rows after": withTurnDurations(t, generated),
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(8) {
				n := formattest.AppendSuspended(t, Codec{}, src, seed)
				if (name == "generated" || name == "system rows after") && n > 0 {
					t.Fatalf("seed %d: %d appends to a linear session needed a fresh parse", seed, n)
				}
			}
		})
	}
}

// TestAppendTrimmedAfterSystemRows: the rows Claude Code writes after a
// response (turn_duration, stop hook summaries) are stepped over by the
// leaf's choice; the next turn, whose chain runs through them, extends
// the conversation, trimmed or not.
func TestAppendTrimmedAfterSystemRows(t *testing.T) {
	src := withTurnDurations(t, sessiongen.ClaudeCode(sessiongen.Options{Seed: 5, Turns: 30}))
	for seed := range uint64(8) {
		if n := formattest.AppendTrimmed(t, Codec{}, src, seed); n > 0 {
			t.Fatalf("seed %d: %d appends needed a fresh parse", seed, n)
		}
	}
}

// withTurnDurations writes a system turn_duration row after every
// assistant row that ends a turn (the next row is a human prompt), with
// the prompt's parent moved to it, as Claude Code 2.1 does.
func withTurnDurations(t *testing.T, src []byte) []byte {
	t.Helper()
	var rows []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(src), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	var out bytes.Buffer
	for i, r := range rows {
		if i > 0 && r["type"] == "user" && rows[i-1]["type"] == "assistant" {
			if m, ok := r["message"].(map[string]any); ok {
				if _, isText := m["content"].(string); isText {
					sys := map[string]any{"type": "system", "subtype": "turn_duration", "durationMs": 1200 + i,
						"uuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", i), "parentUuid": rows[i-1]["uuid"],
						"isSidechain": false, "sessionId": r["sessionId"], "timestamp": r["timestamp"]}
					b, err := json.Marshal(sys)
					if err != nil {
						t.Fatal(err)
					}
					out.Write(b)
					out.WriteByte('\n')
					r["parentUuid"] = sys["uuid"]
				}
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
