package aider

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

const fixture = "testdata/webserver.aider.chat.history.md"

// splitChatHistory is aider/utils.py split_chat_history_markdown
// (include_tool=False) applied to a file read with errors="ignore",
// transcribed independently of the codec: Python's decode, the universal
// newlines of a file opened as text ("\r\n" and "\r" read as "\n"),
// splitlines (keepends=True), startswith and strip.
func splitChatHistory(src []byte) []string {
	var decoded []rune
	for len(src) > 0 {
		r, n := utf8.DecodeRune(src)
		src = src[n:]
		if r == utf8.RuneError && n <= 1 {
			continue
		}
		decoded = append(decoded, r)
	}
	text := []rune(strings.ReplaceAll(strings.ReplaceAll(string(decoded), "\r\n", "\n"), "\r", "\n"))
	var lines []string
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		default:
			continue
		}
		lines = append(lines, string(text[start:i+1]))
		start = i + 1
	}
	if start < len(text) {
		lines = append(lines, string(text[start:]))
	}
	var messages []string
	var user, assistant, tool []string
	appendMsg := func(role string, ls []string) {
		s := pyStrip(strings.Join(ls, ""))
		if s != "" {
			messages = append(messages, role+": "+s)
		}
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "# ") {
			continue
		}
		if strings.HasPrefix(line, "> ") {
			appendMsg("assistant", assistant)
			assistant = nil
			appendMsg("user", user)
			user = nil
			tool = append(tool, line[2:])
			continue
		}
		if strings.HasPrefix(line, "#### ") {
			appendMsg("assistant", assistant)
			assistant = nil
			appendMsg("tool", tool)
			tool = nil
			user = append(user, line[5:])
			continue
		}
		appendMsg("user", user)
		user = nil
		appendMsg("tool", tool)
		tool = nil
		assistant = append(assistant, line)
	}
	appendMsg("assistant", assistant)
	appendMsg("user", user)
	return slices.DeleteFunc(messages, func(m string) bool { return strings.HasPrefix(m, "tool: ") })
}

func texts(msgs []transcript.Message) []string {
	var out []string
	for _, m := range msgs {
		var parts []string
		for _, p := range m.Parts {
			parts = append(parts, p.Text)
		}
		out = append(out, string(m.Role)+": "+strings.Join(parts, "\n\n"))
	}
	return out
}

func TestParseMatchesSplitter(t *testing.T) {
	src := formattest.Read(t, fixture)
	tr := formattest.RoundTrip(t, Codec{}, fixture, src)
	got, want := texts(tr.Messages), splitChatHistory(src)
	if !slices.Equal(got, want) {
		t.Fatalf("messages:\n%q\nsplitter:\n%q", got, want)
	}
	if len(got) != 8 {
		t.Fatalf("%d messages: %q", len(got), got)
	}
	// Two "#### " lines make one prompt; "# Fix" inside the reply is
	// skipped; "/run ls" output continuing without "> " is assistant text.
	if got[0] != "user: update my git config username to Henry Romp  \nand email to henry@example.com" {
		t.Fatalf("first prompt %q", got[0])
	}
	if !strings.Contains(got[5], "catch-all.\n\n\nnginx/conf.d") || !strings.Contains(got[5], "Café  bytes") || got[3] != "assistant: nginx/\ndocker-compose.yml" {
		t.Fatalf("replies %q", got)
	}
	if tr.Meta.SessionID != "2025-05-11 09:00:01" || tr.Meta.Model != "gpt-4o" {
		t.Fatalf("meta %+v", tr.Meta)
	}
	for _, r := range tr.Records {
		if r.Type == "tool" && r.Kind != transcript.RecordMeta {
			t.Fatalf("tool record %+v is sent to the model", r)
		}
	}
	if len(tr.Turns) != 4 {
		t.Fatalf("turns %+v", tr.Turns)
	}
}

func TestSplitterEdgeCases(t *testing.T) {
	for _, src := range []string{
		"",
		"#### a\n#### b\n",
		"#### a\n\n#### b\n",
		"#### a\n# aider chat started at x\n#### b\n",
		"text\n# heading\nmore\n> tool  \nafter\n",
		"#### a\rb\n",
		"x\x1cy\u2028z\x85w\n",
		"> only tool  \n",
		"#### \n####  \n",
		"  \n\t\n",
		"#### no newline",
		"####no space\n##### five\n>no space\n",
		"a\r\n> b\r\n#### c\r\n",
		"\xef\xbb\xbf# aider chat started at x\n",
		"#\xff### hidden prompt\n",
		"\x1fx\x1f\n",
	} {
		tr, err := Codec{}.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := texts(tr.Messages), splitChatHistory([]byte(src)); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, splitter %q", src, got, want)
		}
		out, _ := Codec{}.Write(tr)
		if string(out) != src {
			t.Errorf("%q: write gave %q", src, out)
		}
	}
}

func TestAppendInChunks(t *testing.T) {
	src := formattest.Read(t, fixture)
	for seed := range uint64(30) {
		formattest.AppendInChunks(t, Codec{}, src, seed)
	}
}

