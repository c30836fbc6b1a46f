package jp

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestRoundTripFixturesAndCorpus(t *testing.T) {
	formattest.RoundTripFiles(t, Codec{}, []string{"testdata/events.json", "testdata/overlays.events.json"}, nil)
	formattest.RoundTripFiles(t, Codec{}, formattest.Corpus(t, "jp", "*events.json"), func(t *testing.T, f string, src []byte, _ *transcript.Transcript) {
		stem := strings.TrimSuffix(strings.TrimSuffix(f, ".events.json"), ".legacy")
		base, _ := os.ReadFile(stem + ".base_config.json")
		meta, _ := os.ReadFile(stem + ".metadata.json")
		tr, err := Codec{}.ParseWithSiblings(src, base, meta)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Skipped != 0 || len(tr.Messages) < 3 || tr.Meta.Title == "" || tr.Meta.Model == "" {
			t.Fatalf("%d messages, %d skipped, meta %+v", len(tr.Messages), tr.Skipped, tr.Meta)
		}
		if tr.Messages[0].Role != transcript.RoleSystem {
			t.Fatalf("no system prompt: %+v", tr.Messages[0])
		}
		for _, m := range tr.Messages {
			for _, p := range m.Parts {
				if p.Kind == transcript.PartToolCall && strings.Contains(p.Args, "==") {
					t.Fatalf("arguments still encoded: %s", p.Args)
				}
			}
		}
	})
}

func TestParseEvents(t *testing.T) {
	src := formattest.Read(t, "testdata/events.json")
	tr, err := Codec{}.ParseWithSiblings(src, formattest.Read(t, "testdata/base_config.json"), formattest.Read(t, "testdata/metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.Title != "Missing date in version string" || tr.Meta.Model != "claude-opus-4-6" {
		t.Fatalf("meta %+v (config_delta's model must win over base_config)", tr.Meta)
	}
	if tr.Skipped != 1 || tr.Records[12].Kind != transcript.RecordMalformed || tr.Records[11].Kind != transcript.RecordUnknown {
		t.Fatalf("skipped %d, problems %v", tr.Skipped, tr.Problems)
	}
	sys := tr.Messages[0]
	if sys.Role != transcript.RoleSystem || sys.Parts[0].Text != "You are Jean-Pierre.\n\nBe concise." {
		t.Fatalf("system %+v", sys)
	}
	asst := tr.Messages[2]
	if asst.Role != transcript.RoleAssistant || len(asst.Parts) != 3 || !slices.Equal(asst.Records, []int{3, 4, 5}) {
		t.Fatalf("assistant run %+v", asst)
	}
	if r := asst.Parts[0]; r.Kind != transcript.PartReasoning || !r.Signed || r.Opaque == 0 {
		t.Fatalf("reasoning %+v", r)
	}
	// Encoded strings decode; plain ones that merely look like base64
	// ("abcd", "test": their bytes are not UTF-8) stay as they are.
	if got, want := asst.Parts[1].Args, `{"path":"crates/jp_cli/build.rs","start":"1","raw":"abcd","flags":["x","test"],"n":3}`; got != want {
		t.Fatalf("args %s, want %s", got, want)
	}
	res := tr.Messages[3]
	if res.Origin != transcript.OriginToolResult || len(res.Parts) != 2 || !res.Parts[1].IsError || res.Parts[1].Text != "fatal: bad revision" || res.Parts[0].ToolName != "fs_read_file" {
		t.Fatalf("results %+v", res)
	}
	if len(tr.Turns) != 4 || tr.Messages[tr.Turns[1].Start].Parts[0].Text != "Why does `jp --version` lack the date?" {
		t.Fatalf("turns %+v", tr.Turns)
	}
}

func TestOverlaysProject(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "overlays", formattest.Read(t, "testdata/overlays.events.json"))
	got := flatten(tr.Messages)
	want := []string{
		"user text|[Summary of previous conversation]|||",
		"assistant text|The user asked why the date was missing; build.rs omits it.|||",
		"user text|Add the date back.|||",
		"assistant tool_call||toolu_04|fs_modify_file|{}",
		"user tool_result|[compacted] fs_modify_file: success|toolu_04|fs_modify_file|",
		"assistant text|Done: the version now ends with the build date.|||",
		"user text|Thanks!|||",
		"assistant text|You're welcome.|||",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("projection:\n%s", strings.Join(got, "\n"))
	}
	if tr.Messages[1].Origin != transcript.OriginSummary {
		t.Fatalf("summary origin %s", tr.Messages[1].Origin)
	}
}

