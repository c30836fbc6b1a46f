package gauge

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func user(text string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Parts: []transcript.Part{{Kind: transcript.PartText, Text: text}}}
}

func assistant(text string, usage *transcript.Usage) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Model: "claude-sonnet-4-5-20250929", Usage: usage,
		Parts: []transcript.Part{{Kind: transcript.PartText, Text: text}, {Kind: transcript.PartToolCall, ToolName: "Bash", Args: `{"command":"ls"}`}}}
}

func newTranscript(f transcript.Format, msgs ...transcript.Message) *transcript.Transcript {
	return &transcript.Transcript{Format: f, Messages: msgs, Turns: transcript.BuildTurns(msgs), Skipped: 2}
}

func counts(ns ...int) []tokens.Count {
	out := make([]tokens.Count, len(ns))
	for i, n := range ns {
		out[i] = tokens.Count{N: n}
	}
	return out
}

func TestEstimateErrorCancelsUnseenPrefix(t *testing.T) {
	// Every usage point includes 20,000 tokens of system prompt and tool
	// definitions the transcript does not hold. Between consecutive points
	// the API saw 10,000 more tokens each time; we count 9,000 of them:
	// -10 %, not the -40 % an absolute comparison would claim.
	tr := newTranscript(transcript.FormatClaudeCode,
		user("first"),
		assistant("a", &transcript.Usage{Input: 25_000}),
		user("second"),
		assistant("b", &transcript.Usage{Input: 35_000}),
		user("third"),
		assistant("c", &transcript.Usage{Input: 45_000}),
		user("fourth"),
		assistant("d", &transcript.Usage{Input: 55_000}),
	)
	g := Compute(tr, counts(3_000, 2_000, 5_000, 4_000, 5_000, 4_000, 5_000, 4_000), Options{})
	if g.EstimateError == nil || math.Abs(*g.EstimateError-(-0.10)) > 1e-12 {
		t.Fatalf("estimate error %v (%s), want -0.10", deref(g.EstimateError), g.EstimateErrorNote)
	}
	if g.EstimateErrorSpans != 3 {
		t.Fatalf("spans %d, want 3", g.EstimateErrorSpans)
	}
	if g.Tokens != 55_000 {
		t.Fatalf("tokens %d, want the last reported 55000", g.Tokens)
	}
}

