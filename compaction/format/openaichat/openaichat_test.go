package openaichat

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func roundTrip(t testing.TB, src []byte) *transcript.Transcript {
	t.Helper()
	tr, err := Codec{}.Parse(src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	out, err := Codec{}.Write(tr)
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	if !bytes.Equal(out, src) {
		t.Fatalf("Write(Parse(src)) is not byte-identical (%d vs %d bytes)", len(out), len(src))
	}
	return tr
}

func corpus(t *testing.T, dir string) []string {
	_, file, _, _ := runtime.Caller(0)
	base := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "corpus", dir)
	files, _ := filepath.Glob(filepath.Join(base, "*"))
	if len(files) == 0 {
		t.Skipf("corpus %s not present", base)
	}
	return files
}

func TestRoundTripFixturesAndCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			src, _ := os.ReadFile(f)
			roundTrip(t, src)
		})
	}
	for _, f := range corpus(t, "openai-chat") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, _ := os.ReadFile(f)
			tr := roundTrip(t, src)
			if len(tr.Messages) < 3 || tr.Skipped != 0 {
				t.Fatalf("%d messages, %d skipped", len(tr.Messages), tr.Skipped)
			}
			if (Codec{}).Detect(f, src[:min(len(src), format.DetectBytes)]) < 50 {
				t.Fatal("corpus file not detected")
			}
		})
	}
}

func TestParseTrajectory(t *testing.T) {
	tr := roundTrip(t, read(t, "traj.json"))
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
	tr := roundTrip(t, read(t, "bare.json"))
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

func flatten(msgs []transcript.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			out = append(out, fmt.Sprintf("%s %s|%s|%s|%s", m.Role, p.Kind, p.Text, p.ToolCallID, p.Args))
		}
	}
	return out
}

func expected(v *transcript.View) []string {
	var out []string
	for i, m := range v.Messages {
		for _, s := range v.Summaries {
			if s.Before == i {
				out = append(out, fmt.Sprintf("user text|%s||", s.Text))
			}
		}
		out = append(out, flatten([]transcript.Message{m})...)
	}
	return out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from golden:\n%s", name, got)
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
		{"strip-reasoning-and-results", "traj.json", func(v *transcript.View) {
			for i := range v.Messages {
				var kept []transcript.Part
				for _, p := range v.Messages[i].Parts {
					switch p.Kind {
					case transcript.PartReasoning:
						continue
					case transcript.PartToolResult:
						p.Text, p.Changed = "[output removed]", true
					}
					kept = append(kept, p)
				}
				v.Messages[i].Parts = kept
			}
		}},
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
			src := read(t, tc.src)
			tr := roundTrip(t, src)
			v := transcript.NewView(tr)
			tc.edit(v)
			out, err := Codec{}.Fork(v, format.ForkOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "unchanged" && !bytes.Equal(out, src) {
				t.Fatal("fork of an unchanged view differs from the source")
			}
			golden(t, "fork-"+tc.name+".golden.json", out)
			back, err := Codec{}.Parse(out)
			if err != nil {
				t.Fatalf("fork does not re-parse: %v", err)
			}
			got, want := flatten(back.Messages), expected(v)
			if tc.name == "compact-drop-call" {
				// The replaced image comes back as the text standing in for it.
				want[2] = strings.Replace(want[2], "image|", "text|", 1)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("re-parsed fork:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		min, max  int
	}{
		{"trajectory", string(read(t, "traj.json")), 85, 100},
		{"trajectory head", string(read(t, "traj.json")[:1200]), 85, 100},
		{"bare", string(read(t, "bare.json")), 85, 100},
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
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b)
	}
	f.Add([]byte(`[{"role":"tool","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBER"}}]}]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		tr, err := Codec{}.Parse(src)
		if err != nil {
			return
		}
		out, err := Codec{}.Write(tr)
		if err != nil || !bytes.Equal(out, src) {
			t.Fatalf("round trip failed: %v", err)
		}
		fork, err := Codec{}.Fork(transcript.NewView(tr), format.ForkOptions{})
		if err != nil || !bytes.Equal(fork, src) {
			t.Fatalf("fork of unchanged view differs: %v", err)
		}
		Codec{}.Detect("x", src)
	})
}

func BenchmarkParse(b *testing.B) {
	src := read(b, "traj.json")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := (Codec{}).Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCorpus measures the real 196 KB mini-swe-agent trajectory.
func BenchmarkParseCorpus(b *testing.B) {
	_, file, _, _ := runtime.Caller(0)
	src, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "corpus", "openai-chat", "real-mini-swe-agent-toolcalls.traj.json"))
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
