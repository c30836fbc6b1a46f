package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// contextBaseline reads a rollout the way Codex rebuilds a session on
// resume (codex-rs rollout reconstruction): a compacted record with a
// replacement_history clears the context baseline; a turn_context or a full
// world_state after it sets one again, and then Codex believes the
// environment context is already in the history and sends only changes.
func contextBaseline(t *testing.T, rollout []byte) bool {
	t.Helper()
	set := false
	for _, line := range bytes.Split(bytes.TrimSpace(rollout), []byte("\n")) {
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				Full               bool            `json:"full"`
				ReplacementHistory json.RawMessage `json:"replacement_history"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("fork line %q: %v", line, err)
		}
		switch {
		case l.Type == "compacted" && len(l.Payload.ReplacementHistory) > 0:
			set = false
		case l.Type == "turn_context", l.Type == "world_state" && l.Payload.Full:
			set = true
		}
	}
	return set
}

func hasEnvironmentContext(msgs []transcript.Message) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if strings.HasPrefix(strings.TrimSpace(p.Text), "<environment_context>") {
				return true
			}
		}
	}
	return false
}

// TestTurnWindowForkKeepsEnvironmentConsistent: a Codex 0.169 rollout
// whose environment context (cwd, shell, date) was sent in the first turn
// and recorded as world_state. Every fork either keeps the
// <environment_context> message in the history it resumes with, or leaves
// no context baseline (turn_context / world_state) after its compacted
// record, so the resumed Codex sends the environment again; never the
// source's world_state claiming a context the fork dropped.
func TestTurnWindowForkKeepsEnvironmentConsistent(t *testing.T) {
	src := formattest.Fixture(t, "v0.169-world-state.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "v0.169", src)
	if !hasEnvironmentContext(tr.Messages) || !contextBaseline(t, src) {
		t.Fatal("fixture: the source must hold the environment context and its baseline")
	}
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []strategy.Options{
		{Strategies: []string{"turn-window"}, Turns: 1},
		{Strategies: []string{"turn-window"}, Turns: 2},
		{Strategies: []string{"token-budget"}, Budget: 2000},
		{Strategies: []string{"extractive"}, Window: 20_000, KeepLast: new(1)},
		{Strategies: []string{"auto"}},
	} {
		t.Run(fmt.Sprintf("%s/turns=%d", strings.Join(opts.Strategies, "+"), opts.Turns), func(t *testing.T) {
			v, _, err := strategy.Run(t.Context(), tr, counter, opts)
			if err != nil {
				t.Fatal(err)
			}
			out, back := formattest.ForkParse(t, Codec{}, v, forkOpts)
			if contextBaseline(t, out) && !hasEnvironmentContext(back.Messages) {
				t.Fatalf("the fork drops <environment_context> but keeps a context baseline after its compaction:\n%s", out)
			}
			if bytes.Contains(out, []byte(`"type":"token_usage_record"`)) {
				t.Errorf("the fork carries the source's token_usage_record")
			}
		})
	}
}

// TestResentContext: a fork that clears the context baseline makes the
// resumed Codex send its initial context again — the developer
// instructions and the environment (seen in the real-agent suite: a
// turn-window fork resumed with 1,253 tokens of it beside the fork, its
// gauge 15 % short). Resent names those messages, so the fork's gauge
// counts them; a fork that keeps the baseline resends nothing.
func TestResentContext(t *testing.T) {
	src := formattest.Fixture(t, "v0.169-world-state.jsonl")
	tr := formattest.RoundTrip(t, Codec{}, "v0.169", src)
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts   strategy.Options
		resent bool
	}{
		{strategy.Options{Strategies: []string{"turn-window"}, Turns: 1}, true},
		{strategy.Options{Strategies: []string{"token-budget"}, Budget: 300}, true},
		{strategy.Options{Strategies: []string{"strip-tool-results"}}, false},
	} {
		t.Run(strings.Join(tc.opts.Strategies, "+"), func(t *testing.T) {
			v, _, err := strategy.Run(t.Context(), tr, counter, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := formattest.ForkParse(t, Codec{}, v, forkOpts)
			resent := Codec{}.Resent(v)
			if contextBaseline(t, out) == (len(resent) > 0) {
				t.Fatalf("the fork leaves a context baseline: %v; Resent names %d messages (it must name the context exactly when the baseline is gone)", contextBaseline(t, out), len(resent))
			}
			if !tc.resent {
				return
			}
			var kinds []string
			for _, m := range resent {
				kind, _ := initialContext(&m)
				kinds = append(kinds, kind)
			}
			if len(resent) != 2 || !strings.HasPrefix(kinds[0], "developer <permissions instructions>") || kinds[1] != "<environment_context>" {
				t.Fatalf("Resent = %q, want the developer instructions and the environment", kinds)
			}
		})
	}
}

// TestNewContextWindow is issue 23's item 6: with Codex's experimental
// context management the model starts a new context window (new_context)
// without a summary; the rollout keeps every window. The gauge counts the
// current one: the history before the window change is gone from it.
func TestNewContextWindow(t *testing.T) {
	const path = "testdata/v0.169-new-context.jsonl"
	tr := formattest.RoundTrip(t, Codec{}, path, formattest.Read(t, path))
	var prompts []string
	for _, m := range tr.Messages {
		if m.Origin == transcript.OriginHuman && transcript.StartsTurn(&m) {
			prompts = append(prompts, m.Parts[0].Text)
		}
	}
	if len(prompts) != 2 || !strings.HasPrefix(prompts[0], "Run the reconcile tests") {
		t.Fatalf("the current window's prompts: %q, want the two after the window change", prompts)
	}
	for _, m := range tr.Messages {
		for _, p := range m.Parts {
			if p.ToolName == "notes" || p.ToolName == "new_context" {
				t.Errorf("the previous window's %s call is still in the history", p.ToolName)
			}
		}
	}
	if tr.Messages[0].Role != transcript.RoleSystem {
		t.Errorf("the base instructions left the new window")
	}
}
