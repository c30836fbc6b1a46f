package gemini

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

const session = "testdata/session-2026-04-29T21-39-5f1c2a9e.jsonl"

func TestRoundTripFixturesAndCorpus(t *testing.T) {
	files := slices.DeleteFunc(formattest.Fixtures(t, "*.json*"), formattest.IsGolden)
	if len(files) < 4 {
		t.Fatalf("fixtures missing: %v", files)
	}
	formattest.RoundTripFiles(t, Codec{}, files, nil)
	formattest.RoundTripFiles(t, Codec{}, formattest.Corpus(t, "gemini-cli", "*.json*"), func(t *testing.T, _ string, _ []byte, tr *transcript.Transcript) {
		if len(tr.Messages) < 3 || tr.Skipped != 0 {
			t.Fatalf("corpus file gave %d messages, %d skipped", len(tr.Messages), tr.Skipped)
		}
	})
}

// flatten renders messages as one line per part, for comparisons.
func flatten(msgs []transcript.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			out = append(out, fmt.Sprintf("%s/%s %s|%s|%s|%s|%v", m.Role, m.Origin, p.Kind, p.Text, p.ToolCallID, p.Args, p.IsError))
		}
	}
	return out
}

func TestParseRecording(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, session, formattest.Read(t, session))
	var ids []string
	for _, m := range tr.Messages {
		ids = append(ids, m.ID)
	}
	// g1 is the re-appended version at its first position; u2 and g5
	// were rewound; g3 is a cut line; i1 and w1 are UI.
	if got, want := strings.Join(ids, " "), "u1 g1 g1#results g2 g2#results g4 u3 g6"; got != want {
		t.Fatalf("messages %q, want %q", got, want)
	}
	g1 := tr.Messages[1]
	if g1.Usage == nil || g1.Usage.Total != 11948 || len(g1.Parts) != 1 || g1.Parts[0].Kind != transcript.PartToolCall {
		t.Fatalf("g1 is not its last version (its call, without its thoughts): %+v", g1)
	}
	// The recorded thoughts are not read as parts: Gemini CLI strips them
	// from every request.
	for _, m := range tr.Messages {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartReasoning {
				t.Fatalf("message %s has a reasoning part %q: Gemini CLI never sends thoughts back", m.ID, p.Text)
			}
		}
	}
	if r := tr.Messages[2].Parts[0]; r.Kind != transcript.PartToolResult || r.Text != "calc.go\ncalc_test.go\ngo.mod" || r.ToolName != "run_shell_command" {
		t.Fatalf("g1 result %+v", r)
	}
	if r := tr.Messages[4].Parts[1]; !r.IsError || r.Text != "File not found: /nope" {
		t.Fatalf("failed call result %+v", r)
	}
	if u := tr.Messages[7].Usage; u.Input != 600 || u.CacheRead != 12000 || u.Output != 20 || u.ContextTokens() != 12620 {
		t.Fatalf("usage %+v", u)
	}
	if tr.Skipped != 1 || tr.Problems[0].Line != 8 {
		t.Fatalf("problems %+v", tr.Problems)
	}
	m := tr.Meta
	if m.SessionID != "5f1c2a9e-3b7d-4c1e-9a2f-0d6b8e4c7a11" || m.Title != "Fix Add in calc.go" || m.Cwd != "/home/ada/calc" || m.Model != "gemini-2.5-pro" {
		t.Fatalf("meta %+v", m)
	}
	kinds := map[transcript.RecordKind]int{}
	for _, r := range tr.Records {
		kinds[r.Kind]++
	}
	if kinds[transcript.RecordUnknown] != 1 || kinds[transcript.RecordMarker] != 1 || kinds[transcript.RecordMeta] != 5 {
		t.Fatalf("record kinds %v", kinds)
	}
	if len(tr.Turns) != 2 || tr.Turns[1].Start != 6 {
		t.Fatalf("turns %+v", tr.Turns)
	}
}

func TestPartialLastLineAndBadBytes(t *testing.T) {
	src := formattest.Read(t, "testdata/partial.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "partial", src)
	if tr.Size != int64(bytes.LastIndexByte(src, '\n')+1) {
		t.Fatalf("size %d consumed the partial line", tr.Size)
	}
	if len(tr.Messages) != 2 || !strings.Contains(tr.Messages[1].Parts[0].Text, "bad") {
		t.Fatalf("messages %v", flatten(tr.Messages))
	}
	// The rest of the line arrives.
	rest := []byte(`ne"}` + "\n")
	next, err := Codec{}.Append(tr, append(src[tr.Size:len(src):len(src)], rest...))
	if err != nil {
		t.Fatal(err)
	}
	full := append(append([]byte(nil), src...), rest...)
	want := formattest.RoundTrip(t, Codec{}, "completed", full)
	if len(next.Messages) != 3 || len(want.Messages) != 3 {
		t.Fatalf("after completion %d / %d messages", len(next.Messages), len(want.Messages))
	}
}

func TestAppendInChunks(t *testing.T) {
	src := formattest.Read(t, session)
	for seed := range uint64(20) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}
}

func TestAppendRefusesDocuments(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "legacy", formattest.Read(t, "testdata/legacy-session.json"))
	if _, err := (Codec{}).Append(tr, []byte("{}\n")); err == nil {
		t.Fatal("append to a whole-file session succeeded")
	}
}

