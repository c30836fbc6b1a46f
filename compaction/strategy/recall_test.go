package strategy

import (
	"context"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/transcript"
)

// recallSession is a session whose compaction writes every kind of
// recallable stand-in: stripped tool results, a stripped bulky argument
// and a summary.
func recallSession() *transcript.Transcript {
	b := newBuilder(transcript.FormatClaudeCode)
	for turn := 0; turn < 8; turn++ {
		b.prompt("Look at part " + strings.Repeat("x", turn+1) + " of the ledger.")
		b.tool("Read", map[string]any{"file_path": "/src/app/ledger.go"},
			strings.Repeat("     1\tfunc reconcile(a, b Ledger) error {\t\"é\" <tag> & 漢字\n", 40+turn), false)
		b.tool("Write", map[string]any{"file_path": "/src/app/out.txt", "content": strings.Repeat("line of output\n", 30+turn)}, "File written.", false)
		b.say("Done with part " + strings.Repeat("x", turn+1) + ".")
	}
	return b.build()
}

func TestRecallHandlesNameTheExactOriginal(t *testing.T) {
	src := recallSession()
	book := recall.NewBook(nil)
	view, _, err := Run(context.Background(), src, counter(t), Options{
		Strategies: []string{StrategyStripToolResults, StrategySummarize},
		Hints:      map[string]ToolHint{"Write": {Request: HintStrip}},
		Summarizer: extractiveSummarizer(), BufferTurns: new(3), KeepLast: new(1), Window: 4000,
		Recall: book.Handle,
	})
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]string{}
	for _, e := range book.Entries() {
		if !recall.Valid(e.Handle) || recall.Sum(e.Content) != e.Sum {
			t.Fatalf("entry %q does not name its content", e.Handle)
		}
		named[e.Handle] = e.Content
	}
	originals := map[string]bool{}
	for _, m := range src.Messages {
		for _, p := range m.Parts {
			originals[p.Text] = true
			originals[p.Args] = true
			if a := p.Args; strings.Contains(a, `"content"`) {
				originals[strings.Repeat("line of output\n", strings.Count(a, "line of output"))] = true
			}
		}
	}
	kinds := map[transcript.PartKind]int{}
	for _, m := range view.Messages {
		for _, p := range m.Parts {
			if !p.Changed {
				continue
			}
			text := p.Text
			if p.Kind == transcript.PartToolCall {
				text = p.Args
			}
			hs := recall.Find(text)
			if len(hs) != 1 {
				t.Fatalf("stand-in %q names %d handles, want 1", text, len(hs))
			}
			content, ok := named[hs[0]]
			if !ok {
				t.Fatalf("stand-in %q names %s, which the book does not hold", text, hs[0])
			}
			// A part's stand-in names the part's original; the stand-in of
			// cut turns names the turns, rendered whole.
			if !originals[content] && !(strings.Contains(text, "turns removed") && strings.Contains(content, src.Messages[2].Parts[0].Text)) {
				t.Fatalf("%s (in %q) names %d bytes which no part of the source held", hs[0], text, len(content))
			}
			kinds[p.Kind]++
		}
	}
	// The buffer turns keep their messages, stripped; the rest is cut.
	if kinds[transcript.PartToolResult] < 1 || kinds[transcript.PartToolCall] < 1 || kinds[transcript.PartText] < 1 {
		t.Fatalf("stand-ins written, by kind: %v; want stripped results and arguments and a stand-in for the cut", kinds)
	}
	if len(view.Summaries) != 1 {
		t.Fatalf("want one summary, got %d", len(view.Summaries))
	}
	s := view.Summaries[0]
	hs := recall.Find(s.Text)
	if len(hs) == 0 || !strings.Contains(s.Text, "call the recall tool") {
		t.Fatalf("the summary does not tell the model how to recall what it replaced:\n%s", s.Text)
	}
	span := named[hs[len(hs)-1]]
	start, end := src.Turns[s.FromTurn].Start, src.Turns[s.ToTurn].Start
	if want := recall.Messages(src.Messages[start:end]); span != want {
		t.Fatalf("the summary's handle names %d bytes, not the %d of the turns it replaced", len(span), len(want))
	}
	// The whole original is in the span, byte for byte.
	if !strings.Contains(span, src.Messages[start+2].Parts[0].Text) {
		t.Fatal("the summary's recall lacks a tool output of the turns it replaced")
	}
}

func TestRecallHandlesAreStable(t *testing.T) {
	run := func() []string {
		book := recall.NewBook(nil)
		view, _, err := Run(context.Background(), recallSession(), counter(t), Options{
			Strategies: []string{StrategyStripToolResults}, Recall: book.Handle,
		})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range view.Messages {
			for _, p := range m.Parts {
				out = append(out, recall.Find(p.Text)...)
			}
		}
		return out
	}
	a, b := run(), run()
	if len(a) == 0 || strings.Join(a, ",") != strings.Join(b, ",") {
		t.Fatalf("two runs named different handles: %v vs %v", a, b)
	}
}

func TestNoRecallWritesNoHandles(t *testing.T) {
	view, _, err := Run(context.Background(), recallSession(), counter(t), Options{Strategies: []string{StrategyStripToolResults}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range view.Messages {
		for _, p := range m.Parts {
			if strings.Contains(p.Text, "recall r") {
				t.Fatalf("a handle was written without Options.Recall: %q", p.Text)
			}
		}
	}
}