func TestForkGolden(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		native    bool
		edit      func(v *transcript.View)
	}{
		{"unchanged", "events.json", true, func(v *transcript.View) {}},
		{"summary", "events.json", true, func(v *transcript.View) {
			// Drop turn 0 (the first exchange) behind a summary.
			v.Messages = append(v.Messages[:1:1], v.Messages[5:]...)
			v.Summaries = []transcript.Summary{{Text: "Earlier: build.rs omits the date.", Before: 1}}
			v.Cut = true
		}},
		{"strip-reasoning-and-tools", "events.json", true, func(v *transcript.View) {
			for i := range v.Messages {
				v.Messages[i].Parts = slices.DeleteFunc(v.Messages[i].Parts, func(p transcript.Part) bool {
					return p.Kind == transcript.PartReasoning || p.Ref.Record >= 13 && (p.Kind == transcript.PartToolCall || p.Kind == transcript.PartToolResult)
				})
			}
			v.Messages = slices.DeleteFunc(v.Messages, func(m transcript.Message) bool { return len(m.Parts) == 0 })
		}},
		{"edited-result", "events.json", false, func(v *transcript.View) {
			for i := range v.Messages {
				for j := range v.Messages[i].Parts {
					if p := &v.Messages[i].Parts[j]; p.Kind == transcript.PartToolResult {
						p.Text, p.Changed = "[output removed]", true
					}
				}
			}
		}},
		{"overlays-edited", "overlays.events.json", false, func(v *transcript.View) {
			v.Messages[len(v.Messages)-1].Parts[0].Text = "Any time."
			v.Messages[len(v.Messages)-1].Parts[0].Changed = true
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := formattest.Fixture(t, tc.src)
			tr := formattest.RoundTrip(t, Codec{}, tc.src, src)
			v := transcript.NewView(tr)
			tc.edit(v)
			out, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{Timestamp: "2026-05-01T10:00:00Z"})
			formattest.Golden(t, "fork-"+tc.name+".golden.json", out)
			if tc.native != bytes.HasPrefix(out, src[:len(src)-2]) {
				t.Fatalf("native overlay = %v, want %v", !tc.native, tc.native)
			}
			formattest.SameLines(t, flatten(back.Messages), expected(v))
			if tc.name == "edited-result" && !bytes.Contains(out, []byte(encodeString("[output removed]"))) {
				t.Fatal("rewritten tool content is not base64-encoded")
			}
		})
	}
}

func TestBase64Rule(t *testing.T) {
	for in, want := range map[string]string{
		"dGVzdA==":     "test",
		"test":         "test", // valid base64, but its bytes are not UTF-8
		"abcd":         "abcd",
		"":             "",
		"YQ":           "YQ", // unpadded: not what jp writes
		"4pyTIOKckw==": "✓ ✓",
		"not base64!":  "not base64!",
	} {
		if got := decodeString(in); got != want {
			t.Errorf("decode(%q) = %q, want %q", in, got, want)
		}
	}
	for _, s := range []string{"test", "abcd", "", "ünï", "a\x00b"} {
		if got := decodeString(encodeString(s)); got != s {
			t.Errorf("round trip of %q gave %q", s, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{"", "{\"events\":[]}", "[{\"type\":\"turn_start\"", "# md"} {
		if _, err := (Codec{}).Parse([]byte(src)); err == nil {
			t.Errorf("%q parsed", src)
		}
	}
	if _, err := (Codec{}).ParseWithSiblings([]byte("[]"), []byte("{"), []byte("nope")); err != nil {
		t.Errorf("bad sibling files must not fail the parse: %v", err)
	}
}

func FuzzParseJP(f *testing.F) {
	for _, name := range []string{"testdata/events.json", "testdata/overlays.events.json"} {
		f.Add(formattest.Read(f, name))
	}
	f.Add([]byte(`[{"timestamp":"2026-01-01 00:00:00.0","type":"compaction","from_turn":0,"to_turn":99,"summary":{"summary":"s"}},{"type":"tool_call_response","content":{"a":"YQ=="}}]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		Codec{}.Detect(EventsFile, src)
		tr := formattest.WriteBack(t, Codec{}, src)
		if tr == nil {
			return
		}
		if _, err := (Codec{}).Fork(transcript.NewView(tr), format.ForkOptions{}); err != nil {
			t.Fatalf("fork of an unchanged view: %v", err)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	src := formattest.Read(b, "testdata/events.json")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := (Codec{}).Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