func TestParseLegacyAndCheckpoint(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "legacy", formattest.Read(t, "testdata/legacy-session.json"))
	got := flatten(tr.Messages)
	if len(got) != 8 || got[0] != "user/human text|Run a command|||false" || got[5] != "assistant/agent text|Captured multiline output.|||false" || !strings.HasPrefix(got[1], "assistant/agent tool_call") {
		t.Fatalf("legacy messages:\n%s", strings.Join(got, "\n"))
	}
	if tr.Meta.SessionID != "session-2025-12-16T23-47-b4f17607" || tr.Records[3].Kind != transcript.RecordMeta {
		t.Fatalf("meta %+v, record 3 %v", tr.Meta, tr.Records[3].Kind)
	}

	ck := formattest.RoundTrip(t, Codec{}, "checkpoint", formattest.Read(t, "testdata/checkpoint-calc.json"))
	if len(ck.Messages) != 8 || ck.Messages[4].Origin != transcript.OriginToolResult {
		t.Fatalf("checkpoint: %s", strings.Join(flatten(ck.Messages), "\n"))
	}
	// A thought Part of the history is the model's, never sent back.
	if th := ck.Messages[3].Parts[0]; th.Kind == transcript.PartReasoning {
		t.Fatalf("thought read as a part %+v", th)
	}
	if img := ck.Messages[6].Parts[1]; img.Kind != transcript.PartImage || img.MIME != "image/png" {
		t.Fatalf("image %+v", img)
	}
	bare := []byte(`[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"yo"}]}]`)
	if tr := formattest.RoundTrip(t, Codec{}, "bare", bare); len(tr.Messages) != 2 {
		t.Fatalf("bare checkpoint: %d messages", len(tr.Messages))
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{"not json at all\n", "[1, 2", "[{\"role\":7}]"} {
		if _, err := (Codec{}).Parse([]byte(src)); err == nil {
			t.Errorf("%q parsed", src)
		}
	}
}

// expected is what a fork of v re-parses to: each summary where it was
// placed, then the view's messages.
func expected(v *transcript.View) []string {
	var out []string
	for i, m := range v.Messages {
		for _, s := range v.Summaries {
			if s.Before == i {
				out = append(out, fmt.Sprintf("user/human text|%s|||false", s.Text))
				if m.Role != transcript.RoleAssistant {
					out = append(out, fmt.Sprintf("assistant/agent text|%s|||false", ackText))
				}
			}
		}
		out = append(out, flatten([]transcript.Message{m})...)
	}
	return out
}

func TestForkGolden(t *testing.T) {
	edits := []struct {
		name string
		edit func(v *transcript.View)
	}{
		{"unchanged", func(v *transcript.View) {}},
		{"summary", func(v *transcript.View) {
			v.Messages = v.Messages[len(v.Messages)-3:]
			v.Summaries = []transcript.Summary{{Text: "Earlier: listed files, read calc.go.", Before: 0}}
			v.Cut = true
		}},
		{"strip", func(v *transcript.View) {
			for i := range v.Messages {
				var kept []transcript.Part
				for _, p := range v.Messages[i].Parts {
					switch p.Kind {
					case transcript.PartReasoning, transcript.PartImage:
						continue
					case transcript.PartToolResult:
						p.Text, p.Changed = "[output removed]", true
					}
					kept = append(kept, p)
				}
				v.Messages[i].Parts = kept
			}
		}},
	}
	for _, fx := range []struct{ name, path, ext string }{
		{"session", session, "jsonl"},
		{"legacy", "testdata/legacy-session.json", "json"},
		{"checkpoint", "testdata/checkpoint-calc.json", "json"},
	} {
		src := formattest.Read(t, fx.path)
		tr := formattest.RoundTrip(t, Codec{}, fx.path, src)
		for _, tc := range edits {
			t.Run(fx.name+"-"+tc.name, func(t *testing.T) {
				v := transcript.NewView(tr)
				tc.edit(v)
				out, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "fork-0001", Timestamp: "2026-05-01T10:00:00.000Z"})
				formattest.Golden(t, "fork-"+fx.name+"-"+tc.name+".golden."+fx.ext, out)
				if back.Skipped != 0 {
					t.Fatalf("fork has %d bad records: %v", back.Skipped, back.Problems)
				}
				formattest.SameLines(t, flatten(back.Messages), expected(v))
				if fx.name != "checkpoint" && back.Meta.SessionID != "fork-0001" {
					t.Fatalf("fork session %q", back.Meta.SessionID)
				}
				if fx.name == "checkpoint" && tc.name == "unchanged" && !bytes.Equal(out, src) {
					t.Fatal("fork of an unchanged checkpoint differs from the source")
				}
			})
		}
	}
}

func FuzzParseGemini(f *testing.F) {
	for _, name := range []string{session, resumed, "testdata/partial.jsonl", "testdata/legacy-session.json", "testdata/checkpoint-calc.json"} {
		f.Add(formattest.Read(f, name))
	}
	f.Add([]byte("{\"$rewindTo\":\"x\"}\n{\"id\":\"x\",\"type\":\"user\",\"content\":{\"text\":\"a\"}}\n{\"id\":\"x\",\"type\":\"gemini\",\"toolCalls\":[{\"id\":1}]}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		Codec{}.Detect("session-x.jsonl", src)
		tr := formattest.WriteBack(t, Codec{}, src)
		if tr == nil {
			return
		}
		if _, err := (Codec{}).Fork(transcript.NewView(tr), format.ForkOptions{SessionID: "s"}); err != nil {
			t.Fatalf("fork of an unchanged view: %v", err)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	src := bytes.Repeat(formattest.Read(b, session), 200)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := (Codec{}).Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
