package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

const session = "testdata/session.json"

var oc = Codec{Agent: transcript.FormatOpenCode}

func TestParseExport(t *testing.T) {
	tr := formattest.RoundTrip(t, oc, session, formattest.Read(t, session))
	want := []string{
		"user text|List the files and tell me what calc.go does.||",
		`assistant tool_call||call_7|{"command":"ls","description":"List files"}`,
		"tool tool_result|calc.go\ncalc_test.go\ngo.mod\n|call_7|",
		"assistant text|calc.go defines Add and Sub.||",
		"user text|Fix Add: it subtracts.||",
		`user text|Called the Read tool with the following input: {"filePath":"calc.go"}||`,
		"assistant reasoning|The bug is in Add.||",
		`assistant tool_call||call_r1|{"filePath":"/nope"}`,
		`assistant tool_call||call_r2|{"filePath":"/home/ada/calc/calc.go"}`,
		"tool tool_result|File not found: /nope|call_r1|",
		"tool tool_result|package calc\n\nfunc Add(a, b int) int { return a - b }\n|call_r2|",
		"assistant text|Add returns a - b; it should return a + b.||",
	}
	formattest.SameLines(t, formattest.Lines(tr.Messages), want)
	if tr.Skipped != 1 || !strings.Contains(tr.Problems[0].Message, "message") {
		t.Fatalf("problems %+v", tr.Problems)
	}
	if tr.Records[3].Kind != transcript.RecordUnknown {
		t.Fatalf("unknown role record kind %v", tr.Records[3].Kind)
	}
	last := tr.Messages[len(tr.Messages)-1]
	if last.Usage == nil || last.Usage.ContextTokens() != 8100 || last.Usage.CacheRead != 5950 {
		t.Fatalf("last usage %+v", last.Usage)
	}
	if u := tr.Messages[5].Usage; u == nil || u.Total != 8050 {
		t.Fatalf("first step usage %+v", u)
	}
	m := tr.Meta
	if m.SessionID != "ses_df6018d8cffeeRX164hLZrrQC7" || m.Cwd != "/home/ada/calc" || m.AgentVersion != "1.18.33" || m.Model != "qwen3-coder-plus" || m.Title != "Fix Add in calc.go" {
		t.Fatalf("meta %+v", m)
	}
	if len(tr.Turns) != 2 || tr.Turns[1].Start != 4 {
		t.Fatalf("turns %+v", tr.Turns)
	}
}

// TestGaugeEqualsLastStep: the gauge is the last step's reported tokens.
func TestGaugeEqualsLastStep(t *testing.T) {
	tr := formattest.RoundTrip(t, oc, session, formattest.Read(t, session))
	g := formattest.LiveGauge(t, tr, tokens.CL100kBase)
	if g.Source != gauge.SourceReported || g.Tokens != 8100 || g.ToolCalls != 3 {
		t.Fatalf("gauge %+v", g)
	}
}

func TestDetect(t *testing.T) {
	head := formattest.Head(t, session)
	kilo := Codec{Agent: transcript.FormatKilo}
	if s, k := oc.Detect("x.json", head), kilo.Detect("x.json", head); s < 85 || s <= k {
		t.Fatalf("opencode %d, kilo %d on an opencode export", s, k)
	}
	if s, o := kilo.Detect("/home/a/.local/state/compactd/sessions/kilo/ses_x.json", head), oc.Detect("/home/a/.local/state/compactd/sessions/kilo/ses_x.json", head); s <= o {
		t.Fatalf("kilo %d, opencode %d on a kilo path", s, o)
	}
	kiloHead := bytes.Replace(head, []byte(`"version": "1.18.33"`), []byte(`"version": "7.7.7"`), 1)
	if s, o := kilo.Detect("x.json", kiloHead), oc.Detect("x.json", kiloHead); s <= o {
		t.Fatalf("kilo %d, opencode %d on a 7.x export", s, o)
	}
	formattest.DetectsNone(t, oc, "../gemini/testdata/legacy-session.json", "../cline/testdata/api_conversation_history.json")
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{"[]", `{"messages":[1,2]}`, `{"info":{"id":"ses_x"},"messages":[{"info":7}]}`, "{"} {
		if _, err := oc.Parse([]byte(src)); err == nil {
			t.Errorf("%q parsed", src)
		}
	}
}

