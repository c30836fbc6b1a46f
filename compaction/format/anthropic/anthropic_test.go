package anthropic

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestRoundTripFixturesAndCorpus(t *testing.T) {
	formattest.RoundTripFiles(t, Codec{}, formattest.Fixtures(t, "*.json"), nil)
	formattest.RoundTripFiles(t, Codec{}, formattest.Corpus(t, "anthropic-messages"), func(t *testing.T, _ string, _ []byte, tr *transcript.Transcript) {
		if len(tr.Messages) < 2 || tr.Skipped != 0 {
			t.Fatalf("corpus file gave %d messages, %d skipped", len(tr.Messages), tr.Skipped)
		}
	})
}

func TestParseRequest(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "request.json", formattest.Fixture(t, "request.json"))
	if tr.Meta.Model != "claude-sonnet-4-5" {
		t.Errorf("model %q", tr.Meta.Model)
	}
	type want struct {
		role   transcript.Role
		origin transcript.Origin
		kinds  string
	}
	wants := []want{
		{"system", transcript.OriginInjected, "text"},
		{"user", transcript.OriginHuman, "text image"},
		{"assistant", transcript.OriginAgent, "reasoning text tool_call"},
		{"user", transcript.OriginToolResult, "tool_result"},
		{"assistant", transcript.OriginAgent, "opaque tool_call"},
		{"user", transcript.OriginToolResult, "tool_result"},
		{"assistant", transcript.OriginAgent, "text"},
		{"user", transcript.OriginHuman, "text"},
		{"assistant", transcript.OriginAgent, "tool_call tool_result text"},
		{"user", transcript.OriginHuman, "document text"},
	}
	if len(tr.Messages) != len(wants) {
		t.Fatalf("%d messages, want %d", len(tr.Messages), len(wants))
	}
	for i, w := range wants {
		m := tr.Messages[i]
		var kinds []string
		for _, p := range m.Parts {
			kinds = append(kinds, string(p.Kind))
		}
		if m.Role != w.role || m.Origin != w.origin || strings.Join(kinds, " ") != w.kinds {
			t.Errorf("message %d: %s/%s [%s], want %s/%s [%s]", i, m.Role, m.Origin, strings.Join(kinds, " "), w.role, w.origin, w.kinds)
		}
	}
	img := tr.Messages[1].Parts[1]
	if img.Width != 3 || img.Height != 2 || img.MIME != "image/png" || img.Size != 73 {
		t.Errorf("image %+v", img)
	}
	think := tr.Messages[2].Parts[0]
	if !think.Signed || think.Opaque == 0 || think.Text != "I should read calc.go first." {
		t.Errorf("thinking %+v", think)
	}
	call := tr.Messages[2].Parts[2]
	if call.Args != `{"file_path":"/src/calc.go"}` || call.ToolName != "Read" || call.ToolCallID != "toolu_01" {
		t.Errorf("tool_use %+v", call)
	}
	res := tr.Messages[5].Parts[0]
	if !res.IsError || res.Text != "permission denied" || res.ToolCallID != "toolu_02" {
		t.Errorf("tool_result %+v", res)
	}
	if red := tr.Messages[4].Parts[0]; !red.Signed || red.Opaque != 64 {
		t.Errorf("redacted_thinking %+v", red)
	}
	if doc := tr.Messages[9].Parts[0]; doc.Text != "TODO: add Sub" {
		t.Errorf("document %+v", doc)
	}
	if n := len(tr.Turns); n != 4 {
		t.Errorf("%d turns, want 4", n)
	}
}

