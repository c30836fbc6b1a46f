package strategy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// tangentSession is a Claude Code session with two side questions among
// the work on one task:
//
//	turn 0  injected CLAUDE.md (the preamble, protected)
//	turn 1  the first prompt: the task
//	turn 2  a side question (tangent)
//	turn 3  a standing instruction (protected)
//	turn 4  another side question, with a tool call (tangent)
//	turn 5  the current task (keep-last)
func tangentSession() *transcript.Transcript {
	b := newBuilder(transcript.FormatClaudeCode)
	b.injected(claudeMD)
	b.prompt("Fix the reconcile bug in internal/ledger/reconcile.go")
	b.tool("Read", map[string]any{"file_path": "/src/app/internal/ledger/reconcile.go"}, fileBody("Reconcile", 60), false)
	b.say("The loop skips the last pending entry; fixed by iterating to len(pending).")
	b.prompt("By the way, what is the capital of Australia? My token is sk-ant-api03-" + strings.Repeat("x", 40))
	b.say("Canberra, not Sydney. " + strings.Repeat("It was chosen as a compromise. ", 20))
	b.prompt("Always run the tests before you say it is done.")
	b.tool("Bash", map[string]any{"command": "go test ./..."}, "ok  \tgithub.com/x/ledger\t0.02s\n", false)
	b.say("Tests pass.")
	b.prompt("Unrelated: write me a haiku about autumn leaves")
	b.tool("WebSearch", map[string]any{"query": "famous autumn haiku"}, fileBody("Haiku", 30), false)
	b.say("Crimson leaves drifting / the pond holds the autumn sky / a carp breaks the light")
	b.prompt("now document reconcile.go")
	b.tool("Read", map[string]any{"file_path": "/src/app/internal/ledger/reconcile.go"}, fileBody("Reconcile", 60), false)
	b.say("Added doc comments.")
	return b.build()
}

// keywordModel stands for a language model: it answers the tangent prompt
// with the numbers of the turns whose rendered text holds one of its
// keywords, so it sees the prompt exactly as a real model would.
type keywordModel struct {
	keywords []string
	// reply, when set, is returned verbatim instead.
	reply string
	err   error
	calls int
	users []string
}

func (m *keywordModel) Name() string { return "fake-model" }

var turnHeading = regexp.MustCompile(`(?m)^### Turn (\d+)$`)

func (m *keywordModel) Complete(_ context.Context, p summarize.Prompt) (summarize.Completion, error) {
	m.calls++
	m.users = append(m.users, p.User)
	if m.err != nil {
		return summarize.Completion{}, m.err
	}
	if m.reply != "" {
		return summarize.Completion{Text: m.reply, Model: "fake-model-1"}, nil
	}
	heads := turnHeading.FindAllStringSubmatchIndex(p.User, -1)
	var out []int
	for i, h := range heads {
		end := len(p.User)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		section := p.User[h[0]:end]
		n, _ := strconv.Atoi(p.User[h[2]:h[3]])
		for _, k := range m.keywords {
			if strings.Contains(section, k) {
				out = append(out, n)
				break
			}
		}
	}
	reply, _ := json.Marshal(out)
	return summarize.Completion{Text: "```json\n" + string(reply) + "\n```", Model: "fake-model-1"}, nil
}

// everyTurn names every turn of the session, the worst a model can do.
var everyTurn = []string{"### Turn"}

// sideQuestions names the two side questions.
var sideQuestions = []string{"capital of Australia", "haiku"}

func tangentTurns(ts []Tangent) (listed, removed []int) {
	for _, t := range ts {
		listed = append(listed, t.Turn)
		if t.Removed {
			removed = append(removed, t.Turn)
		}
	}
	return listed, removed
}

// sourceTurnsIn lists the source turns of which some message is in v.
func sourceTurnsIn(v *transcript.View) []int {
	x := newSourceIndex(v.Source)
	var out []int
	for i := range v.Messages {
		if t := transcript.TurnOf(v.Source.Turns, x.message(&v.Messages[i])); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func notesContain(rep *Report, s string) bool {
	return slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, s) })
}

