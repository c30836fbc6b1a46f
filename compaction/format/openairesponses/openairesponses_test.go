package openairesponses

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestRoundTripFixturesAndCorpus(t *testing.T) {
	formattest.RoundTripFiles(t, Codec{}, formattest.Fixtures(t, "*.json"), nil)
	formattest.RoundTripFiles(t, Codec{}, formattest.Corpus(t, "openai-responses"), func(t *testing.T, f string, src []byte, tr *transcript.Transcript) {
		if len(tr.Messages) < 3 || tr.Skipped != 0 {
			t.Fatalf("%d messages, %d skipped", len(tr.Messages), tr.Skipped)
		}
		if (Codec{}).Detect(f, src) < 80 {
			t.Fatal("corpus file not detected")
		}
	})
}

func TestParseItems(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "items.json", formattest.Fixture(t, "items.json"))
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
	tr := formattest.RoundTrip(t, Codec{}, "request.json", formattest.Fixture(t, "request.json"))
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
			src := formattest.Fixture(t, tc.src)
			tr := formattest.RoundTrip(t, Codec{}, tc.src, src)
			v := transcript.NewView(tr)
			tc.edit(v)
			out, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{})
			if tc.name == "unchanged" && !bytes.Equal(out, src) {
				t.Fatal("fork of an unchanged view differs from the source")
			}
			formattest.Golden(t, "fork-"+tc.name+".golden.json", out)
			formattest.SameLines(t, formattest.Lines(back.Messages), formattest.ViewLines(v))
		})
	}
}

func TestForkRefusesAlteredEncryptedReasoning(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "items.json", formattest.Fixture(t, "items.json"))
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
		{"items", string(formattest.Fixture(t, "items.json")), 85, 100},
		{"items head", string(formattest.Fixture(t, "items.json")[:300]), 85, 100},
		{"request", string(formattest.Fixture(t, "request.json")), 60, 100},
		{"chat", `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`, 0, 0},
		{"jp events", `[{"timestamp":"t","type":"turn_start"},{"timestamp":"t","type":"chat_request","content":"x"}]`, 0, 0},
		{"codex jsonl", "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\"}}\n{}\n", 0, 0},
		{"anthropic", `{"messages":[{"role":"user","content":"hi"}]}`, 0, 0},
		// Heads that end inside a long string: the instructions before
		// the input, or the first item before its type or role.
		{"cut in instructions", `{"model":"gpt-5","instructions":"You are a coding agent. Follow`, 55, 70},
		{"cut in the first item, keys sorted", `{"input":[{"content":[{"text":"Here is the whole file: package main`, 55, 70},
		{"cut in a system prompt", `{"model":"claude","system":"You are a coding agent. Follow`, 0, 0},
		{"cut in a chat request's messages", `{"messages":[{"content":"Here is the whole file: package main`, 0, 0},
		{"bare array cut in the first item", `[{"content":[{"text":"Here is the whole file: package main`, 0, 0},
		{"whole, no input", `{"model":"gpt-5","instructions":"Be brief."}`, 0, 0},
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
		f.Add(formattest.Fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		tr := formattest.WriteBack(t, Codec{}, src)
		if tr == nil {
			return
		}
		formattest.UnchangedForkIsSource(t, Codec{}, tr, src, format.ForkOptions{})
		Codec{}.Detect("x", src)
	})
}
