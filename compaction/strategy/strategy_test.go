package strategy

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
)

const claudeMD = "Contents of /src/app/CLAUDE.md (project instructions):\nYou must run gofmt on every file.\nNever edit files under vendor/."

// ledgerSession is a small Claude Code session with everything the
// strategies act on: a signed thinking block, a partial read later covered
// by a full read, a failing then passing test run, two todo lists, an image
// and a standing instruction, then a last turn that must stay untouched.
func ledgerSession() *transcript.Transcript {
	b := newBuilder(transcript.FormatClaudeCode)
	b.injected(claudeMD)
	b.prompt("Fix the reconcile bug in internal/ledger/reconcile.go")
	b.think(strings.Repeat("Let me look at the reconcile loop. ", 40), "sig-AAAA")
	b.tool("Read", map[string]any{"file_path": "/src/app/internal/ledger/reconcile.go", "offset": 20, "limit": 20}, fileBody("Partial", 20), false)
	b.tool("Read", map[string]any{"file_path": "/src/app/internal/ledger/reconcile.go"}, fileBody("Reconcile", 400), false)
	b.tool("Grep", map[string]any{"pattern": "Reconcile", "path": "internal"}, fileBody("GrepHit", 60), false)
	b.tool("Bash", map[string]any{"command": "go test ./..."},
		"Exit code 1\n--- FAIL: TestReconcile (0.00s)\n    reconcile_test.go:42: expected 3 entries, got 2\nFAIL\tgithub.com/x/ledger\t0.01s\n"+fileBody("Log", 80), true)
	b.tool("TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "fix off-by-one", "status": "in_progress"}}}, "Todos have been modified successfully", false)
	b.say("I decided to use a map instead of a slice for the pending entries in `ReconcileLedger`.")
	b.prompt("Always run the tests before you say it is done.")
	b.add(transcript.RoleUser, transcript.OriginInjected,
		transcript.Part{Kind: transcript.PartImage, MIME: "image/png", Width: 800, Height: 600, Size: 48211})
	b.tool("Bash", map[string]any{"command": "go test ./..."}, "ok  \tgithub.com/x/ledger\t0.02s\n", false)
	b.tool("TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "write docs for ReconcileLedger", "status": "pending"}}}, "Todos have been modified successfully", false)
	b.say("Done: tests pass.")
	b.prompt("now document reconcile.go")
	b.tool("Read", map[string]any{"file_path": "/src/app/internal/ledger/reconcile.go"}, fileBody("Reconcile", 400), false)
	b.say("Added doc comments.")
	return b.build()
}

// extractiveSummarizer is the real offline summarizer.
func extractiveSummarizer() summarize.Summarizer { return &summarize.Extractive{} }

// failingSummarizer stands for a provider that errors (its HTTP paths are
// tested in daemon/llm against local servers).
type failingSummarizer struct{ err error }

func (f failingSummarizer) Name() string { return "failing" }
func (f failingSummarizer) Summarize(context.Context, summarize.Request) (summarize.Summary, error) {
	return summarize.Summary{}, f.err
}

func TestStrategies(t *testing.T) {
	src := ledgerSession()
	srcTurns := src.Turns
	lastTurn := src.Messages[srcTurns[len(srcTurns)-1].Start:]
	cases := []struct {
		name  string
		opts  Options
		check func(t *testing.T, v *transcript.View, rep *Report)
	}{
		{"strip-reasoning", Options{Strategies: []string{"strip-reasoning"}}, func(t *testing.T, v *transcript.View, rep *Report) {
			for _, m := range v.Messages {
				for _, p := range m.Parts {
					if p.Kind == transcript.PartReasoning {
						t.Errorf("reasoning survived: %.40q", p.Text)
					}
				}
			}
			if rep.Steps[0].EventsRemoved != 1 || rep.Steps[0].TokensSaved < 100 {
				t.Errorf("step = %+v, want 1 event and the thinking's tokens", rep.Steps[0])
			}
		}},
		{"strip-tool-results", Options{Strategies: []string{"strip-tool-results"}}, func(t *testing.T, v *transcript.View, rep *Report) {
			text := viewText(v)
			for _, want := range []string{
				"[compacted: Read /src/app/internal/ledger/reconcile.go lines 1-400,",
				"[compacted: Read /src/app/internal/ledger/reconcile.go lines 20-39,",
				`[compacted: Bash "go test ./..." exit 1,`,
				"reconcile_test.go:42: expected 3 entries, got 2",
				`[compacted: Grep "Reconcile" internal, 60 lines`,
			} {
				if !strings.Contains(text, want) {
					t.Errorf("result lacks %q", want)
				}
			}
			if rep.Steps[0].EventsStripped < 4 || rep.Steps[0].TokensSaved < 5000 {
				t.Errorf("step = %+v", rep.Steps[0])
			}
		}},
		{"dedup-tools", Options{Strategies: []string{"dedup-tools"}}, func(t *testing.T, v *transcript.View, rep *Report) {
			calls := callIDs(v, transcript.PartToolCall)
			results := callIDs(v, transcript.PartToolResult)
			// call_1 (lines 20-39) and call_2 (whole file) are covered by
			// the last turn's whole read; the failed test run stays; the
			// first todo list is superseded by the second.
			for id, want := range map[string]bool{"call_1": false, "call_2": false, "call_3": true, "call_4": true, "call_5": false, "call_6": true, "call_7": true, "call_8": true} {
				if calls[id] != want || results[id] != want {
					t.Errorf("%s kept = %v/%v, want %v", id, calls[id], results[id], want)
				}
			}
			if rep.Steps[0].EventsRemoved != 6 {
				t.Errorf("events removed = %d, want 6 (3 pairs)", rep.Steps[0].EventsRemoved)
			}
		}},
		{"strip-attachments", Options{Strategies: []string{"strip-attachments"}}, func(t *testing.T, v *transcript.View, rep *Report) {
			if !strings.Contains(viewText(v), "[compacted: image image/png 800x600, 48,211 bytes]") {
				t.Errorf("image not replaced by its placeholder")
			}
			if !strings.Contains(viewText(v), "Never edit files under vendor/") {
				t.Errorf("standing instructions stripped")
			}
		}},
		{"prune-tools with a remove hint", Options{Strategies: []string{"prune-tools"}, Hints: map[string]ToolHint{"Gr*": {Response: HintRemove}}}, func(t *testing.T, v *transcript.View, rep *Report) {
			if callIDs(v, transcript.PartToolCall)["call_3"] {
				t.Errorf("Grep pair kept despite a remove hint")
			}
			if rep.Steps[0].EventsRemoved != 2 {
				t.Errorf("events removed = %d, want 2", rep.Steps[0].EventsRemoved)
			}
		}},
		{"turn-window", Options{Strategies: []string{"turn-window"}, Turns: 1}, func(t *testing.T, v *transcript.View, rep *Report) {
			if !v.Cut {
				t.Errorf("Cut not set")
			}
			text := viewText(v)
			for _, want := range []string{"Never edit files under vendor/", "Fix the reconcile bug", "Always run the tests"} {
				if !strings.Contains(text, want) {
					t.Errorf("protected %q was cut", want)
				}
			}
			if strings.Contains(text, "I decided to use a map") {
				t.Errorf("old turn survived the window")
			}
		}},
		{"sliding-window", Options{Strategies: []string{"sliding-window"}, Events: 2}, func(t *testing.T, v *transcript.View, rep *Report) {
			// The cut snaps back to the last turn's start; each protected
			// prompt left before it is answered by a stand-in for what went.
			standIns := 0
			for _, m := range v.Messages {
				if m.Role == transcript.RoleAssistant && len(m.Parts) == 1 && strings.HasPrefix(m.Parts[0].Text, "[compacted: ") {
					standIns++
				}
			}
			if got := len(v.Messages); standIns != 2 || got != 3+standIns+len(lastTurn) {
				t.Errorf("kept %d messages (%d stand-ins), want 3 protected, a stand-in after each of the 2 prompts among them, and %d of the last turn", got, standIns, len(lastTurn))
			}
		}},
		{"token-budget", Options{Strategies: []string{"token-budget"}, Budget: 16000}, func(t *testing.T, v *transcript.View, rep *Report) {
			if rep.TokensAfter > 16000 {
				t.Errorf("tokens after = %d, over the budget", rep.TokensAfter)
			}
			if !strings.Contains(viewText(v), "now document reconcile.go") {
				t.Errorf("last turn lost")
			}
		}},
		{"summarize", Options{Strategies: []string{"summarize"}, BufferTurns: new(1), Summarizer: extractiveSummarizer()}, func(t *testing.T, v *transcript.View, rep *Report) {
			if len(v.Summaries) != 1 || !v.Cut {
				t.Fatalf("summaries = %d, cut = %v", len(v.Summaries), v.Cut)
			}
			s := v.Summaries[0]
			if got := v.Messages[s.Before]; got.Parts[0].Text != "now document reconcile.go" {
				t.Errorf("summary placed before %q, want the last prompt", got.Parts[0].Text)
			}
			if s.FromTurn != 0 || s.ToTurn != 3 {
				t.Errorf("summary covers turns [%d,%d), want [0,3)", s.FromTurn, s.ToTurn)
			}
		}},
		{"summarize failure is a note", Options{Strategies: []string{"summarize"}, BufferTurns: new(1), Summarizer: failingSummarizer{errors.New("503 overloaded")}}, func(t *testing.T, v *transcript.View, rep *Report) {
			if len(v.Summaries) != 0 || rep.TokensAfter != rep.TokensBefore {
				t.Errorf("failed summarizer changed the view")
			}
			if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "503 overloaded") {
				t.Errorf("notes = %q", rep.Notes)
			}
		}},
		{"auto summarizes above the threshold", Options{Window: 8000, Summarizer: extractiveSummarizer(), BufferTurns: new(1), Hints: map[string]ToolHint{"*": {Response: HintKeep, Dedup: new(false)}}}, func(t *testing.T, v *transcript.View, rep *Report) {
			if len(v.Summaries) != 1 {
				t.Errorf("auto did not summarize: steps %+v notes %q", rep.Steps, rep.Notes)
			}
		}},
		{"auto", Options{}, func(t *testing.T, v *transcript.View, rep *Report) {
			// Everything but the last turn is mostly tool output: auto
			// must take at least 80 % of it.
			tail := tailTokens(t, src)
			if before, after := rep.TokensBefore-tail, rep.TokensAfter-tail; after*5 > before {
				t.Errorf("auto kept %d of %d tokens before the last turn", after, before)
			}
			if len(v.Summaries) != 0 {
				t.Errorf("auto summarized without a window")
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, rep := run1(t, src, tc.opts)
			tail := v.Messages[len(v.Messages)-len(lastTurn):]
			if !reflect.DeepEqual(tail, lastTurn) {
				t.Errorf("keep-last turn changed")
			}
			if rep.TokensBefore-rep.TokensAfter != sumSaved(rep) {
				t.Errorf("steps save %d, totals differ by %d", sumSaved(rep), rep.TokensBefore-rep.TokensAfter)
			}
			tc.check(t, v, rep)
		})
	}
	if !reflect.DeepEqual(src, ledgerSession()) {
		t.Errorf("Run modified its source transcript")
	}
}

func tailTokens(t *testing.T, tr *transcript.Transcript) int {
	c, err := CountTranscript(t.Context(), tr, counter(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := tr.Turns[len(tr.Turns)-1].Start; i < len(tr.Messages); i++ {
		n += 4
		for j := range tr.Messages[i].Parts {
			n += c.Part(i, j)
		}
	}
	return n
}

func sumSaved(r *Report) int {
	n := 0
	for _, s := range r.Steps {
		n += s.TokensSaved
	}
	return n
}

func TestValidation(t *testing.T) {
	src := ledgerSession()
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"unknown strategy", Options{Strategies: []string{"foo"}}, `unknown strategy "foo" (valid: auto, classify-tangents, dedup-tools, extractive,`},
		{"bad hint mode", Options{Hints: map[string]ToolHint{"Read": {Response: "drop"}}}, `tool hint "Read": response = "drop" is not a valid mode (valid: keep, remove, strip)`},
		{"bad glob", Options{Hints: map[string]ToolHint{"[Read": {Response: "keep"}}}, `tool hint "[Read" is not a valid glob pattern`},
		{"token-budget without budget", Options{Strategies: []string{"token-budget"}}, "token-budget: needs a budget"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Run(t.Context(), src, counter(t), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestKeepLast(t *testing.T) {
	src := ledgerSession()
	// Keeping every turn protects everything: nothing changes.
	v, rep := run1(t, src, Options{KeepLast: new(10)})
	if rep.TokensAfter != rep.TokensBefore || !reflect.DeepEqual(v.Messages, transcript.NewView(src).Messages) {
		t.Errorf("keep-last 10 changed a 4-turn transcript")
	}
	// Keeping none lets strip-tool-results reach the last turn.
	v, _ = run1(t, src, Options{KeepLast: new(0), Strategies: []string{"strip-tool-results"}})
	last := v.Messages[len(v.Messages)-2]
	if !facts.IsPlaceholder(last.Parts[0].Text) {
		t.Errorf("keep-last 0 left the last read unstripped")
	}
	// A negative count has no meaning: refused, not read as another.
	for _, o := range []Options{{KeepLast: new(-1)}, {BufferTurns: new(-1)}} {
		if _, _, err := Run(t.Context(), src, counter(t), o); err == nil {
			t.Errorf("%+v ran", o)
		}
	}
}