func TestClassifyTangents(t *testing.T) {
	src := tangentSession()
	if len(src.Turns) != 6 {
		t.Fatalf("session has %d turns, want 6", len(src.Turns))
	}
	tangents := func(m summarize.Model) TangentClassifier { return &ModelClassifier{Model: m} }
	cases := []struct {
		name  string
		model *keywordModel
		opts  Options
		// listed and removed are source turn numbers.
		listed, removed []int
		keptTurns       []int
		notes           []string
	}{
		{
			name:   "dry listing without confirmation removes nothing",
			model:  &keywordModel{keywords: sideQuestions},
			opts:   Options{},
			listed: []int{2, 4}, removed: nil, keptTurns: []int{0, 1, 2, 3, 4, 5},
			notes: []string{"judged turns 2 and 4 unrelated to the current task", "kept, since removal was not confirmed"},
		},
		{
			name:   "one confirmed turn goes whole",
			model:  &keywordModel{keywords: sideQuestions},
			opts:   Options{ConfirmedTangents: []int{4}},
			listed: []int{2, 4}, removed: []int{4}, keptTurns: []int{0, 1, 2, 3, 5},
			notes: []string{"judged turn 2 unrelated"},
		},
		{
			name:   "all confirmed",
			model:  &keywordModel{keywords: sideQuestions},
			opts:   Options{ConfirmAllTangents: true},
			listed: []int{2, 4}, removed: []int{2, 4}, keptTurns: []int{0, 1, 3, 5},
		},
		{
			name:   "first prompt, protected turns and the current task stay even when named and confirmed",
			model:  &keywordModel{keywords: everyTurn},
			opts:   Options{ConfirmedTangents: []int{0, 1, 2, 3, 4, 5}},
			listed: []int{2, 4}, removed: []int{2, 4}, keptTurns: []int{0, 1, 3, 5},
			notes: []string{"turn 1 too, kept: the first prompt's turn", "turn 3 too, kept: they hold protected content", "turn 0 too, kept: they do not start with a prompt", "turn 5 confirmed for removal but not named"},
		},
		{
			name:   "keep-last turns stay even when named and confirmed",
			model:  &keywordModel{keywords: sideQuestions},
			opts:   Options{KeepLast: new(2), ConfirmAllTangents: true},
			listed: []int{2}, removed: []int{2}, keptTurns: []int{0, 1, 3, 4, 5},
			notes: []string{"named turn 4 too, kept: within the keep-last turns"},
		},
		{
			name:   "a confirmation the model does not repeat removes nothing",
			model:  &keywordModel{keywords: []string{"capital of Australia"}},
			opts:   Options{ConfirmedTangents: []int{4}},
			listed: []int{2}, removed: nil, keptTurns: []int{0, 1, 2, 3, 4, 5},
			notes: []string{"turn 4 confirmed for removal but not named as tangents this time; kept"},
		},
		{
			name:      "model failure is a note",
			model:     &keywordModel{err: errors.New("HTTP 529 overloaded")},
			opts:      Options{ConfirmAllTangents: true},
			keptTurns: []int{0, 1, 2, 3, 4, 5},
			notes:     []string{"classify-tangents skipped: fake-model failed", "HTTP 529 overloaded"},
		},
		{
			name:      "a reply that is not a list is a note",
			model:     &keywordModel{reply: "Turns two and four look unrelated."},
			opts:      Options{ConfirmAllTangents: true},
			keptTurns: []int{0, 1, 2, 3, 4, 5},
			notes:     []string{"classify-tangents skipped", "not a JSON list of turn numbers"},
		},
		{
			name:      "no tangents",
			model:     &keywordModel{reply: "[]"},
			opts:      Options{ConfirmAllTangents: true},
			keptTurns: []int{0, 1, 2, 3, 4, 5},
			notes:     []string{"found no tangent turns"},
		},
		{
			name:      "no model",
			opts:      Options{ConfirmAllTangents: true},
			keptTurns: []int{0, 1, 2, 3, 4, 5},
			notes:     []string{"classify-tangents skipped: no model is configured"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Strategies = []string{StrategyClassifyTangents}
			if tc.model != nil {
				opts.Tangents = tangents(tc.model)
			}
			v, rep := run1(t, src, opts)
			listed, removed := tangentTurns(rep.Tangents)
			if !reflect.DeepEqual(listed, tc.listed) || !reflect.DeepEqual(removed, tc.removed) {
				t.Errorf("tangents listed %v removed %v, want %v and %v", listed, removed, tc.listed, tc.removed)
			}
			if got := sourceTurnsIn(v); !reflect.DeepEqual(got, tc.keptTurns) {
				t.Errorf("turns in the view %v, want %v", got, tc.keptTurns)
			}
			for _, n := range tc.notes {
				if !notesContain(rep, n) {
					t.Errorf("no note says %q; notes %q", n, rep.Notes)
				}
			}
			// A removed turn goes whole, and only removed turns change
			// the view: a kept turn is byte for byte the source's.
			saved := 0
			for _, tg := range rep.Tangents {
				if tg.Removed {
					saved += tg.Tokens
				}
			}
			if got := rep.TokensBefore - rep.TokensAfter; got != saved {
				t.Errorf("saved %d tokens, the removed tangents held %d", got, saved)
			}
			x := newSourceIndex(src)
			for i := range v.Messages {
				si := x.message(&v.Messages[i])
				if !reflect.DeepEqual(v.Messages[i], src.Messages[si]) {
					t.Errorf("message %d (source %d) changed", i, si)
				}
			}
			if tc.model != nil && tc.model.calls != 1 {
				t.Errorf("model called %d times, want once", tc.model.calls)
			}
		})
	}
}

