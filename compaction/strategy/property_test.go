package strategy

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

// randomTranscript generates a messy conversation: tool pairs (some
// parallel), signed and encrypted reasoning, orphan results, interrupted
// calls, images, repeated reads.
func randomTranscript(rng *rand.Rand, f transcript.Format) *transcript.Transcript {
	b := newBuilder(f)
	if rng.IntN(2) == 0 {
		b.injected(claudeMD)
	}
	files := []string{"a.go", "b.go", "internal/c.go"}
	turns := 1 + rng.IntN(7)
	for t := 0; t < turns; t++ {
		b.prompt(fmt.Sprintf("prompt %d: please fix %s", t, files[rng.IntN(len(files))]))
		steps := rng.IntN(6)
		for s := 0; s < steps; s++ {
			switch rng.IntN(8) {
			case 0:
				sig := ""
				if rng.IntN(2) == 0 {
					sig = "sig"
				}
				b.think(strings.Repeat("thinking ", 5+rng.IntN(50)), sig)
			case 1: // reasoning item of its own, then a call (OpenAI Responses layout)
				b.add(transcript.RoleAssistant, transcript.OriginAgent,
					transcript.Part{Kind: transcript.PartOpaque, Opaque: 300, Signed: true})
				b.tool("shell", map[string]any{"command": []string{"bash", "-lc", fmt.Sprintf("sed -n '%d,%dp' %s", 1+rng.IntN(50), 60+rng.IntN(100), files[rng.IntN(3)])}}, fileBody("X", 5+rng.IntN(40)), rng.IntN(5) == 0)
			case 2: // parallel calls answered in one message
				b.ids += 2
				id1, id2 := fmt.Sprintf("call_%d", b.ids-1), fmt.Sprintf("call_%d", b.ids)
				b.add(transcript.RoleAssistant, transcript.OriginAgent,
					transcript.Part{Kind: transcript.PartToolCall, ToolCallID: id1, ToolName: "Read", Args: `{"file_path":"/src/app/a.go"}`},
					transcript.Part{Kind: transcript.PartToolCall, ToolCallID: id2, ToolName: "Grep", Args: `{"pattern":"x"}`})
				b.add(transcript.RoleUser, transcript.OriginToolResult,
					transcript.Part{Kind: transcript.PartToolResult, ToolCallID: id1, Text: fileBody("A", 30)},
					transcript.Part{Kind: transcript.PartToolResult, ToolCallID: id2, Text: fileBody("G", 10)})
			case 3: // orphan result
				b.add(transcript.RoleUser, transcript.OriginToolResult,
					transcript.Part{Kind: transcript.PartToolResult, ToolCallID: fmt.Sprintf("lost_%d", rng.IntN(1000)), Text: "orphan output"})
			case 4: // interrupted call: no result
				b.ids++
				b.add(transcript.RoleAssistant, transcript.OriginAgent,
					transcript.Part{Kind: transcript.PartToolCall, ToolCallID: fmt.Sprintf("call_%d", b.ids), ToolName: "Bash", Args: `{"command":"sleep 100"}`})
			case 5:
				b.add(transcript.RoleUser, transcript.OriginInjected,
					transcript.Part{Kind: transcript.PartImage, MIME: "image/png", Size: 1000 + rng.IntN(9000)})
			case 6:
				b.tool("Read", map[string]any{"file_path": "/src/app/" + files[rng.IntN(3)], "offset": 1 + rng.IntN(100), "limit": 10 + rng.IntN(200)}, fileBody("R", 10+rng.IntN(60)), false)
			default:
				b.tool("TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "step", "status": "pending"}}}, "ok", false)
			}
		}
		if rng.IntN(4) != 0 {
			b.say("done with this step")
		}
	}
	return b.build()
}

var propertyPipelines = [][]string{
	{"auto"},
	{"strip-reasoning"},
	{"dedup-tools"},
	{"strip-tool-results", "strip-attachments"},
	{"prune-tools", "dedup-tools", "strip-tool-results"},
	{"sliding-window"},
	{"turn-window", "dedup-tools"},
	{"token-budget", "strip-reasoning"},
	{"dedup-tools", "sliding-window", "strip-tool-results"},
	{"summarize", "dedup-tools"},
}

// TestPropertyInvariants: over many generated transcripts in every API
// family, no strategy combination leaves an orphan tool result or a
// dangling call, alters a signature, separates reasoning from its item or
// breaks alternation, whatever state the source was in.
func TestPropertyInvariants(t *testing.T) {
	formats, n := apiFamilies(), propertyRuns()
	c := counter(t)
	for seed := 0; seed < n; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		f := formats[seed%len(formats)]
		src := randomTranscript(rng, f)
		for _, pipe := range propertyPipelines {
			// Keep none, the default (unset) or one turn.
			keep := []*int{new(0), nil, new(1)}[rng.IntN(3)]
			opts := Options{
				Strategies: pipe, KeepLast: keep, Window: 2000 + rng.IntN(20000),
				Events: 1 + rng.IntN(10), Turns: 1 + rng.IntN(3), Summarizer: extractiveSummarizer(),
				Hints: map[string]ToolHint{"Grep": {Response: HintRemove}},
			}
			v, rep, err := Run(t.Context(), src, c, opts)
			if err != nil {
				t.Fatalf("seed %d %s %v: %v", seed, f, pipe, err)
			}
			if err := Check(v); err != nil {
				t.Fatalf("seed %d %s %v: %v", seed, f, pipe, err)
			}
			// Only sanitize may add a token or two: a one-line stand-in
			// where repairing a broken source emptied a message.
			for _, st := range rep.Steps {
				if st.TokensSaved < 0 && st.Strategy != "sanitize" {
					t.Errorf("seed %d %s %v: step %s grew the view by %d tokens", seed, f, pipe, st.Strategy, -st.TokensSaved)
				}
			}
			for _, m := range v.Messages {
				if len(m.Parts) == 0 {
					t.Fatalf("seed %d %s %v: empty message %s in view", seed, f, pipe, m.ID)
				}
			}
		}
	}
}

func TestCheckFindsViolations(t *testing.T) {
	b := newBuilder(transcript.FormatClaudeCode)
	b.prompt("go")
	b.think("hmm", "sig")
	id := b.tool("Read", map[string]any{"file_path": "a.go"}, "x", false)
	b.say("done")
	src := b.build()
	cases := []struct {
		name string
		edit func(v *transcript.View)
		want string
	}{
		{"orphan result", func(v *transcript.View) { v.Messages = append(v.Messages[:2], v.Messages[3:]...) }, violOrphanResult},
		{"dangling call", func(v *transcript.View) { v.Messages = append(v.Messages[:3], v.Messages[4:]...) }, violDanglingCall},
		{"edited signature", func(v *transcript.View) { v.Messages[1].Parts[0].Text = "edited" }, violSignedEdited},
		{"split pair", func(v *transcript.View) {
			v.Messages = []transcript.Message{v.Messages[0], v.Messages[2], v.Messages[4], v.Messages[3]}
		}, violSplitPair},
	}
	if err := CheckTranscript(src); err != nil {
		t.Fatalf("clean transcript fails: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := transcript.NewView(src)
			tc.edit(v)
			err := Check(v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want %q (call %s)", err, tc.want, id)
			}
		})
	}
}
