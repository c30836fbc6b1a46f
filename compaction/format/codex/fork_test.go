package codex

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

var forkOpts = format.ForkOptions{SessionID: "11111111-2222-4333-8444-555555555555", Timestamp: "2025-12-01T00:00:00.000Z"}

// reparse forks v, parses the fork and checks it shows the view's messages,
// with want standing in for the view when summaries add messages.
func reparse(t *testing.T, v *transcript.View, want []transcript.Message) ([]byte, *transcript.Transcript) {
	t.Helper()
	out, err := Codec{}.Fork(v, forkOpts)
	if err != nil {
		t.Fatal(err)
	}
	re, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatalf("fork does not parse: %v\n%s", err, out)
	}
	if re.Skipped != 0 {
		t.Errorf("fork has %d malformed lines: %v", re.Skipped, re.Problems)
	}
	if want == nil {
		want = v.Messages
	}
	if i, ok := formattest.SameContent(re.Messages, want); !ok {
		for k := range re.Messages {
			t.Logf("got %d: %s/%s %s", k, re.Messages[k].Role, re.Messages[k].Origin, kinds(re.Messages[k]))
		}
		for k := range want {
			t.Logf("want %d: %s/%s %s", k, want[k].Role, want[k].Origin, kinds(want[k]))
		}
		if i < len(re.Messages) && i < len(want) {
			t.Fatalf("fork reparses to different messages (first difference at %d):\n got %+v\nwant %+v", i, re.Messages[i], want[i])
		}
		t.Fatalf("fork reparses to %d messages, want %d", len(re.Messages), len(want))
	}
	if re.Meta.SessionID != forkOpts.SessionID || re.Meta.ForkedFrom != v.Source.Meta.SessionID {
		t.Errorf("fork meta = %+v, want session %s forked from %s", re.Meta, forkOpts.SessionID, v.Source.Meta.SessionID)
	}
	return out, re
}

func summaryMessage(text string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginSummary, Parts: []transcript.Part{{Kind: transcript.PartText, Text: text}}}
}

func TestForkUnchangedKeepsEveryItemLine(t *testing.T) {
	src := formattest.Fixture(t, "mixed.jsonl")
	tr, err := Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := reparse(t, transcript.NewView(tr), nil)
	lines := map[string]bool{}
	for l := range bytes.Lines(out) {
		lines[string(bytes.TrimSuffix(l, []byte("\n")))] = true
	}
	for i, r := range tr.Records {
		switch {
		case r.Type == typeResponseItem && r.Kind != transcript.RecordMalformed, r.Type == typeTurnContext, r.Type == "world_state":
			if !lines[string(r.Raw)] {
				t.Errorf("record %d (%s) not copied byte for byte", i, r.Type)
			}
		case r.Kind == transcript.RecordMalformed, bytes.Contains(r.Raw, []byte(`"type":"token_count"`)):
			if lines[string(r.Raw)] {
				t.Errorf("record %d (%s) should not be in a fork", i, r.Type)
			}
		}
	}
	if bytes.Contains(out, []byte(`"type":"compacted"`)) {
		t.Errorf("a fork that cut nothing has a compacted record")
	}
}

