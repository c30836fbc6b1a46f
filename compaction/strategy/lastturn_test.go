package strategy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// lastTurnSources are sessions of the three agents the real-agent suite
// resumes (Claude Code, Codex, Gemini CLI): generated ones, the codecs'
// fixtures of real sessions, and the shared corpus when it is there.
func lastTurnSources(t *testing.T) map[string]*transcript.Transcript {
	t.Helper()
	out := map[string]*transcript.Transcript{}
	add := func(name string, data []byte) {
		codec, err := format.Detect(name, data)
		if err != nil {
			return
		}
		tr, err := codec.Parse(data)
		if err != nil || len(tr.Turns) < 3 {
			return
		}
		switch tr.Format {
		case transcript.FormatClaudeCode, transcript.FormatCodex, transcript.FormatGeminiCLI:
			out[name] = tr
		}
	}
	for seed := uint64(1); seed <= 2; seed++ {
		o := sessiongen.Options{Seed: seed, Turns: 12}
		add(fmt.Sprintf("generated/claude-%d.jsonl", seed), sessiongen.ClaudeCode(o))
		add(fmt.Sprintf("generated/rollout-codex-%d.jsonl", seed), sessiongen.Codex(o))
	}
	var files []string
	for _, agent := range []string{"claude", "codex", "gemini"} {
		m, _ := filepath.Glob(filepath.Join("..", "format", agent, "testdata", "*.json*"))
		files = append(files, m...)
	}
	for _, agent := range []string{"claude-code", "codex", "gemini-cli"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", agent, "*.json*"))
		files = append(files, m...)
	}
	for _, p := range files {
		if strings.Contains(p, "golden") {
			continue
		}
		if data, err := os.ReadFile(p); err == nil {
			add(filepath.ToSlash(p), data)
		}
	}
	return out
}

// seenPart is one part the model is sent, as the agent loads a session.
type seenPart struct {
	role               transcript.Role
	kind               transcript.PartKind
	text, args, callID string
}

// seenParts flattens what the agent sends the model when it resumes t,
// leaving out reasoning (the APIs drop a settled turn's reasoning).
func seenParts(t *testing.T, tr *transcript.Transcript) []seenPart {
	t.Helper()
	msgs := tr.Messages
	codec, _ := format.Lookup(tr.Format)
	if l, ok := codec.(format.Loader); ok {
		var err error
		if msgs, err = l.Load(tr); err != nil {
			t.Fatalf("the agent cannot load it: %v", err)
		}
	}
	var out []seenPart
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartReasoning || p.Kind == transcript.PartOpaque {
				continue
			}
			out = append(out, seenPart{m.Role, p.Kind, p.Text, p.Args, p.ToolCallID})
		}
	}
	return out
}

// lastPromptAt is where the source's last human prompt starts in seen,
// -1 when it is not there.
func lastPromptAt(seen []seenPart, prompt string) int {
	for k := len(seen) - 1; k >= 0; k-- {
		if seen[k].role == transcript.RoleUser && seen[k].kind == transcript.PartText && seen[k].text == prompt {
			return k
		}
	}
	return -1
}