// The "−98 %" case: the first usage point comes from a small request (no
// tools loaded yet), the next from the full one. The reported figure
// jumps by 188k with 3k of messages behind it: that is not our counting,
// and one span must not be shown as an error.
func TestEstimateErrorHiddenWhenASpanIsACacheEffect(t *testing.T) {
	tr := newTranscript(transcript.FormatClaudeCode,
		user("first"),
		assistant("a", &transcript.Usage{Input: 3, CacheCreation: 2_000, Output: 100}),
		user("second"),
		assistant("b", &transcript.Usage{Input: 3, CacheCreation: 1_500, CacheRead: 188_600, Output: 300}),
	)
	g := Compute(tr, counts(1_000, 900, 1_500, 1_700), Options{})
	if g.EstimateError != nil {
		t.Fatalf("estimate error %v shown from a single span", *g.EstimateError)
	}
	if g.EstimateErrorSpans != 1 || !strings.Contains(g.EstimateErrorNote, "not enough usage points") {
		t.Fatalf("spans %d note %q", g.EstimateErrorSpans, g.EstimateErrorNote)
	}

	// With more spans the one jump is an outlier the median ignores.
	msgs := []transcript.Message{user("first"), assistant("a", &transcript.Usage{Input: 2_100})}
	cs := []int{1_000, 900}
	reported := 2_100 + 190_000
	msgs = append(msgs, user("jump"), assistant("b", &transcript.Usage{Input: reported}))
	cs = append(cs, 1_500, 1_500)
	for i := 0; i < 5; i++ {
		reported += 4_000
		msgs = append(msgs, user("more"), assistant("c", &transcript.Usage{Input: reported}))
		cs = append(cs, 2_000, 2_200) // 4,200 counted for 4,000 reported: +5 %
	}
	g = Compute(newTranscript(transcript.FormatClaudeCode, msgs...), counts(cs...), Options{})
	if g.EstimateError == nil || math.Abs(*g.EstimateError-0.05) > 1e-9 {
		t.Fatalf("estimate error %v (%s), want +5 %% from the spans that measure counting", deref(g.EstimateError), g.EstimateErrorNote)
	}

	// Spans that disagree among themselves hide it.
	msgs = []transcript.Message{user("first"), assistant("a", &transcript.Usage{Input: 10_000})}
	cs = []int{5_000, 4_000}
	reported = 10_000
	for i, counted := range []int{1_000, 8_000, 2_000, 9_000} {
		reported += 4_000
		msgs = append(msgs, user("more"), assistant("c", &transcript.Usage{Input: reported}))
		cs = append(cs, counted/2, counted-counted/2)
		_ = i
	}
	g = Compute(newTranscript(transcript.FormatClaudeCode, msgs...), counts(cs...), Options{})
	if g.EstimateError != nil || !strings.Contains(g.EstimateErrorNote, "disagree") {
		t.Fatalf("estimate error %v (%s): spans from -75 %% to +125 %% must hide it", deref(g.EstimateError), g.EstimateErrorNote)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestComputeCalibrated(t *testing.T) {
	tr := newTranscript(transcript.FormatClaudeCode,
		user("first"),
		assistant("a", &transcript.Usage{Input: 10, CacheCreation: 1000, CacheRead: 50_000, Output: 990}), // 52,000
		user("second"),
		assistant("b", nil),
	)
	g := Compute(tr, counts(20_000, 30_000, 5_000, 7_000), Options{})
	if g.Source != SourceReported || g.Reported != 52_000 || g.ReportedAt != 1 {
		t.Fatalf("source %s reported %d at %d", g.Source, g.Reported, g.ReportedAt)
	}
	if g.Tokens != 52_000+12_000 || g.Estimated != 12_000 {
		t.Fatalf("tokens %d (estimated %d), want 64000 (12000)", g.Tokens, g.Estimated)
	}
	if g.Model != "claude-sonnet-4-5-20250929" || g.ContextWindow != 200_000 || g.WindowSource != "registry" {
		t.Fatalf("model %q window %d from %s", g.Model, g.ContextWindow, g.WindowSource)
	}
	if math.Abs(g.Ratio-0.32) > 1e-9 || g.Level != LevelOK {
		t.Fatalf("ratio %v level %s", g.Ratio, g.Level)
	}
	// One usage point measures nothing: the comparison with 52,000
	// reported would mostly measure the system prompt.
	if g.EstimateError != nil || g.EstimateErrorNote == "" {
		t.Fatalf("estimate error %v (%q) from one usage point", deref(g.EstimateError), g.EstimateErrorNote)
	}
	if g.Turns != 2 || g.Messages != 4 || g.ToolCalls != 2 || g.SkippedRecords != 2 {
		t.Fatalf("turns %d messages %d tools %d skipped %d", g.Turns, g.Messages, g.ToolCalls, g.SkippedRecords)
	}
	want := []TurnTokens{{0, 0, 2, 50_000, 50_000}, {1, 2, 4, 12_000, 62_000}}
	if len(g.PerTurn) != 2 || g.PerTurn[0] != want[0] || g.PerTurn[1] != want[1] {
		t.Fatalf("per turn %+v", g.PerTurn)
	}
}

func TestComputeEstimateOnly(t *testing.T) {
	tr := newTranscript(transcript.FormatOpenAIChat, user("q"), assistant("a", nil))
	tr.Messages[1].Model = ""
	g := Compute(tr, []tokens.Count{{N: 100}, {N: 50, Approx: true}}, Options{})
	if g.Source != SourceEstimate || g.Tokens != 150 || g.EstimateError != nil || !g.Approx {
		t.Fatalf("%+v", g)
	}
	// No model in the transcript: the format's default.
	if g.Model != "gpt-4o" || g.ContextWindow != 128_000 {
		t.Fatalf("model %q window %d", g.Model, g.ContextWindow)
	}
}

func TestLevels(t *testing.T) {
	tests := []struct {
		name   string
		format transcript.Format
		tokens int
		opts   Options
		want   Level
	}{
		{"ok", transcript.FormatOpenAIChat, 100_000, Options{}, LevelOK},
		{"warn at 75%", transcript.FormatOpenAIChat, 150_000, Options{}, LevelWarn},
		{"critical at 90%", transcript.FormatOpenAIChat, 180_000, Options{}, LevelCritical},
		{"claude code compacts at 83.5%", transcript.FormatClaudeCode, 168_000, Options{}, LevelCritical},
		{"below claude's point", transcript.FormatClaudeCode, 166_000, Options{}, LevelWarn},
		{"auto-compact ignored", transcript.FormatClaudeCode, 168_000, Options{AutoCompact: &AutoCompact{}}, LevelWarn},
		{"custom thresholds", transcript.FormatOpenAIChat, 100_000, Options{Warn: 0.4, Critical: 0.6}, LevelWarn},
		{"custom critical", transcript.FormatOpenAIChat, 130_000, Options{Warn: 0.4, Critical: 0.6}, LevelCritical},
	}
	for _, tt := range tests {
		tr := newTranscript(tt.format, user("x"))
		tt.opts.ContextWindow = 200_000
		g := Compute(tr, counts(tt.tokens), tt.opts)
		if g.Level != tt.want {
			t.Errorf("%s: %d tokens → %s, want %s (warn %d, critical %d)", tt.name, tt.tokens, g.Level, tt.want, g.WarnAt, g.CriticalAt)
		}
	}
}

func TestResolveWindowPrecedence(t *testing.T) {
	codex := newTranscript(transcript.FormatCodex, user("x"))
	codex.Meta = transcript.Meta{Model: "gpt-5-codex", ContextWindow: 272_000}

	if r := Resolve(codex, Options{}); r.ContextWindow != 272_000 || r.WindowSource != "transcript" {
		t.Errorf("transcript window should beat the built-in 400k: %+v", r)
	}
	if r := Resolve(codex, Options{ContextWindow: 50_000}); r.ContextWindow != 50_000 || r.WindowSource != "flag" {
		t.Errorf("--window must win: %+v", r)
	}
	reg := tokens.NewRegistry()
	reg.Set(tokens.Model{Name: "gpt-5", ContextWindow: 300_000})
	if r := Resolve(codex, Options{Registry: reg}); r.ContextWindow != 300_000 || r.WindowSource != "config" {
		t.Errorf("configured override must beat the transcript: %+v", r)
	}
	if r := Resolve(codex, Options{Model: "o3"}); r.Model != "o3" || r.Info.ContextWindow != 200_000 {
		t.Errorf("--model must win: %+v", r)
	}
	unknown := newTranscript(transcript.FormatOpenAIChat, user("x"))
	unknown.Meta.Model = "my-finetune"
	if r := Resolve(unknown, Options{}); r.Known || r.ContextWindow != 128_000 || r.WindowSource != "default" {
		t.Errorf("unknown model: %+v", r)
	}
	// Reported usage past 200k means Claude's 1M window.
	big := newTranscript(transcript.FormatClaudeCode, user("x"), assistant("y", &transcript.Usage{CacheRead: 350_000}))
	if r := Resolve(big, Options{}); r.ContextWindow != 1_000_000 {
		t.Errorf("usage over the window should select the extended window: %+v", r)
	}
}

func TestLiveMatchesCompute(t *testing.T) {
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []transcript.Message{user(strings.Repeat("hello there ", 50))}
	for i := range 40 {
		var u *transcript.Usage
		if i == 25 {
			u = &transcript.Usage{Input: 3, CacheRead: 40_000, Output: 200}
		}
		msgs = append(msgs, assistant(strings.Repeat("work ", 10*i), u), user("more please"))
	}
	tr := newTranscript(transcript.FormatClaudeCode, msgs...)
	all, err := counter.CountMessages(context.Background(), tr.Messages)
	if err != nil {
		t.Fatal(err)
	}
	full := Compute(tr, all, Options{})
	live, err := CountLive(context.Background(), counter, tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if live.Tokens != full.Tokens || live.Level != full.Level || live.Estimated != full.Estimated {
		t.Fatalf("live %d/%s/%d, full %d/%s/%d", live.Tokens, live.Level, live.Estimated, full.Tokens, full.Level, full.Estimated)
	}
	if TailStart(tr) != 52 || counter.Stats().Texts == 0 {
		t.Fatalf("tail starts at %d", TailStart(tr))
	}
	if live.PerTurn != nil || live.EstimateError != nil {
		t.Fatal("live gauge claims full-count figures")
	}
}

func TestComputeWithPartialCounts(t *testing.T) {
	tr := newTranscript(transcript.FormatClaudeCode, user("a"), assistant("b", &transcript.Usage{Input: 500}), user("c"))
	g := Compute(tr, counts(10), Options{})
	if g.EstimateError != nil || g.PerTurn != nil || g.Tokens != 500 {
		t.Fatalf("partial counts: %+v", g)
	}
}

func BenchmarkCompute(b *testing.B) {
	msgs := make([]transcript.Message, 0, 100_000)
	for i := range 50_000 {
		var u *transcript.Usage
		if i == 49_990 {
			u = &transcript.Usage{Input: 100_000}
		}
		msgs = append(msgs, user("q"), assistant("a", u))
	}
	tr := newTranscript(transcript.FormatClaudeCode, msgs...)
	cs := make([]tokens.Count, len(msgs))
	for i := range cs {
		cs[i] = tokens.Count{N: 10}
	}
	for b.Loop() {
		Compute(tr, cs, Options{})
	}
}

// TestUsageProvesTheWindow is issue 23's item 4: the windows real
// sessions ran with, above what compactd assumed. A reported usage above
// the window proves it larger: the model's extended window, else the next
// common size, said in WindowNote; what the user set stays.
func TestUsageProvesTheWindow(t *testing.T) {
	cases := []struct {
		format transcript.Format
		model  string
		meta   int // the window the transcript reports
		used   int
		want   int
		source string
	}{
		// Known since the registry's late-2026 update.
		{transcript.FormatClaudeCode, "mimo-v2.5-pro", 0, 151_899, 1_000_000, "registry"},
		{transcript.FormatClaudeCode, "claude-fable-5", 0, 298_591, 1_000_000, "registry"},
		{transcript.FormatQwenCode, "coder-model", 0, 149_906, 1_000_000, "registry"},
		// Unknown: the default 128k, proved too small.
		{transcript.FormatClaudeCode, "mimo-v3-preview", 0, 151_899, 200_000, "usage"},
		{transcript.FormatOpenAIChat, "my-finetune", 0, 300_000, 400_000, "usage"},
		{transcript.FormatOpenAIChat, "my-finetune", 0, 12_000_000, 12_000_000, "usage"},
		// A Claude name the table does not list: its family's 1M option.
		{transcript.FormatClaudeCode, "claude-zephyr-7", 0, 298_591, 1_000_000, "registry"},
		// The window the agent reported, exceeded.
		{transcript.FormatCodex, "gpt-5-codex", 272_000, 280_000, 400_000, "usage"},
		// Within the window: nothing changes.
		{transcript.FormatClaudeCode, "mimo-v3-preview", 0, 100_000, 128_000, "default"},
	}
	for _, c := range cases {
		tr := newTranscript(c.format, user("x"), assistant("y", &transcript.Usage{Input: c.used}))
		tr.Meta = transcript.Meta{Model: c.model, ContextWindow: c.meta}
		r := Resolve(tr, Options{})
		if r.ContextWindow != c.want || r.WindowSource != c.source {
			t.Errorf("%s with %d used: window %d (%s), want %d (%s)", c.model, c.used, r.ContextWindow, r.WindowSource, c.want, c.source)
		}
		if (r.WindowSource == "usage") != (r.WindowNote != "") {
			t.Errorf("%s: note %q for source %s", c.model, r.WindowNote, r.WindowSource)
		}
		if g := Compute(tr, nil, Options{}); g.ContextWindow != c.want || g.WindowNote != r.WindowNote || g.Ratio > 1 {
			t.Errorf("%s: gauge %d/%d (%.2f), note %q", c.model, g.Tokens, g.ContextWindow, g.Ratio, g.WindowNote)
		}
	}
	tr := newTranscript(transcript.FormatClaudeCode, user("x"), assistant("y", &transcript.Usage{Input: 151_899}))
	tr.Meta.Model = "mimo-v3-preview"
	if r := Resolve(tr, Options{ContextWindow: 128_000}); r.ContextWindow != 128_000 || r.WindowSource != "flag" {
		t.Errorf("--window must stay what the user said: %+v", r)
	}
	if r := Resolve(tr, Options{}); !strings.Contains(r.WindowNote, "151,899") || !strings.Contains(r.WindowNote, "200,000") {
		t.Errorf("the note must give the usage and the window: %q", r.WindowNote)
	}
}
