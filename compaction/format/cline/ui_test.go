package cline

import (
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/transcript"
)

const uiLog = "testdata/ui-only/ui_messages.json"

// TestUIMessagesAlone is issue 23's item 6: a task folder with only
// ui_messages.json was not read at all. It reads as the conversation the
// log shows, gauged on its last api_req_started.
func TestUIMessagesAlone(t *testing.T) {
	src := formattest.Read(t, uiLog)
	c, err := format.Detect(uiLog, src)
	if err != nil || c.Format() != transcript.FormatClineUI {
		t.Fatalf("detected as %v (%v), want %s", c, err, transcript.FormatClineUI)
	}
	tr := formattest.RoundTrip(t, UICodec{}, uiLog, src)
	want := []string{
		"user text|The CSV parser drops the last row when the file has no trailing newline. Find and fix it.||",
		"assistant reasoning|The user says the last row is lost. I should read the parser first.||",
		"assistant text|I'll start by reading the parser.||",
	}
	got := formattest.Lines(tr.Messages)
	formattest.SameLines(t, got[:3], want)
	if len(tr.Turns) != 2 || tr.Meta.Model != "claude-sonnet-4-6" || tr.Skipped != 0 {
		t.Fatalf("turns %d, model %q, skipped %d", len(tr.Turns), tr.Meta.Model, tr.Skipped)
	}
	var calls, results int
	for _, m := range tr.Messages {
		for _, p := range m.Parts {
			switch p.Kind {
			case transcript.PartToolCall:
				calls++
			case transcript.PartToolResult:
				results++
				if !strings.Contains(p.Text, "6 passed") || p.ToolName != "" && p.ToolName != "command" {
					t.Errorf("command output %+v", p)
				}
			}
		}
	}
	if calls != 4 || results != 1 {
		t.Errorf("%d tool calls, %d results; want 4 and the command's output", calls, results)
	}
	g := gauge.Compute(tr, nil, gauge.Options{})
	if g.Reported != 20824 || g.Source != gauge.SourceReported || g.Model != "claude-sonnet-4-6" {
		t.Errorf("gauge %+v: want the last request's 20,824 tokens (tokensIn+tokensOut+cacheWrites+cacheReads)", g)
	}
	if _, err := (UICodec{}).Fork(transcript.NewView(tr), format.ForkOptions{}); err == nil || !strings.Contains(err.Error(), "api_conversation_history.json") {
		t.Errorf("fork of the display log: %v", err)
	}
}

func TestUIDetect(t *testing.T) {
	api := formattest.Read(t, "testdata/api_conversation_history.json")
	if got := (UICodec{}).Detect(FileName, api); got != 0 {
		t.Errorf("UICodec.Detect(api history) = %d", got)
	}
	if got := (Codec{}).Detect(UIFileName, formattest.Read(t, uiLog)); got != 0 {
		t.Errorf("Codec.Detect(ui log) = %d", got)
	}
}

func FuzzParseClineUI(f *testing.F) {
	f.Add(formattest.Read(f, uiLog))
	f.Add([]byte(`[{"ts":1,"type":"say","say":"api_req_started","text":"{\"tokensIn\":-1}"}]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		formattest.WriteBack(t, UICodec{}, src)
	})
}
