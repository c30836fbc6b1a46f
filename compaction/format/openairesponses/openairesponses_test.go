package openairesponses

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
	for _, f := range corpus(t, "openai-responses") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, _ := os.ReadFile(f)
			tr := roundTrip(t, src)
			if len(tr.Messages) < 3 || tr.Skipped != 0 {
				t.Fatalf("%d messages, %d skipped", len(tr.Messages), tr.Skipped)
			}
			if (Codec{}).Detect(f, src) < 80 {
				t.Fatal("corpus file not detected")
			}
		})
	}
}

func TestParseItems(t *testing.T) {
	tr := roundTrip(t, read(t, "items.json"))
	kinds := map[int]transcript.RecordKind{8: transcript.RecordMeta, 9: transcript.RecordUnknown}
	for i, r := range tr.Records {
		want, ok := kinds[i]
		if !ok {
			want = transcript.RecordMessage
		}
		if r.Kind != want {
			t.Errorf("record %d (%s) kind %s, want %s", i, r.Type, r.Kind, want)
		}
	}
	if len(tr.Messages) != 10 {
		t.Fatalf("%d messages", len(tr.Messages))
	}
	img := tr.Messages[0].Parts[1]
	if img.Kind != transcript.PartImage || img.Width != 3 || img.Height != 2 || img.Size != 73 {
		t.Errorf("image %+v", img)
	}
	rs := tr.Messages[1].Parts[0]
	if rs.Kind != transcript.PartReasoning || !rs.Signed || rs.Opaque != len("gAAAAABoX2encrypted==") || rs.Text != "Need to run ls." {
		t.Errorf("reasoning %+v", rs)
	}
	if p := tr.Messages[3]; p.Role != transcript.RoleTool || p.Parts[0].ToolName != "shell" || p.Parts[0].Text != "a.txt\nb.txt\n" {
		t.Errorf("function_call_output %+v", p)
	}
	if p := tr.Messages[5].Parts[0]; p.ToolName != "apply_patch" || p.Text != "patched" {
		t.Errorf("custom output %+v", p)
	}
	if p := tr.Messages[6].Parts[0]; p.Kind != transcript.PartToolCall || p.ToolName != "web_search" || !strings.Contains(p.Args, "go release") {
		t.Errorf("web search %+v", p)
	}
	if tr.Messages[7].Parts[0].Signed {
		t.Error("reasoning without encrypted_content marked signed")
	}
	if len(tr.Turns) != 2 {
		t.Errorf("turns %v", tr.Turns)
	}
}

func TestParseRequest(t *testing.T) {
	tr := roundTrip(t, read(t, "request.json"))
	if tr.Meta.Model != "gpt-5-codex" || len(tr.Messages) != 4 || tr.Messages[0].Role != transcript.RoleSystem || tr.Messages[0].Parts[0].Text != "You are Codex." {
		t.Fatalf("meta %+v messages %+v", tr.Meta, tr.Messages)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{`{"input":[{"role":"user"}`, `{"input":"just text"}`, `[tru]`} {
		if _, err := (Codec{}).Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), "byte ") {
			t.Errorf("%q: err = %v, want an error naming the byte offset", src, err)
		}
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
		{"unchanged", "items.json", func(v *transcript.View) {}},
		{"cut-summary", "items.json", func(v *transcript.View) {
			v.Messages = v.Messages[8:]
			v.Summaries = []transcript.Summary{{Text: "Listed files, patched.", Before: 0}}
			v.Cut = true
		}},
		{"strip", "items.json", func(v *transcript.View) {
			for i := range v.Messages {
				var kept []transcript.Part
				for _, p := range v.Messages[i].Parts {
					switch p.Kind {
					case transcript.PartReasoning, transcript.PartImage:
						continue
					case transcript.PartToolResult:
						p.Text, p.Changed = "[output removed]", true
					case transcript.PartToolCall:
						if p.ToolName == "shell" {
							p.Args, p.Changed = `{"command":["ls","-a"]}`, true
						}
					}
					kept = append(kept, p)
				}
				v.Messages[i].Parts = kept
			}
			// Drop the now empty reasoning messages.
			var msgs []transcript.Message
			for _, m := range v.Messages {
				if len(m.Parts) > 0 {
					msgs = append(msgs, m)
				}
			}
			v.Messages = msgs
		}},
		{"request-instructions", "request.json", func(v *transcript.View) {
			v.Messages[0].Parts[0].Text, v.Messages[0].Parts[0].Changed = "You are Codex. Be brief.", true
			v.Messages = append(v.Messages[:1:1], v.Messages[3:]...)
			v.Summaries = []transcript.Summary{{Text: "Said hello.", Before: 1}}
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
			if got, want := flatten(back.Messages), expected(v); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("re-parsed fork:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestForkRefusesAlteredEncryptedReasoning(t *testing.T) {
	tr := roundTrip(t, read(t, "items.json"))
	v := transcript.NewView(tr)
	v.Messages[1].Parts[0].Text, v.Messages[1].Parts[0].Changed = "edited", true
	if _, err := (Codec{}).Fork(v, format.ForkOptions{}); err != ErrSignedChanged && !strings.Contains(fmt.Sprint(err), ErrSignedChanged.Error()) {
		t.Fatalf("err = %v", err)
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		min, max  int
	}{
		{"items", string(read(t, "items.json")), 85, 100},
		{"items head", string(read(t, "items.json")[:300]), 85, 100},
		{"request", string(read(t, "request.json")), 60, 100},
		{"chat", `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`, 0, 0},
		{"jp events", `[{"timestamp":"t","type":"turn_start"},{"timestamp":"t","type":"chat_request","content":"x"}]`, 0, 0},
		{"codex jsonl", "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\"}}\n{}\n", 0, 0},
		{"anthropic", `{"messages":[{"role":"user","content":"hi"}]}`, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Codec{}).Detect("x.json", []byte(tc.src)); got < tc.min || got > tc.max {
				t.Fatalf("score %d, want %d..%d", got, tc.min, tc.max)
			}
		})
	}
}

func FuzzParseOpenAIResponses(f *testing.F) {
	for _, name := range []string{"items.json", "request.json"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b)
	}
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
