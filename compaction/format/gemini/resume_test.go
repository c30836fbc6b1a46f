package gemini

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// resumed is a Gemini CLI 0.61 recording resumed once: on --resume the CLI
// writes the history it loaded back as {"$set":{"messages":[…]}}, in which
// a model message holds its calls in its content and, in each of its
// toolCalls' results, the responses of the whole call group, followed by
// a "<id>_response" user message; its loader replaces everything before
// with that array. What the CLI then sends holds each tool response four
// times (two toolCalls results, the _response message, the recorded
// response message), and so must compactd's reading of the file.
const resumed = "testdata/v0.61-resumed-session.jsonl"

func TestResumeSnapshotIsTheConversation(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, resumed, formattest.Read(t, resumed))
	var ids []string
	for _, m := range tr.Messages {
		ids = append(ids, m.ID)
	}
	want := "ctx-00000000000000000000000000000001 u1-5f0e g1-7a3c g1-7a3c#results g1-7a3c_response u1r-2b9d g2-c41e u2-90af g3-1d77"
	if got := strings.Join(ids, " "); got != want {
		t.Fatalf("messages %q,\nwant %q (the $set's messages, then the lines after it)", got, want)
	}
	// The model message's calls come from its content only, as Gemini
	// CLI sends them, not once more from its toolCalls.
	var calls int
	for _, p := range tr.Messages[2].Parts {
		if p.Kind == transcript.PartToolCall {
			calls++
		}
	}
	if calls != 2 {
		t.Fatalf("g1 has %d tool calls, want the 2 of its content: %+v", calls, tr.Messages[2].Parts)
	}
	copies := 0
	for _, m := range tr.Messages {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolResult {
				copies += strings.Count(p.Text, "Total sums the cart's lines")
			}
		}
	}
	if copies != 4 {
		t.Fatalf("the read result is in the conversation %d times, want the 4 Gemini CLI sends", copies)
	}
	// The messages before the resume are read from the snapshot: none
	// comes from a line before it.
	snapshot := -1
	for i, r := range tr.Records {
		if r.Type == "$set" && strings.Contains(string(r.Raw), `"messages"`) {
			snapshot = i
		}
	}
	for _, m := range tr.Messages[:7] {
		if m.Records[0] != snapshot {
			t.Fatalf("message %s comes from record %d, not the resume's snapshot (record %d)", m.ID, m.Records[0], snapshot)
		}
	}
}

// A fork's gauge is its own count plus the overhead measured on its
// source: what the source's last usage holds beyond our count of its
// messages. Counted without the snapshot's copies, the source's messages
// came out short and the overhead took the copies in, so every fork
// gauged the source's copies again (a Gemini fork reported at 1,150
// tokens gauged 12,605 where the resumed CLI sent 10,034).
func TestResumeSnapshotCountsWhatGeminiSends(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Read(t, resumed))
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New(tokens.O200kBase, tokens.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	read := counter.Text("package shop\n\n// Total sums the cart's lines in cents.\nfunc Total(lines []Line) int {\n\tsum := 0\n\tfor _, l := range lines {\n\t\tsum += l.Qty * l.Cents\n\t}\n\treturn sum\n}\n")
	inside := 0
	for i := range tr.Messages {
		inside += counter.Message(&tr.Messages[i])
	}
	if inside < 4*read {
		t.Fatalf("the conversation counts %d tokens, less than the 4 copies of the read result Gemini CLI sends (%d tokens each)", inside, read)
	}
}

func TestForkOfResumedSession(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, resumed, formattest.Read(t, resumed))
	opts := format.ForkOptions{SessionID: "fork-0002", Timestamp: "2026-06-02T10:00:00.000Z"}
	t.Run("unchanged", func(t *testing.T) {
		v := transcript.NewView(tr)
		out, back := formattest.ForkParse(t, Codec{}, v, opts)
		formattest.SameLines(t, flatten(back.Messages), expected(v))
		// Each message of the snapshot is a line of its own: a fork holds
		// no $set of the source's history.
		if strings.Contains(string(out), `"$set"`) || !strings.Contains(string(out), `{"id":"g1-7a3c_response"`) {
			t.Fatalf("the fork does not write the snapshot's messages as lines:\n%s", out)
		}
	})
	t.Run("results replaced", func(t *testing.T) {
		v := transcript.NewView(tr)
		for i := range v.Messages {
			for k := range v.Messages[i].Parts {
				if p := &v.Messages[i].Parts[k]; p.Kind == transcript.PartToolResult {
					p.Text, p.Changed = "[output removed]", true
				}
			}
		}
		out, back := formattest.ForkParse(t, Codec{}, v, opts)
		formattest.SameLines(t, flatten(back.Messages), expected(v))
		if strings.Contains(string(out), "Total sums the cart's lines") {
			t.Fatalf("a replaced result survives in the fork:\n%s", out)
		}
	})
	t.Run("snapshot cut", func(t *testing.T) {
		v := transcript.NewView(tr)
		v.Messages = v.Messages[len(v.Messages)-2:]
		v.Summaries = []transcript.Summary{{Text: "Earlier: read cart.go; Total sums the lines.", Before: 0}}
		v.Cut = true
		_, back := formattest.ForkParse(t, Codec{}, v, opts)
		formattest.SameLines(t, flatten(back.Messages), expected(v))
	})
}