func TestAppendGrowsLastRecord(t *testing.T) {
	tr, _ := Codec{}.Parse([]byte("#### hi\n\nHello"))
	next, err := Codec{}.Append(tr, []byte(" there\n#### more\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(next.Messages); !slices.Equal(got, []string{"user: hi", "assistant: Hello there", "user: more"}) {
		t.Fatalf("%q", got)
	}
}

func TestForkGolden(t *testing.T) {
	src := formattest.Read(t, fixture)
	tr := formattest.RoundTrip(t, Codec{}, fixture, src)
	for _, tc := range []struct {
		name string
		edit func(v *transcript.View)
	}{
		{"unchanged", func(v *transcript.View) {}},
		{"summary", func(v *transcript.View) {
			v.Messages = v.Messages[3:]
			v.Summaries = []transcript.Summary{{Text: "Earlier: set the git identity.\nRan ls.", Before: 0}}
			v.Cut = true
		}},
		{"edited", func(v *transcript.View) {
			p := &v.Messages[5].Parts[0]
			p.Text, p.Changed = "Edited the catch-all server_name.\n# not a header\n> not a tool line", true
			v.Messages = slices.Delete(v.Messages, 4, 5) // two assistant messages meet
			v.Messages = slices.Delete(v.Messages, 0, 1) // and the log opens with one
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := transcript.NewView(tr)
			tc.edit(v)
			out, _ := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{Timestamp: "2026-05-01T10:00:00Z"})
			formattest.Golden(t, "fork-"+tc.name+".golden.md", out)
			if c, err := format.Detect("fork.md", out); err != nil || c.Format() != transcript.FormatAider {
				t.Fatalf("fork not detected as aider: %v %v", c, err)
			}
			var want []string
			for i, m := range v.Messages {
				for _, s := range v.Summaries {
					if s.Before == i {
						want = append(want, "user: "+s.Text)
					}
				}
				line := texts([]transcript.Message{m})[0]
				// A line that would read as markup gains a leading space.
				if m.Role == transcript.RoleAssistant {
					line = strings.NewReplacer("\n# ", "\n # ", "\n> ", "\n > ").Replace(line)
				}
				want = append(want, line)
			}
			if got := splitChatHistory(out); !slices.Equal(got, want) {
				t.Fatalf("splitter reads the fork as:\n%q\nwant:\n%q", got, want)
			}
			if tc.name == "unchanged" && !bytes.Contains(out, []byte("\xff\xfe")) {
				t.Fatal("undecodable bytes of an untouched message were not kept")
			}
		})
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"x.md", "\n# aider chat started at 2025-01-01 00:00:00\n", 95},
		{"x.md", "old text\n\n# aider chat started at 2025-01-01 00:00:00\n", 90},
		{"/r/" + FileName, "#### hi\n", 60},
		{"notes.md", "#### hi\n", 0},
		{".aider.input.history", "\n# 2025-05-10 15:14:13.842487\n+yes\n", 0},
		{"x.jsonl", `{"type":"user"}`, 0},
	} {
		if got := (Codec{}).Detect(tc.name, []byte(tc.src)); got != tc.want {
			t.Errorf("%s %q: %d, want %d", tc.name, tc.src, got, tc.want)
		}
	}
}

func FuzzParseAider(f *testing.F) {
	f.Add(formattest.Read(f, fixture))
	f.Add([]byte("#### a\r\n> b  \n#\xff### c\n\x85x\u2028"))
	f.Fuzz(func(t *testing.T, src []byte) {
		Codec{}.Detect(FileName, src)
		tr := formattest.WriteBack(t, Codec{}, src)
		if tr == nil {
			return
		}
		if got, want := texts(tr.Messages), splitChatHistory(src); !slices.Equal(got, want) {
			t.Fatalf("got %q, splitter %q", got, want)
		}
		fork, err := Codec{}.Fork(transcript.NewView(tr), format.ForkOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := splitChatHistory(fork), texts(tr.Messages); !slices.Equal(got, want) {
			t.Fatalf("fork reads as %q, want %q", got, want)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	src := bytes.Repeat(formattest.Read(b, fixture), 100)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := (Codec{}).Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// On Windows Aider writes its log as text, every "\n" as "\r\n", and reads
// it back with Python's universal newlines: the messages are those of the
// same log with "\n", appends in any chunks read the same, the log writes
// back byte for byte, and a fork ends its lines as the log does.
func TestLogWrittenOnWindows(t *testing.T) {
	lf := formattest.Read(t, fixture)
	crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
	trLF, err := Codec{}.Parse(lf)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Codec{}.Parse(crlf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(tr.Messages), texts(trLF.Messages); !slices.Equal(got, want) {
		t.Fatalf("the CRLF log reads as\n%q\nthe same log with LF as\n%q", got, want)
	}
	if got, want := texts(tr.Messages), splitChatHistory(crlf); !slices.Equal(got, want) {
		t.Fatalf("got %q, splitter %q", got, want)
	}
	if out, _ := (Codec{}).Write(tr); !bytes.Equal(out, crlf) {
		t.Fatal("the CRLF log does not write back byte for byte")
	}
	for seed := range uint64(10) {
		formattest.AppendInChunks(t, Codec{}, crlf, seed)
	}
	summarize := func(tr *transcript.Transcript) []byte {
		v := transcript.NewView(tr)
		v.Messages = v.Messages[3:]
		v.Summaries = []transcript.Summary{{Text: "Earlier: set the git identity.\nRan ls.", Before: 0}}
		v.Messages[1].Parts[0].Text, v.Messages[1].Parts[0].Changed = "Shortened.\nTwo lines.", true
		v.Cut = true
		out, err := Codec{}.Fork(v, format.ForkOptions{Timestamp: "2026-05-01T10:00:00Z"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fork, forkLF := summarize(tr), summarize(trLF)
	if want := bytes.ReplaceAll(forkLF, []byte("\n"), []byte("\r\n")); !bytes.Equal(fork, want) {
		t.Fatalf("the fork of the CRLF log is not the fork of the LF log with CRLF:\n%q\nwant\n%q", fork, want)
	}
	if got, want := splitChatHistory(fork), splitChatHistory(forkLF); !slices.Equal(got, want) {
		t.Fatalf("Aider reads the CRLF fork as %q, the LF fork as %q", got, want)
	}
}
