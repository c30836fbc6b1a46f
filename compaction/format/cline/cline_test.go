package cline

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/anthropic"
	"github.com/compactd/compactd/compaction/format/formattest"
	_ "github.com/compactd/compactd/compaction/format/openaichat"
	_ "github.com/compactd/compactd/compaction/format/openairesponses"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestRoundTripFixtures(t *testing.T) {
	formattest.RoundTripFiles(t, Codec{}, formattest.Fixtures(t, "*.json"), nil)
}

func kinds(m transcript.Message) string {
	var k []string
	for _, p := range m.Parts {
		k = append(k, string(p.Kind))
	}
	return strings.Join(k, " ")
}

func TestParseCline(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, FileName, formattest.Fixture(t, FileName))
	want := []struct {
		origin transcript.Origin
		kinds  string
	}{
		{transcript.OriginHuman, "text attachment"},
		{transcript.OriginAgent, "text tool_call"},
		{transcript.OriginToolResult, "tool_result attachment"},
		{transcript.OriginAgent, "text"},
		{transcript.OriginToolResult, "tool_result attachment"},
		{transcript.OriginAgent, "text"},
		{transcript.OriginHuman, "text"},
	}
	if len(tr.Messages) != len(want) {
		t.Fatalf("%d messages", len(tr.Messages))
	}
	for i, w := range want {
		if m := tr.Messages[i]; m.Origin != w.origin || kinds(m) != w.kinds {
			t.Errorf("message %d: %s [%s], want %s [%s]", i, m.Origin, kinds(m), w.origin, w.kinds)
		}
	}
	res := tr.Messages[4].Parts
	if res[0].ToolName != "write_to_file" || !strings.HasPrefix(res[0].Text, "[write_to_file for 'main.go'] Result:") ||
		res[0].Text+res[1].Text != "[write_to_file for 'main.go'] Result:\nThe content was successfully saved to main.go.\r\n\r\n<environment_details>\n# Current Time\n2025-06-01 10:01\n</environment_details>" {
		t.Errorf("text tool result split wrong: %q | %q", res[0].Text, res[1].Text)
	}
	a := tr.Messages[1]
	if u := a.Usage; u == nil || u.Input != 5200 || u.Output != 60 || u.CacheRead != 4000 {
		t.Errorf("usage %+v", a.Usage)
	}
	if a.Model != "claude-sonnet-4-5" || tr.Meta.Model != "claude-sonnet-4-5" || a.Timestamp.UnixMilli() != 1748772003000 {
		t.Errorf("model %q time %v", a.Model, a.Timestamp)
	}
	if tr.LastUsage() != 5 || len(tr.Turns) != 2 {
		t.Errorf("last usage %d turns %v", tr.LastUsage(), tr.Turns)
	}
}

func TestParseRooCondensed(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "roo-condensed.json", formattest.Fixture(t, "roo-condensed.json"))
	var texts []string
	for _, m := range tr.Messages {
		texts = append(texts, fmt.Sprintf("%s/%s", m.Role, m.Origin))
	}
	want := "user/human assistant/compact-summary user/injected assistant/agent user/human"
	if got := strings.Join(texts, " "); got != want {
		t.Fatalf("visible messages %s\nwant %s", got, want)
	}
	if len(tr.Records) != 8 {
		t.Fatalf("%d records", len(tr.Records))
	}
}