func TestClassifyTangentsReport(t *testing.T) {
	src := tangentSession()
	m := &keywordModel{keywords: sideQuestions}
	counts, err := CountTranscript(t.Context(), src, counter(t))
	if err != nil {
		t.Fatal(err)
	}
	_, rep := run1(t, src, Options{Strategies: []string{StrategyClassifyTangents}, Tangents: &ModelClassifier{Model: m}, ConfirmedTangents: []int{2}})
	if len(rep.Tangents) != 2 {
		t.Fatalf("tangents = %+v", rep.Tangents)
	}
	for _, tg := range rep.Tangents {
		turn := src.Turns[tg.Turn]
		want := 0
		for i := turn.Start; i < turn.End; i++ {
			want += counts.messageTokens(i)
		}
		if tg.Tokens != want {
			t.Errorf("turn %d: %d tokens, the turn holds %d", tg.Turn, tg.Tokens, want)
		}
	}
	p := rep.Tangents[0].Preview
	if !strings.HasPrefix(p, "By the way, what is the capital of Australia?") || strings.Contains(p, "xxxxxxxx") || strings.Contains(p, "\n") || len(p) > maxPreviewBytes+len("…") {
		t.Errorf("preview %q: want the prompt's first line, clipped, its secret redacted", p)
	}
	if got := rep.Tangents[1].Preview; got != "Unrelated: write me a haiku about autumn leaves" {
		t.Errorf("preview %q", got)
	}
	// The secret never reached the model either.
	if strings.Contains(m.users[0], strings.Repeat("x", 40)) {
		t.Errorf("the prompt sent to the model carries the secret")
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"tangents":[{"turn":2,"tokens":`) || !strings.Contains(string(raw), `"removed":true`) {
		t.Errorf("report JSON lacks the tangent list: %s", raw)
	}
}

// messageTokens is message i's count with framing, as the pipeline sums it.
func (c *Counts) messageTokens(i int) int {
	n := 0
	for _, x := range c.parts[i] {
		n += x
	}
	return n + tokens.MessageOverhead
}

// After an earlier step cut history, the turns left are renumbered for
// the model, and its answers map back to the source's turn numbers.
func TestClassifyTangentsAfterCut(t *testing.T) {
	src := tangentSession()
	m := &keywordModel{keywords: []string{"haiku"}}
	v, rep := run1(t, src, Options{
		Strategies: []string{StrategyTurnWindow, StrategyClassifyTangents}, Turns: 3,
		Tangents: &ModelClassifier{Model: m}, ConfirmAllTangents: true,
	})
	listed, removed := tangentTurns(rep.Tangents)
	if fmt.Sprint(listed, removed) != "[4] [4]" {
		t.Fatalf("tangents listed %v removed %v, want source turn 4 both; notes %q", listed, removed, rep.Notes)
	}
	// Turn 2 is there only as the stand-in answering turn 1's kept prompt.
	if got := sourceTurnsIn(v); fmt.Sprint(got) != "[0 1 2 3 5]" {
		t.Errorf("turns in the view %v, want [0 1 2 3 5]", got)
	}
	if strings.Contains(viewText(v), "haiku") {
		t.Errorf("the haiku turn survived")
	}
}

// The pipeline's invariants hold for every format whatever the model names.
func TestClassifyTangentsKeepsPairs(t *testing.T) {
	for _, f := range []transcript.Format{transcript.FormatClaudeCode, transcript.FormatCodex, transcript.FormatGeminiCLI, transcript.FormatOpenAIChat} {
		t.Run(string(f), func(t *testing.T) {
			src := tangentSession()
			src.Format = f
			v, rep := run1(t, src, Options{Strategies: []string{StrategyClassifyTangents}, Tangents: &ModelClassifier{Model: &keywordModel{keywords: everyTurn}}, ConfirmAllTangents: true})
			calls, results := callIDs(v, transcript.PartToolCall), callIDs(v, transcript.PartToolResult)
			if !reflect.DeepEqual(calls, results) {
				t.Errorf("calls %v and results %v differ", calls, results)
			}
			if calls["call_3"] || !calls["call_1"] || !calls["call_2"] || !calls["call_4"] {
				t.Errorf("calls kept %v: want the haiku search gone, the tests and the last read kept", calls)
			}
			if len(rep.Tangents) != 2 {
				t.Errorf("tangents %+v", rep.Tangents)
			}
		})
	}
}

// randomClassifier names random turns, some outside the span.
type randomClassifier struct{ rng *rand.Rand }

func (c randomClassifier) Name() string { return "random" }
func (c randomClassifier) Classify(_ context.Context, msgs []transcript.Message, first int) ([]int, error) {
	n := len(transcript.BuildTurns(msgs))
	var out []int
	for t := first - 2; t < first+n+2; t++ {
		if c.rng.IntN(2) == 0 {
			out = append(out, t)
		}
	}
	return out, nil
}

// TestClassifyTangentsProperties: over generated transcripts in every API
// family, whatever turns a classifier names and whatever is confirmed, the
// result passes Check, removed turns are gone whole, only confirmed turns
// go, and protected messages and the keep-last turns stay.
func TestClassifyTangentsProperties(t *testing.T) {
	formats, n := apiFamilies(), propertyRuns()
	for seed := 0; seed < n; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		f := formats[seed%len(formats)]
		src := randomTranscript(rng, f)
		keepLast := 1 + rng.IntN(2)
		opts := Options{
			Strategies: []string{StrategyClassifyTangents}, KeepLast: new(keepLast),
			Tangents: randomClassifier{rng}, ConfirmAllTangents: rng.IntN(3) == 0,
		}
		if !opts.ConfirmAllTangents {
			for t := range src.Turns {
				if rng.IntN(2) == 0 {
					opts.ConfirmedTangents = append(opts.ConfirmedTangents, t)
				}
			}
		}
		if pipe := rng.IntN(3); pipe == 1 {
			opts.Strategies = []string{StrategyDedupTools, StrategyClassifyTangents, StrategyStripToolResults}
		} else if pipe == 2 {
			opts.Strategies = []string{StrategyTurnWindow, StrategyClassifyTangents}
			opts.Turns = 2 + rng.IntN(3)
		}
		name := fmt.Sprintf("seed %d %s %v", seed, f, opts.Strategies)
		v, rep, err := Run(t.Context(), src, counter(t), opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := Check(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		inView := sourceTurnsIn(v)
		x := newSourceIndex(src)
		present := map[int]bool{}
		for i := range v.Messages {
			present[x.message(&v.Messages[i])] = true
		}
		protected := protectedMessages(src.Messages)
		for i := range src.Messages {
			if protected[i] && !present[i] {
				t.Errorf("%s: protected message %d removed", name, i)
			}
		}
		lastKept := max(len(src.Turns)-keepLast, 0)
		for _, tg := range rep.Tangents {
			if tg.Turn >= lastKept {
				t.Errorf("%s: keep-last turn %d listed as a tangent", name, tg.Turn)
			}
			confirmed := opts.ConfirmAllTangents || slices.Contains(opts.ConfirmedTangents, tg.Turn)
			if tg.Removed != confirmed {
				t.Errorf("%s: turn %d removed %v, confirmed %v", name, tg.Turn, tg.Removed, confirmed)
			}
			if tg.Removed && slices.Contains(inView, tg.Turn) {
				// Only a stand-in keeping roles alternating may stay.
				for i := range v.Messages {
					m := &v.Messages[i]
					if transcript.TurnOf(src.Turns, x.message(m)) == tg.Turn && !isStandIn(m) {
						t.Errorf("%s: removed turn %d left message %d in the view", name, tg.Turn, x.message(m))
					}
				}
			}
		}
		for i := src.Turns[lastKept].Start; i < len(src.Messages); i++ {
			if !present[i] && len(src.Messages[i].Parts) > 0 && opts.Strategies[0] == StrategyClassifyTangents {
				// Only sanitize may touch the tail, for a source that
				// broke the API's rules there already.
				if CheckTranscript(src) == nil {
					t.Errorf("%s: keep-last message %d removed", name, i)
				}
			}
		}
	}
}

func isStandIn(m *transcript.Message) bool {
	return len(m.Parts) == 1 && m.Parts[0].Changed && strings.HasPrefix(m.Parts[0].Text, placeholderPrefix)
}
