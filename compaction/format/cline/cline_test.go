package cline

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
	"github.com/compactd/compactd/compaction/format/anthropic"
	_ "github.com/compactd/compactd/compaction/format/openaichat"
	_ "github.com/compactd/compactd/compaction/format/openairesponses"
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

func TestRoundTripFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			src, _ := os.ReadFile(f)
			roundTrip(t, src)
		})
	}
}

func kinds(m transcript.Message) string {
	var k []string
	for _, p := range m.Parts {
		k = append(k, string(p.Kind))
	}
	return strings.Join(k, " ")
}

func TestParseCline(t *testing.T) {
	tr := roundTrip(t, read(t, FileName))
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
	tr := roundTrip(t, read(t, "roo-condensed.json"))
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

func flatten(msgs []transcript.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Text == anthropic.AckText("assistant") || p.Text == anthropic.AckText("user") {
				continue
			}
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
			src := read(t, tc.src)
			tr := roundTrip(t, src)
			v := transcript.NewView(tr)
			tc.edit(v)
			out, err := Codec{}.Fork(v, opts)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tc.name, "unchanged") && !bytes.Equal(out, src) {
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
			if len(v.Summaries) > 0 {
				found := false
				for _, m := range back.Messages {
					found = found || (m.Origin == transcript.OriginSummary && m.Parts[0].Text == v.Summaries[0].Text)
				}
				if !found || !bytes.Contains(out, []byte(`"condenseId": "fork-1"`)) && !bytes.Contains(out, []byte(`"condenseId":"fork-1"`)) {
					t.Error("summary not marked the Roo way (isSummary, condenseId)")
				}
			}
			prev := transcript.Role("")
			for _, m := range back.Messages {
				if m.Role == prev {
					t.Errorf("two %s messages in a row", m.Role)
				}
				prev = m.Role
			}
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
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
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

	_, file, _, _ := runtime.Caller(0)
	corpus := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "corpus")
	mine := map[transcript.Format]bool{transcript.FormatCline: true, transcript.FormatAnthropicMessages: true,
		transcript.FormatOpenAIChat: true, transcript.FormatOpenAIResponses: true}
	wantOf := map[string]transcript.Format{"openai-chat": transcript.FormatOpenAIChat, "openai-responses": transcript.FormatOpenAIResponses,
		"anthropic-messages": transcript.FormatAnthropicMessages}
	seen := 0
	_ = filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		seen++
		dir := filepath.Base(filepath.Dir(p))
		src, _ := os.ReadFile(p)
		if len(src) > format.DetectBytes {
			src = src[:format.DetectBytes]
		}
		for f := range mine {
			c, _ := format.Lookup(f)
			score := c.Detect(p, src)
			if want, ok := wantOf[dir]; ok {
				if f == want && score < 50 {
					t.Errorf("%s: %s scored %d on its own corpus", p, f, score)
				}
				continue
			}
			if score > 0 {
				t.Errorf("%s: %s claims it with score %d", p, f, score)
			}
		}
		return nil
	})
	if seen == 0 {
		t.Log("shared corpus absent: foreign-format checks skipped")
	}
}

func FuzzParseCline(f *testing.F) {
	for _, name := range []string{FileName, "roo-condensed.json"} {
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
		Codec{}.Detect(FileName, src)
	})
}