// TestBudgetKeepsTheLastTurn: under every budget — token-budget's and a
// fit's, from half the session down to a sixth — the fork the agent
// resumes ends with the session's last turn: verbatim when the budget
// holds it, else its prompt and its newest step (the execution
// frontier); the summary of what went comes before it, never after (a
// summary after the last turn is where Claude Code and Gemini CLI start
// reading, so they lost the turn, and it made Codex's rollout end with a
// compacted record, which Codex refuses to resume). A Codex fork ends as
// Codex's own rollouts do: with the source's own last line.
func TestBudgetKeepsTheLastTurn(t *testing.T) {
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	sources := lastTurnSources(t)
	formats := map[transcript.Format]int{}
	for name, tr := range sources {
		total, err := strategy.CountTranscript(t.Context(), tr, c)
		if err != nil {
			t.Fatal(err)
		}
		size := total.Total() - systemTokens(c, tr.Messages)
		last := tr.Turns[len(tr.Turns)-1]
		lastTokens := 0
		for i := last.Start; i < last.End; i++ {
			lastTokens += c.Message(&tr.Messages[i])
		}
		prompt := ""
		for _, p := range tr.Messages[last.Start].Parts {
			if p.Kind == transcript.PartText {
				prompt = p.Text
				break
			}
		}
		srcSeen := seenParts(t, tr)
		at := lastPromptAt(srcSeen, prompt)
		if prompt == "" || at < 0 || tr.Messages[last.Start].Origin != transcript.OriginHuman {
			continue // no human prompt the agent shows as it was
		}
		turn := srcSeen[at:]
		formats[tr.Format]++
		for _, div := range []int{2, 3, 6} {
			budget := size / div
			if budget < 300 {
				continue
			}
			for _, pipe := range [][]string{{strategy.StrategyTokenBudget}, {strategy.StrategyAuto}} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, pipe[0], budget), func(t *testing.T) {
					v, rep, err := strategy.Run(t.Context(), tr, c, strategy.Options{
						Strategies: pipe, Budget: budget, KeepLast: new(1),
						Summarizer: &summarize.Extractive{Counter: c},
					})
					if err != nil {
						t.Fatal(err)
					}
					codec, _ := format.Lookup(tr.Format)
					out, err := codec.Fork(v, format.ForkOptions{SessionID: "00000000-0000-4000-8000-000000000003"})
					if err != nil {
						t.Fatalf("fork: %v", err)
					}
					re, err := codec.Parse(out)
					if err != nil {
						t.Fatalf("the fork does not parse: %v", err)
					}
					seen := seenParts(t, re)
					whole := lastTokens <= budget/2
					switch k := lastPromptAt(seen, prompt); {
					case whole && (k < 0 || !equalParts(seen[k:], turn)):
						t.Errorf("the %d-token last turn is not the end of what the agent reads at a %d-token budget (notes %q):\n got %s\nwant %s", lastTokens, budget, rep.Notes, describeSeen(seen[max(k, len(seen)-len(turn)):]), describeSeen(turn))
					case !whole && !hasPrompt(seen, prompt):
						t.Errorf("the last prompt is not in what the agent reads at a %d-token budget (notes %q)", budget, rep.Notes)
					case len(seen) == 0 || seen[len(seen)-1] != srcSeen[len(srcSeen)-1]:
						t.Errorf("what the agent reads does not end with the session's newest step at a %d-token budget (notes %q): ends %s", budget, rep.Notes, describeSeen(seen[max(0, len(seen)-2):]))
					}
					if tr.Format == transcript.FormatCodex {
						endsAsCodex(t, tr, out)
					}
				})
			}
		}
	}
	for _, f := range []transcript.Format{transcript.FormatClaudeCode, transcript.FormatCodex, transcript.FormatGeminiCLI} {
		if formats[f] < 2 {
			t.Errorf("%d %s sessions with a human last prompt, want at least 2", formats[f], f)
		}
	}
}

// endsAsCodex checks a Codex fork's last line is one of the source's own
// lines as Codex wrote it (its ordinal, when Codex numbers its lines: a
// resumed Codex continues the numbering from the final line and refuses a
// rollout whose final line has none), never a record compactd wrote.
func endsAsCodex(t *testing.T, src *transcript.Transcript, fork []byte) {
	t.Helper()
	lines := bytes.Split(bytes.TrimRight(fork, "\n"), []byte("\n"))
	final := lines[len(lines)-1]
	for _, rec := range src.Records {
		if bytes.Equal(bytes.TrimSpace(rec.Raw), final) {
			return
		}
	}
	t.Errorf("the Codex fork ends with a line the source does not have: %.200s", final)
}

func hasPrompt(seen []seenPart, prompt string) bool {
	head := prompt[:min(len(prompt), 80)]
	for _, s := range seen {
		if s.role == transcript.RoleUser && s.kind == transcript.PartText && strings.HasPrefix(s.text, head) {
			return true
		}
	}
	return false
}

func equalParts(a, b []seenPart) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func describeSeen(ps []seenPart) string {
	var b strings.Builder
	for _, p := range ps {
		s := p.text
		if p.kind == transcript.PartToolCall {
			s = p.args
		}
		fmt.Fprintf(&b, " | %s/%s %q", p.role, p.kind, s[:min(len(s), 40)])
	}
	return b.String()
}
