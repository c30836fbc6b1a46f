package openaichat

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestRoundTripFixturesAndCorpus(t *testing.T) {
	formattest.RoundTripFiles(t, Codec{}, formattest.Fixtures(t, "*.json"), nil)
	formattest.RoundTripFiles(t, Codec{}, formattest.Corpus(t, "openai-chat"), func(t *testing.T, f string, src []byte, tr *transcript.Transcript) {
		if len(tr.Messages) < 3 || tr.Skipped != 0 {
			t.Fatalf("%d messages, %d skipped", len(tr.Messages), tr.Skipped)
		}
		if (Codec{}).Detect(f, src[:min(len(src), format.DetectBytes)]) < 50 {
			t.Fatal("corpus file not detected")
		}
	})
}

func TestParseTrajectory(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "traj.json", formattest.Fixture(t, "traj.json"))
	if tr.Meta.Model != "deepseek/deepseek-chat" {
		t.Errorf("model %q", tr.Meta.Model)
	}
	if len(tr.Messages) != 7 || tr.Records[7].Kind != transcript.RecordUnknown || tr.Records[7].Type != "exit" {
		t.Fatalf("%d messages; exit record %+v", len(tr.Messages), tr.Records[7].Kind)
	}
	a := tr.Messages[2]
	if a.Parts[0].Kind != transcript.PartReasoning || a.Parts[1].Kind != transcript.PartText || a.Parts[2].Kind != transcript.PartToolCall {
		t.Fatalf("assistant parts %+v", a.Parts)
	}
	if a.Parts[2].Args != `{"command": "ls src/sqlfluff/rules | grep L060"}` || a.Parts[2].ToolName != "bash" {
		t.Errorf("tool call %+v", a.Parts[2])
	}
	if u := a.Usage; u == nil || u.Input != 1220 || u.CacheRead != 320 || u.Output != 85 || u.ContextTokens() != 1625 {
		t.Errorf("usage %+v", a.Usage)
	}
	if a.Model != "deepseek-chat" || a.Timestamp.Unix() != 1775890958 {
		t.Errorf("model %q time %v", a.Model, a.Timestamp)
	}
	res := tr.Messages[3]
	if res.Role != transcript.RoleTool || res.Parts[0].Kind != transcript.PartToolResult || res.Parts[0].ToolName != "bash" || res.Parts[0].ToolCallID != "call_00_a" {
		t.Errorf("tool result %+v", res)
	}
	if len(tr.Turns) != 3 || tr.LastUsage() != 4 {
		t.Errorf("turns %v last usage %d", tr.Turns, tr.LastUsage())
	}
}

func TestParseBare(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "bare.json", formattest.Fixture(t, "bare.json"))
	if tr.Messages[0].Origin != transcript.OriginInjected {
		t.Error("developer message not injected")
	}
	img := tr.Messages[1].Parts[1]
	if img.Kind != transcript.PartImage || img.Width != 3 || img.Height != 2 || img.Size != 73 || img.MIME != "image/png" {
		t.Errorf("image %+v", img)
	}
	if n := tr.ToolCalls(); n != 2 {
		t.Errorf("%d tool calls", n)
	}
	if p := tr.Messages[4].Parts[0]; p.Kind != transcript.PartToolResult || p.ToolName != "ocr" || p.Text != "no text found" {
		t.Errorf("array tool result %+v", p)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{`[{"role":"user","content":"x"}`, `{"messages":[1,]}`, `{"info":{}}`, "[{\"role\":\"user\",\"content\":\"a\x01\"}]"} {
		if _, err := (Codec{}).Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), "byte ") {
			t.Errorf("%q: err = %v, want an error naming the byte offset", src, err)
		}
	}
	tr, err := Codec{}.Parse([]byte(`[{"role":"user","content":"x"},"stray",{"role":"assistant","content":7}]`))
	if err != nil || tr.Skipped != 1 || len(tr.Messages) != 2 {
		t.Fatalf("err %v skipped %d messages %d", err, tr.Skipped, len(tr.Messages))
	}
}

func TestForkGolden(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		edit      func(v *transcript.View)
	}{
		{"unchanged", "traj.json", func(v *transcript.View) {}},
		{"cut-summary", "traj.json", func(v *transcript.View) {
			v.Messages = append(v.Messages[:1:1], v.Messages[6:]...)
			v.Summaries = []transcript.Summary{{Text: "Found L060.py and read it.", Before: 1}}
			v.Cut = true
		}},
		{"strip-reasoning-and-results", "traj.json", formattest.StripReasoningAndResults},
		{"compact-drop-call", "bare.json", func(v *transcript.View) {
			// Drop the ocr call and its result, replace the image by text.
			a := &v.Messages[2]
			a.Parts = a.Parts[:1]
			a.Parts[0].Args, a.Parts[0].Changed = `{"detail":"low"}`, true
			v.Messages = append(v.Messages[:4:4], v.Messages[5:]...)
			v.Messages[1].Parts[1].Text, v.Messages[1].Parts[1].Changed = "[image removed]", true
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := formattest.Fixture(t, tc.src)
			tr := formattest.RoundTrip(t, Codec{}, tc.src, src)
			v := transcript.NewView(tr)
			tc.edit(v)
			out, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{})
			if tc.name == "unchanged" && !bytes.Equal(out, src) {
				t.Fatal("fork of an unchanged view differs from the source")
			}
			formattest.Golden(t, "fork-"+tc.name+".golden.json", out)
			want := formattest.ViewLines(v)
			if tc.name == "compact-drop-call" {
				// The replaced image comes back as the text standing in for it.
				want[2] = strings.Replace(want[2], "image|", "text|", 1)
			}
			formattest.SameLines(t, formattest.Lines(back.Messages), want)
		})
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		min, max  int
	}{
		{"trajectory", string(formattest.Fixture(t, "traj.json")), 85, 100},
		{"trajectory head", string(formattest.Fixture(t, "traj.json")[:1200]), 85, 100},
		{"bare", string(formattest.Fixture(t, "bare.json")), 85, 100},
		{"plain", `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`, 50, 60},
		{"anthropic", `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"y"}]}]`, 0, 0},
		{"cline", `[{"role":"user","content":"x","ts":1}]`, 0, 0},
		{"gemini", `{"sessionId":"s","messages":[{"id":"m1","type":"user","content":"hi"}]}`, 0, 0},
		{"responses", `{"model":"gpt-5","input":[{"role":"user","content":"hi"}]}`, 0, 0},
		{"jsonl", "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"b\"}\n", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Codec{}).Detect("x.json", []byte(tc.src)); got < tc.min || got > tc.max {
				t.Fatalf("score %d, want %d..%d", got, tc.min, tc.max)
			}
		})
	}
}

func FuzzParseOpenAIChat(f *testing.F) {
	for _, name := range []string{"traj.json", "bare.json"} {
		f.Add(formattest.Fixture(f, name))
	}
	f.Add([]byte(`[{"role":"tool","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBER"}}]}]`))
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
	src := formattest.Fixture(b, "traj.json")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := (Codec{}).Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCorpus measures the real 196 KB mini-swe-agent trajectory.
func BenchmarkParseCorpus(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(formattest.CorpusDir(), "openai-chat", "real-mini-swe-agent-toolcalls.traj.json"))
	if err != nil {
		b.Skip("corpus absent")
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := (Codec{}).Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