func TestParseOddInput(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "bare-odd.json", formattest.Fixture(t, "bare-odd.json"))
	if tr.Skipped != 1 || len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0].Message, "not a JSON object") {
		t.Errorf("problems %+v", tr.Problems)
	}
	if k := tr.Records[4].Kind; k != transcript.RecordUnknown {
		t.Errorf("role-less record kind %s", k)
	}
	if len(tr.Messages) != 3 {
		t.Fatalf("%d messages", len(tr.Messages))
	}
	if !bytes.Contains(tr.Records[0].Raw, []byte("\xff\xfe")) || !bytes.Contains(tr.Records[0].Raw, []byte(`\ud800`)) {
		t.Error("raw bytes lost invalid UTF-8 or the surrogate escape")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"truncated", "{\"messages\": [\n {\"role\": \"user\", \"content\": \"hi", "line 2"},
		{"garbage", "[{\"role\":\"user\"} x]", "byte 17"},
		{"no messages", `{"model":"x"}`, "no"},
		{"trailing", `[] []`, "after the document"},
		{"empty", ``, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Codec{}.Parse([]byte(tc.src))
			var se *jsonx.SyntaxError
			if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a syntax error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestForkGolden(t *testing.T) {
	src := formattest.Fixture(t, "request.json")
	tr := formattest.RoundTrip(t, Codec{}, "request.json", src)
	for _, tc := range []struct {
		name string
		edit func(v *transcript.View)
	}{
		{"unchanged", func(v *transcript.View) {}},
		{"summary-merged", func(v *transcript.View) {
			// Keep the system prompt and the last two turns; the summary
			// joins the next user message.
			v.Messages = append(v.Messages[:1:1], v.Messages[7:]...)
			v.Summaries = []transcript.Summary{{Text: "Earlier: fixed Add in calc.go.", Before: 1}}
			v.Cut = true
		}},
		{"summary-standalone-with-ack", func(v *transcript.View) {
			// The summary lands between a user message and an assistant
			// one: it becomes its own user message after an ack.
			v.Summaries = []transcript.Summary{{Text: "Between.", Before: 8}}
		}},
		{"strip-tool-results", func(v *transcript.View) {
			for i := range v.Messages {
				for j := range v.Messages[i].Parts {
					p := &v.Messages[i].Parts[j]
					if p.Kind == transcript.PartToolResult && p.Text != "" {
						p.Text, p.Changed = "[output removed]", true
					}
				}
			}
		}},
		{"strip-attachments-and-reasoning", func(v *transcript.View) {
			for i := range v.Messages {
				var kept []transcript.Part
				for _, p := range v.Messages[i].Parts {
					if p.Kind != transcript.PartImage && p.Kind != transcript.PartReasoning && p.Kind != transcript.PartDocument {
						kept = append(kept, p)
					}
				}
				v.Messages[i].Parts = kept
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := transcript.NewView(tr)
			tc.edit(v)
			out, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{})
			if tc.name == "unchanged" && !bytes.Equal(out, src) {
				t.Fatal("fork of an unchanged view differs from the source")
			}
			formattest.Golden(t, "fork-"+tc.name+".golden.json", out)
			// Acks the fork adds for alternation are not in the view.
			got := formattest.Lines(back.Messages, AckText("assistant"), AckText("user"))
			formattest.SameLines(t, got, formattest.ViewLines(v))
			formattest.Alternates(t, back.Messages)
		})
	}
}

func TestForkRefusesAlteredSignature(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "request.json", formattest.Fixture(t, "request.json"))
	v := transcript.NewView(tr)
	v.Messages[2].Parts[0].Text, v.Messages[2].Parts[0].Changed = "edited", true
	if _, err := (Codec{}).Fork(v, format.ForkOptions{}); !errors.Is(err, ErrSignedChanged) {
		t.Fatalf("err = %v, want ErrSignedChanged", err)
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		min, max  int
	}{
		{"request", string(formattest.Fixture(t, "request.json")), 80, 100},
		{"truncated head", string(formattest.Fixture(t, "request.json")[:700]), 80, 100},
		{"text only", `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`, 1, 49},
		{"chat tool_calls", `[{"role":"assistant","content":null,"tool_calls":[]}]`, 0, 0},
		{"cline", `[{"role":"user","content":[{"type":"text","text":"x"}],"ts":1}]`, 1, 50},
		{"jsonl", "{\"type\":\"user\",\"uuid\":\"u\"}\n{\"type\":\"assistant\",\"uuid\":\"v\"}\n", 0, 0},
		{"responses", `[{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}]`, 0, 0},
		{"not json", "# hello", 0, 0},
		// Heads that end inside a long string: before the messages (a
		// long system prompt), or inside the first message before its
		// role (keys sorted).
		{"cut in the system prompt", `{"model":"claude-sonnet-4-5","max_tokens":8192,"system":[{"type":"text","text":"You are a coding agent. Follow`, 55, 70},
		{"cut in a system block before its type", `{"system":[{"text":"You are a coding agent. Follow`, 55, 70},
		{"cut in a string system prompt", `{"max_tokens":8192,"system":"You are a coding agent. Follow`, 55, 70},
		{"cut in instructions", `{"model":"gpt-5","instructions":"You are a coding agent. Follow`, 0, 0},
		{"cut in a chat request's tools", `{"model":"gpt-5","max_tokens":100,"tools":[{"type":"function","function":{"description":"Runs`, 0, 0},
		{"cut in the first message, keys sorted", `{"max_tokens":8192,"messages":[{"content":[{"text":"Here is the whole file: package main`, 80, 100},
		{"whole, no messages", `{"max_tokens":8192,"system":"s"}`, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Codec{}).Detect("x.json", []byte(tc.src)); got < tc.min || got > tc.max {
				t.Fatalf("score %d, want %d..%d", got, tc.min, tc.max)
			}
		})
	}
}

func FuzzParseAnthropic(f *testing.F) {
	for _, name := range []string{"request.json", "bare-odd.json"} {
		f.Add(formattest.Fixture(f, name))
	}
	f.Add([]byte(`{"system":"s","messages":[{"role":"user","content":[{"type":"tool_result","content":[{"type":"image","source":{"type":"base64","data":"!!"}}]}]}]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		tr := formattest.WriteBack(t, Codec{}, src)
		if tr == nil {
			return
		}
		formattest.UnchangedForkIsSource(t, Codec{}, tr, src, format.ForkOptions{})
		Codec{}.Detect("x", src)
	})
}

func BenchmarkParse(b *testing.B) {
	src := formattest.Fixture(b, "request.json")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := (Codec{}).Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