func TestForkGolden(t *testing.T) {
	opts := format.ForkOptions{SessionID: "fork-1", Timestamp: "2025-06-02T00:00:00Z"}
	for _, tc := range []struct {
		name, src string
		edit      func(v *transcript.View)
	}{
		{"unchanged", FileName, func(v *transcript.View) {}},
		{"roo-unchanged", "roo-condensed.json", func(v *transcript.View) {}},
		{"strip-environment", FileName, func(v *transcript.View) {
			for i := range v.Messages {
				var kept []transcript.Part
				for _, p := range v.Messages[i].Parts {
					if p.Kind != transcript.PartAttachment {
						kept = append(kept, p)
					}
				}
				v.Messages[i].Parts = kept
			}
		}},
		{"summary", FileName, func(v *transcript.View) {
			v.Messages = v.Messages[6:]
			v.Summaries = []transcript.Summary{{Text: "Added --verbose to main.go.", Before: 0}}
			v.Cut = true
		}},
		{"roo-summary", "roo-condensed.json", func(v *transcript.View) {
			v.Messages = v.Messages[3:]
			v.Summaries = []transcript.Summary{{Text: "Refactoring the parser.", Before: 0}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := formattest.Fixture(t, tc.src)
			tr := formattest.RoundTrip(t, Codec{}, tc.src, src)
			v := transcript.NewView(tr)
			tc.edit(v)
			out, back := formattest.ForkParse(t, Codec{}, v, opts)
			if strings.HasSuffix(tc.name, "unchanged") && !bytes.Equal(out, src) {
				t.Fatal("fork of an unchanged view differs from the source")
			}
			formattest.Golden(t, "fork-"+tc.name+".golden.json", out)
			acks := []string{anthropic.AckText("assistant"), anthropic.AckText("user")}
			formattest.SameLines(t, formattest.Lines(back.Messages, acks...), formattest.ViewLines(v, acks...))
			if len(v.Summaries) > 0 {
				found := false
				for _, m := range back.Messages {
					found = found || (m.Origin == transcript.OriginSummary && m.Parts[0].Text == v.Summaries[0].Text)
				}
				if !found || !bytes.Contains(out, []byte(`"condenseId": "fork-1"`)) && !bytes.Contains(out, []byte(`"condenseId":"fork-1"`)) {
					t.Error("summary not marked the Roo way (isSummary, condenseId)")
				}
			}
			formattest.Alternates(t, back.Messages)
		})
	}
}

// TestDetectAcrossFormats runs the registry over every fixture of the JSON
// document codecs, and over other agents' corpus files, which must not be
// claimed by any of them.
func TestDetectAcrossFormats(t *testing.T) {
	cases := map[string]transcript.Format{
		"testdata/" + FileName:                                  transcript.FormatCline,
		"testdata/roo-condensed.json":                           transcript.FormatCline,
		"../anthropic/testdata/request.json":                    transcript.FormatAnthropicMessages,
		"../openaichat/testdata/traj.json":                      transcript.FormatOpenAIChat,
		"../openaichat/testdata/bare.json":                      transcript.FormatOpenAIChat,
		"../openairesponses/testdata/items.json":                transcript.FormatOpenAIResponses,
		"../openairesponses/testdata/request.json":              transcript.FormatOpenAIResponses,
		"../anthropic/testdata/fork-summary-merged.golden.json": transcript.FormatAnthropicMessages,
	}
	for path, want := range cases {
		t.Run(path, func(t *testing.T) {
			src := formattest.Read(t, path)
			for _, head := range [][]byte{src, src[:len(src)*2/3]} {
				c, err := format.Detect(path, head)
				if err != nil || c.Format() != want {
					t.Fatalf("detected %v (%v), want %s", c, err, want)
				}
			}
		})
	}
	// Without Cline extras the file name breaks the tie.
	plain := []byte(`[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]`)
	if c, _ := format.Detect("/x/tasks/1/"+FileName, plain); c == nil || c.Format() != transcript.FormatCline {
		t.Errorf("file name did not break the tie: %v", c)
	}

	mine := map[transcript.Format]bool{transcript.FormatCline: true, transcript.FormatAnthropicMessages: true,
		transcript.FormatOpenAIChat: true, transcript.FormatOpenAIResponses: true}
	wantOf := map[string]transcript.Format{"openai-chat": transcript.FormatOpenAIChat, "openai-responses": transcript.FormatOpenAIResponses,
		"anthropic-messages": transcript.FormatAnthropicMessages}
	for _, s := range formattest.Samples(t) {
		if !s.Corpus || !strings.HasSuffix(s.Path, ".json") && !strings.HasSuffix(s.Path, ".jsonl") {
			continue
		}
		head := formattest.Head(t, s.Path)
		for f := range mine {
			c, _ := format.Lookup(f)
			score := c.Detect(s.Path, head)
			if want, ok := wantOf[s.Owner]; ok {
				if f == want && score < 50 {
					t.Errorf("%s: %s scored %d on its own corpus", s.Path, f, score)
				}
				continue
			}
			if score > 0 {
				t.Errorf("%s: %s claims it with score %d", s.Path, f, score)
			}
		}
	}
}

func FuzzParseCline(f *testing.F) {
	for _, name := range []string{FileName, "roo-condensed.json"} {
		f.Add(formattest.Fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		tr := formattest.WriteBack(t, Codec{}, src)
		if tr == nil {
			return
		}
		formattest.UnchangedForkIsSource(t, Codec{}, tr, src, format.ForkOptions{})
		Codec{}.Detect(FileName, src)
	})
}