// TestCompactedHistory: after a finished compaction the model sees the
// compaction prompt, the summary and what follows, as opencode sends it.
func TestCompactedHistory(t *testing.T) {
	tr := formattest.RoundTrip(t, oc, session, formattest.Read(t, session))
	v := transcript.NewView(tr)
	v.Messages = v.Messages[4:]
	v.Summaries = []transcript.Summary{{Text: "Listed the files.", Before: 0}}
	v.Cut = true
	out, back := formattest.ForkParse(t, oc, v, format.ForkOptions{SessionID: "seed", Timestamp: "2026-11-24T10:00:00.000Z"})
	got := formattest.Lines(back.Messages)
	if got[0] != "user text|"+compactionPrompt+"||" || got[1] != "assistant text|Listed the files.||" || back.Messages[0].Origin != transcript.OriginSummary {
		t.Fatalf("compacted fork reads:\n%s", strings.Join(got, "\n"))
	}
	// Put the original history back in front of the compaction: the
	// model still sees only what follows it.
	var doc struct {
		Info     json.RawMessage   `json:"info"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var srcDoc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(formattest.Read(t, session), &srcDoc)
	doc.Messages = append(append([]json.RawMessage{}, srcDoc.Messages[:3]...), doc.Messages...)
	joined, _ := json.Marshal(doc)
	again, err := oc.Parse(joined)
	if err != nil {
		t.Fatal(err)
	}
	formattest.SameLines(t, formattest.Lines(again.Messages), got)
}

func TestForkGolden(t *testing.T) {
	tr := formattest.RoundTrip(t, oc, session, formattest.Read(t, session))
	cases := formattest.ForkCases(4, "Earlier: listed the files; calc.go defines Add and Sub.")
	opts := format.ForkOptions{SessionID: "fork-0001", Timestamp: "2026-11-24T10:00:00.000Z"}
	golden := func(name string) string { return "fork-" + name + ".golden.json" }
	formattest.ForkGoldens(t, oc, tr, cases, opts, golden, func(t *testing.T, name string, v *transcript.View, out []byte, back *transcript.Transcript) {
		want := formattest.ViewLines(v)
		if name == "summary" {
			want = append([]string{"user text|" + compactionPrompt + "||", "assistant text|" + v.Summaries[0].Text + "||"}, formattest.Lines(v.Messages)...)
		}
		formattest.SameLines(t, formattest.Lines(back.Messages), want)
		if !strings.HasPrefix(back.Meta.SessionID, "ses_") || back.Meta.SessionID == tr.Meta.SessionID || back.Meta.Cwd != "/home/ada/calc" {
			t.Fatalf("fork meta %+v", back.Meta)
		}
		// Every id is new: opencode import skips rows whose id exists.
		for _, id := range idsOf(t, formattest.Read(t, session)) {
			if bytes.Contains(out, []byte(`"`+id+`"`)) {
				t.Fatalf("fork reuses the source's id %s", id)
			}
		}
		if name == "summary" || name == "strip" {
			if u := back.Messages[len(back.Messages)-1].Usage; u != nil {
				t.Fatalf("usage kept past the unchanged prefix: %+v", u)
			}
		}
	})
}

func idsOf(t *testing.T, src []byte) []string {
	var doc struct {
		Messages []struct {
			Info struct {
				ID string `json:"id"`
			} `json:"info"`
			Parts []struct {
				ID string `json:"id"`
			} `json:"parts"`
		} `json:"messages"`
	}
	// The fixture holds one malformed element: decode what decodes.
	dec := json.NewDecoder(bytes.NewReader(bytes.Replace(src, []byte(`{"info": 7}`), []byte(`{}`), 1)))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range doc.Messages {
		if m.Info.ID != "" {
			out = append(out, m.Info.ID)
		}
		for _, p := range m.Parts {
			out = append(out, p.ID)
		}
	}
	return out
}

func FuzzParseOpenCode(f *testing.F) {
	f.Add(formattest.Read(f, session))
	f.Add([]byte(`{"info":{"id":"ses_1"},"messages":[{"info":{"id":"msg_1","role":"assistant","summary":true,"finish":"stop","parentID":"msg_0"},"parts":[{"type":"tool","state":{"status":"running"}},{"type":"step-finish","tokens":{"total":3}}]},{"info":{"id":"msg_0","role":"user"},"parts":[{"type":"compaction","tail_start_id":"msg_1"}]}]}`))
	f.Fuzz(func(t *testing.T, src []byte) { formattest.ParseAndFork(t, oc, "x.json", src) })
}

// longFirst is a real `opencode export` (1.2.20) whose first message's
// info holds whole files (summary.diffs): its first message id sits
// 87 KB in, past what detection reads.
const longFirst = "testdata/export-1.2.20-long-first-message.json"

// TestDetectsExportWhoseHeadEndsInsideTheFirstMessage is issue 34's
// opencode case: real exports whose first message id sat 85–660 KB in
// were "not a recognized transcript" (25 of 501 exports gathered from
// public repositories), because detection looked for a "msg_" id in the
// head. It now judges the shape of what the head holds.
func TestDetectsExportWhoseHeadEndsInsideTheFirstMessage(t *testing.T) {
	data := formattest.Read(t, longFirst)
	if i := bytes.Index(data, []byte(`"msg_`)); i < format.DetectBytes {
		t.Fatalf("the sample's first message id is %d bytes in: it no longer tests a head that ends before it", i)
	}
	kilo := Codec{Agent: transcript.FormatKilo}
	head := formattest.Head(t, longFirst)
	if s, k := oc.Detect(longFirst, head), kilo.Detect(longFirst, head); s < 80 || s <= k {
		t.Fatalf("opencode %d, kilo %d on the head of a real export", s, k)
	}
	c, err := format.Detect(longFirst, data)
	if err != nil || c.Format() != transcript.FormatOpenCode {
		t.Fatalf("detected as %v, %v", c, err)
	}
	tr, err := c.Parse(data)
	if err != nil || len(tr.Messages) < 2 {
		t.Fatalf("parsed %v, %v", tr, err)
	}
}

// TestDetectsForwardSessionExports: every opencode export of the forward
// corpus (real sessions, $COMPACTD_FORWARD_SESSIONS, else
// ../shared/forward-sessions) is detected from its head alone and reads.
func TestDetectsForwardSessionExports(t *testing.T) {
	root := os.Getenv("COMPACTD_FORWARD_SESSIONS")
	if root == "" {
		root = filepath.Join(formattest.RepoRoot(), "..", "shared", "forward-sessions")
	}
	files, _ := filepath.Glob(filepath.Join(root, "*", "opencode", "*"))
	if len(files) == 0 {
		t.Skipf("no forward sessions under %s", root)
	}
	for _, f := range files {
		data := formattest.Read(t, f)
		if s := oc.Detect(f, data[:min(len(data), format.DetectBytes)]); s < 80 {
			t.Errorf("%s: opencode detection %d", filepath.Base(f), s)
			continue
		}
		if tr, err := oc.Parse(data); err != nil || len(tr.Messages) == 0 {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}
