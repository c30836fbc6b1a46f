package formattest

import (
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// A ForkCase is one edit of a transcript's view that a codec's fork is
// checked on.
type ForkCase struct {
	Name string
	Edit func(v *transcript.View)
}

// ForkCases are the edits most codecs' fork goldens share: "unchanged",
// "summary" (the messages before keep replaced by summary, as a cut
// does) and "strip" (StripReasoningAndResults).
func ForkCases(keep int, summary string) []ForkCase {
	return []ForkCase{
		{"unchanged", func(v *transcript.View) {}},
		{"summary", func(v *transcript.View) { Summarize(v, keep, summary) }},
		{"strip", StripReasoningAndResults},
	}
}

// Summarize replaces the view's messages before keep with one summary.
func Summarize(v *transcript.View, keep int, summary string) {
	v.Messages = v.Messages[keep:]
	v.Summaries = []transcript.Summary{{Text: summary, Before: 0}}
	v.Cut = true
}

// StripReasoningAndResults drops the view's reasoning and replaces every
// tool result's output with a marker, as the stripping strategies do.
func StripReasoningAndResults(v *transcript.View) {
	for i := range v.Messages {
		var kept []transcript.Part
		for _, p := range v.Messages[i].Parts {
			switch p.Kind {
			case transcript.PartReasoning:
				continue
			case transcript.PartToolResult:
				p.Text, p.Changed = "[output removed]", true
			}
			kept = append(kept, p)
		}
		v.Messages[i].Parts = kept
	}
}

// ForkGoldens forks a view of tr edited by each case, in a subtest of
// the case's name, with opts; compares the fork with the golden file
// testdata/golden(name); checks it re-parses with no bad record; and
// hands the view, the fork and its parse to check, when not nil, for the
// codec's own assertions.
func ForkGoldens(t *testing.T, c format.Codec, tr *transcript.Transcript, cases []ForkCase, opts format.ForkOptions, golden func(name string) string,
	check func(t *testing.T, name string, v *transcript.View, out []byte, back *transcript.Transcript)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			v := transcript.NewView(tr)
			tc.Edit(v)
			out, back := ForkParse(t, c, v, opts)
			Golden(t, golden(tc.Name), out)
			if back.Skipped != 0 {
				t.Fatalf("fork has %d bad records: %v", back.Skipped, back.Problems)
			}
			if check != nil {
				check(t, tc.Name, v, out, back)
			}
		})
	}
}

// ParseAndFork is the body of the fuzz targets of codecs that fork:
// Detect (named name) and WriteBack must take any bytes; a fork of the
// unchanged view of a source in c's format must not fail, and must parse
// back to as many messages. Parse may refuse the fork of a source with
// no conversation (a fork that lost the conversation is no fork).
func ParseAndFork(t *testing.T, c format.Codec, name string, src []byte) {
	t.Helper()
	c.Detect(name, src)
	tr := WriteBack(t, c, src)
	if tr == nil {
		return
	}
	out, err := c.Fork(transcript.NewView(tr), format.ForkOptions{SessionID: "s"})
	if err != nil {
		t.Fatalf("fork of an unchanged view: %v", err)
	}
	back, err := c.Parse(out)
	switch {
	case err != nil && len(tr.Messages) > 0:
		t.Fatalf("fork of %d messages does not parse: %v", len(tr.Messages), err)
	case err == nil && len(back.Messages) != len(tr.Messages):
		t.Fatalf("fork of an unchanged view has %d messages, source %d", len(back.Messages), len(tr.Messages))
	}
}

// DetectsNone fails the test for each file at paths (other formats'
// fixtures) that c's Detect scores above zero.
func DetectsNone(t *testing.T, c format.Codec, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if s := c.Detect(p, Head(t, p)); s != 0 {
			t.Errorf("%s scored %d", p, s)
		}
	}
}