func TestForkGoldenStrip(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Fixture(t, "mixed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	m := v.Messages
	m[4].Parts = m[4].Parts[:1] // drop the image
	m[7].Parts[0].Text, m[7].Parts[0].Changed = "[output elided by compactd]", true
	m[8].Parts[0].Args, m[8].Parts[0].Changed = "*** Begin Patch\n*** End Patch\n", true
	m[0].Parts[0].Text, m[0].Parts[0].Changed = "You are Codex.", true
	// drop the reasoning item
	v.Messages = append(m[:5:5], m[6:]...)
	out, _ := reparse(t, v, nil)
	items := bytes.Join(slicesOf(out, `"type":"response_item"`), nil)
	if bytes.Contains(items, []byte("gAAAAABpZ3")) || bytes.Contains(items, []byte("image/png")) {
		t.Errorf("dropped reasoning or image still in the fork")
	}
	formattest.Golden(t, "mixed.fork-strip.golden.jsonl", out)
}

func TestForkGoldenCompacted(t *testing.T) {
	src := formattest.Fixture(t, "compacted.jsonl")
	tr, err := Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the system message and the last turn; summarize the rest, keep
	// the replacement reasoning (encrypted) and drop the tool image.
	v := transcript.NewView(tr)
	m := v.Messages
	m[7].Parts = m[7].Parts[:1]
	v.Messages = append([]transcript.Message{m[0], m[3]}, m[5:]...)
	v.Cut = true
	v.Summaries = []transcript.Summary{{Text: "Earlier: the cart was refactored.", Before: 1}}
	want := append([]transcript.Message{m[0], summaryMessage(v.Summaries[0].Text)}, v.Messages[1:]...)
	out, re := reparse(t, v, want)
	if !bytes.Contains(out, []byte(`"encrypted_content":"gAAAAABkept"`)) {
		t.Errorf("kept encrypted reasoning not byte-exact")
	}
	if re.Records[1].Type != typeTurnContext || re.Meta.Model != "gpt-5-codex" {
		t.Errorf("fork lost the turn context: records %v, meta %+v", re.Records[1].Type, re.Meta)
	}
	formattest.Golden(t, "compacted.fork-summary.golden.jsonl", out)
}

func TestForkCutWithoutSummary(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Fixture(t, "mixed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	v.Messages = v.Messages[14:] // the last turn only, system message dropped too
	v.Cut = true
	out, re := reparse(t, v, nil)
	if !bytes.Contains(out, []byte(`"message":"history compacted by compactd","replacement_history":[]`)) {
		t.Errorf("no compacted marker for the cut:\n%s", out)
	}
	if bytes.Contains(out, []byte("base_instructions")) || re.Meta.Model != "gpt-5.1-codex" {
		t.Errorf("dropped system message or turn model wrong: %+v", re.Meta)
	}
	// The user_message event of the dropped first prompt is not copied;
	// the kept prompt's is.
	if bytes.Contains(out, []byte(`"message":"Fix the failing checkout test"`)) || !bytes.Contains(out, []byte(`"message":"Thanks!"`)) {
		t.Errorf("event_msg duplicates not filtered with their items")
	}
}

func TestForkRefusesAlteredEncryptedReasoning(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Fixture(t, "mixed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	v.Messages[5].Parts[0].Text, v.Messages[5].Parts[0].Changed = "rewritten", true
	if _, err := (Codec{}).Fork(v, forkOpts); err == nil || !strings.Contains(err.Error(), "encrypted reasoning") {
		t.Errorf("err = %v, want a refusal to alter encrypted reasoning", err)
	}
}

// A strategy's stand-in text on a tool call (alternation bridge) becomes a
// message item of the call's role.
func TestForkStandInText(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Fixture(t, "mixed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	p := v.Messages[12].Parts[0]
	v.Messages[12].Parts = []transcript.Part{{Kind: transcript.PartText, Text: "[earlier messages removed]", Ref: p.Ref, Changed: true}}
	reparse(t, v, nil)
}

func TestForkGenerated(t *testing.T) {
	src := sessiongen.Codex(sessiongen.Options{Seed: 5, Turns: 6, SessionID: "source-session"})
	tr, err := Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, keepReasoning := range []bool{false, true} {
		v := transcript.NewView(tr)
		turns := v.Turns()
		v.Messages = append(v.Messages[:1:1], v.Messages[turns[2].Start:]...)
		v.Cut = true
		v.Summaries = []transcript.Summary{{Text: "Earlier: the user asked to fix the reservation race.", Before: 1}}
		var kept []transcript.Message
		var encrypted []string
		for _, m := range v.Messages {
			var parts []transcript.Part
			for _, p := range m.Parts {
				if p.Kind == transcript.PartReasoning && !keepReasoning {
					continue
				}
				if p.Kind == transcript.PartToolResult && len(p.Text) > 200 {
					p.Text, p.Changed = "[output elided by compactd]", true
				}
				parts = append(parts, p)
			}
			if len(parts) > 0 {
				m.Parts = parts
				kept = append(kept, m)
			}
		}
		v.Messages = kept
		for _, m := range kept {
			if m.Parts[0].Kind == transcript.PartReasoning {
				raw := tr.Records[m.Records[0]].Raw
				i := bytes.Index(raw, []byte(`"encrypted_content":`))
				encrypted = append(encrypted, string(raw[i:bytes.IndexByte(raw[i+21:], '"')+i+22]))
			}
		}
		want := append([]transcript.Message{kept[0], summaryMessage(v.Summaries[0].Text)}, kept[1:]...)
		out, re := reparse(t, v, want)
		if len(out) >= len(src) {
			t.Errorf("fork is %d bytes, source %d: cutting and stripping did not shrink it", len(out), len(src))
		}
		if bytes.Contains(out, []byte(`"type":"token_count"`)) {
			t.Errorf("token_count copied into the fork")
		}
		for _, e := range encrypted {
			if !bytes.Contains(out, []byte(e)) {
				t.Errorf("encrypted reasoning %.40s… not byte-exact", e)
			}
		}
		if keepReasoning && len(encrypted) == 0 {
			t.Errorf("test kept no reasoning")
		}
		// Every event_msg user_message in the fork repeats a kept prompt.
		prompts := map[string]bool{}
		for _, m := range re.Messages {
			if m.Origin == transcript.OriginHuman {
				prompts[m.Parts[0].Text] = true
			}
		}
		for l := range bytes.Lines(out) {
			var e struct {
				Payload struct{ Type, Message string } `json:"payload"`
			}
			if json.Unmarshal(l, &e) == nil && e.Payload.Type == "user_message" && !prompts[e.Payload.Message] {
				t.Errorf("user_message event of a dropped prompt copied: %.60s", e.Payload.Message)
			}
		}
		// The fork is a rollout Codex can resume: it starts with its session_meta.
		if !regexp.MustCompile(`^\{"timestamp":"[^"]+","type":"session_meta","payload":\{"id":"11111111-2222-4333-8444-555555555555"`).Match(out) {
			t.Errorf("fork does not open with its session_meta: %.200s", out)
		}
		if !bytes.Contains(out, []byte(`"forked_from_id":"source-session"`)) {
			t.Errorf("no forked_from_id")
		}
	}
}

func TestForkRandomSessionID(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Fixture(t, "compacted.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Codec{}.Fork(transcript.NewView(tr), format.ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Codec{}.Fork(transcript.NewView(tr), format.ForkOptions{})
	ra, _ := Codec{}.Parse(a)
	rb, _ := Codec{}.Parse(b)
	uuid4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !uuid4.MatchString(ra.Meta.SessionID) || ra.Meta.SessionID == rb.Meta.SessionID || ra.Meta.ForkedFrom != tr.Meta.SessionID {
		t.Errorf("fork ids %q %q (from %q)", ra.Meta.SessionID, rb.Meta.SessionID, ra.Meta.ForkedFrom)
	}
	// The source's own compaction survives a fork of the whole view.
	if i, ok := formattest.SameContent(ra.Messages, tr.Messages); !ok {
		t.Errorf("unchanged fork of a compacted rollout differs at message %d", i)
	}
}

// slicesOf returns the lines of out that contain substr.
func slicesOf(out []byte, substr string) [][]byte {
	var lines [][]byte
	for l := range bytes.Lines(out) {
		if bytes.Contains(l, []byte(substr)) {
			lines = append(lines, l)
		}
	}
	return lines
}
