package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// The agent's own compactions (issue 14, item 5). The agents compact their
// sessions themselves: Claude Code twice on /compact (each a
// compact_boundary and the summary it asked the model for), Codex once by
// its auto-compaction before a turn (a compacted record), each sending the
// model server its summarisation request, which the server answers with a
// summary that keeps only some of the facts (modelserver/summary.go). The
// agent carries on from each. compactd lists them in its history, restores
// the conversation before the last one, and compacts that history with its
// own pipeline, reporting which facts the agent's summary lost; the agent
// resumes both forks with requests the model server accepts, holding what
// the agent had before its compaction.
//
// Records the test wrote itself in the agent's shape (before the server
// could answer a summary request) are gone: the agents' own are the real
// thing, and the codecs' unit tests keep the older shapes (a
// compact_boundary without preservedSegment, a replacement_history
// without the user's prompts) on fixtures.

// compactionPlan says, per agent, after how many turns of sessionTurns the
// agent's own compactions fall. Codex's falls before a turn without tools
// (q1): its auto-compaction runs before the turn, and a turn that grew past
// the lowered limit again would compact once more in the middle.
var compactionPlan = map[string][]int{"claude": {2, 4}, "codex": {3}}

func TestRealAgentCompactions(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	for _, a := range []agent{claude, codex} {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			runAgentCompactions(t, a, bin)
		})
	}
}

func runAgentCompactions(t *testing.T, a agent, bin string) {
	command, version := installedAgent(t, a.name, a.command)
	sb := newSandbox(t)
	plan := compactionPlan[a.name]
	last := plan[len(plan)-1]
	n := last + 1 // the turns run: the last compaction is followed by one more
	turns := map[string]modelserver.Turn{}
	for _, st := range sessionTurns[:n] {
		turns[st.task] = st.turn(sb.project)
	}
	for _, l := range []string{"before", "recompact"} {
		turns["resume-agent-"+l] = resumeTurn("agent-" + l)
		turns[originalTask("agent-"+l)] = modelserver.Turn{Answer: "The original is still here. (answer " + originalTask("agent-"+l) + ")"}
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a.configure(t, sb, srv)
	t.Logf("%s %s in %s", a.label, version, sb.root)

	// compactd serve watches the session through a real LSP client (issue
	// 24): every compaction of the agent's own is announced within 2 s of
	// its record reaching the file, with what the agent's summary lost.
	id, file := a.newID(), ""
	lsp := startLSP(t, sb, bin, nil)
	marker := map[string][]byte{"claude": []byte(`"subtype":"compact_boundary"`), "codex": []byte(`"type":"compacted"`)}[a.name]
	boundaries := watchUsage(t, a.root(sb), func(line []byte) (int, bool) { return 1, bytes.Contains(line, marker) })
	var announced []agentCompactionNote
	checkAnnounced := func(k int) {
		t.Helper()
		at := boundaries.nth(t, file, k, time.Minute)
		note, noteAt := lsp.nthAgentNote(t, file, k, time.Minute)
		latency := noteAt.Sub(at)
		report("%s compaction a%d announced %s after its record reached the file: %s", a.label, k, latency.Round(time.Millisecond), note.Compaction.Summary)
		t.Logf("compaction a%d announced %s after its record reached the file: %s", k, latency.Round(time.Millisecond), note.Compaction.Summary)
		if latency > 2*time.Second {
			t.Errorf("%s's compaction a%d was announced %s after its record reached the file, want within 2 s", a.label, k, latency)
		}
		if note.Compaction.Compaction != fmt.Sprintf("a%d", k) || len(note.Compaction.Lost) == 0 || len(note.Actions) != 2 {
			t.Errorf("the notification of %s's compaction a%d names nothing it lost: %+v", a.label, k, note)
		}
		if note.Health.Loop {
			t.Errorf("a loop reported on %s's own session: %s", a.label, note.Health.Warning)
		}
		announced = append(announced, note)
	}

	compactions := 0
	justCompacted := false // the agent compacted before the turn about to run
	// summarized checks that the agent asked the model for one summary
	// since seq and returns it.
	summarized := func(seq int, when string) modelserver.Exchange {
		t.Helper()
		var sums []modelserver.Exchange
		for _, e := range srv.Exchanges() {
			if e.Seq > seq && e.Summary {
				sums = append(sums, e)
			}
		}
		if len(sums) != 1 {
			t.Fatalf("%s: %s asked the model for %d summaries, want 1 (its own compaction)", when, a.label, len(sums))
		}
		return sums[0]
	}
	for i, st := range sessionTurns[:n] {
		args := a.first(sb, id, prompt(st.task, st.prompt))
		if i > 0 {
			args = a.resume(sb, id, prompt(st.task, st.prompt))
		}
		// Codex compacts before this turn: its limit lowered for the turn.
		codexCompacts := a.name == "codex" && compactions < len(plan) && plan[compactions] == i
		if codexCompacts {
			setCodexAutoCompact(t, sb, 1000)
		}
		seq := lastSeq(srv)
		sb.run(t, a.timeout, command, args...)
		if bad := rejectedSince(srv, seq); len(bad) > 0 {
			t.Fatalf("turn %s: the model server refused the agent's requests:%s", st.task, describe(bad))
		}
		if file == "" {
			file = a.session(t, sb, id)
			if id == "" {
				id = a.idOf(t, file)
			}
		}
		if codexCompacts {
			setCodexAutoCompact(t, sb, 0)
			summarized(seq, "turn "+st.task)
			compactions++
			justCompacted = true
			checkAnnounced(compactions)
		}
		if justCompacted {
			justCompacted = false
			// The first turn after the agent's compaction: the agent sent
			// the summary, not the turns the summary replaced (the answer
			// of the first of them at least; Claude Code keeps its last
			// messages verbatim, Codex the user's prompts).
			req := exchangesOf(srv, st.task)[0].Conversation
			first := sessionTurns[prevCompaction(plan, compactions)].task
			if !req.Contains(modelserver.SummaryHeading) || req.Contains("(answer "+first+")") {
				t.Fatalf("turn %s after the compaction: the agent did not carry on from its own summary (summary sent: %v; the answer of %s, which it replaced, sent: %v)",
					st.task, req.Contains(modelserver.SummaryHeading), first, req.Contains("(answer "+first+")"))
			}
		}
		if a.name == "claude" && compactions < len(plan) && plan[compactions] == i+1 {
			// Claude Code compacts on /compact, as a user types it.
			seq := lastSeq(srv)
			sb.run(t, a.timeout, command, a.resume(sb, id, "/compact")...)
			if bad := rejectedSince(srv, seq); len(bad) > 0 {
				t.Fatalf("/compact after turn %s: the model server refused the agent's requests:%s", st.task, describe(bad))
			}
			summarized(seq, "/compact after turn "+st.task)
			compactions++
			justCompacted = true
			checkAnnounced(compactions)
		}
	}
	if compactions != len(plan) {
		t.Fatalf("%s compacted %d times, want %d", a.label, compactions, len(plan))
	}

	// History: the agent's compactions, a1 … aN, each the child of the one before.
	var hist struct {
		Versions []struct {
			Label  string `json:"version"`
			Parent string `json:"parent"`
			Kind   string `json:"kind"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(sb.run(t, time.Minute, bin, "history", "--json", file)), &hist); err != nil {
		t.Fatal(err)
	}
	var agentLabels []string
	for _, v := range hist.Versions {
		if v.Kind == "agent" {
			agentLabels = append(agentLabels, v.Label+"<"+v.Parent)
		}
	}
	want := []string{"a1<", "a2<a1"}[:len(plan)]
	if strings.Join(agentLabels, " ") != strings.Join(want, " ") {
		t.Fatalf("compactd history lists the agent's compactions as %v, want %v", agentLabels, want)
	}
	lastLabel := fmt.Sprintf("a%d", len(plan))

	// What the model had before the last compaction: the turns from the one
	// before it (or the start) up to it.
	from := 0
	if len(plan) > 1 {
		from = plan[len(plan)-2]
	}
	before := sessionTurns[from:last]
	after := sessionTurns[last:n]

	restored := sb.restore(t, bin, file, lastLabel)
	var recompacted struct {
		ForkPath       string `json:"forkPath"`
		TokensBefore   int    `json:"tokensBefore"`
		TokensAfter    int    `json:"tokensAfter"`
		AgentRetention *struct {
			Compaction        string `json:"compaction"`
			AgentLostOursKept []struct {
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"agentLostOursKept"`
			Agent struct {
				Score float64 `json:"score"`
			} `json:"agent"`
			Ours struct {
				Score float64 `json:"score"`
			} `json:"ours"`
		} `json:"agentRetention"`
	}
	out := sb.run(t, 2*time.Minute, bin, "compact", "--json", "--before", lastLabel, file)
	if err := json.Unmarshal([]byte(out), &recompacted); err != nil {
		t.Fatalf("compact --before %s: %v\n%s", lastLabel, err, out)
	}
	ar := recompacted.AgentRetention
	if ar == nil || ar.Compaction != lastLabel || len(ar.AgentLostOursKept) == 0 {
		t.Fatalf("compact --before %s: no comparison naming facts the agent's summary lost:\n%s", lastLabel, out)
	}
	var lost []string
	for _, f := range ar.AgentLostOursKept {
		lost = append(lost, f.Kind+" "+f.Text)
	}
	line := fmt.Sprintf("%s: history a1…%s; before %s restored; re-compacted %d → %d tokens; key facts kept: the agent's summary %.2f, compactd %.2f; the agent's summary lost %d that compactd keeps (%s)",
		a.label, lastLabel, lastLabel, recompacted.TokensBefore, recompacted.TokensAfter, ar.Agent.Score, ar.Ours.Score, len(ar.AgentLostOursKept), strings.Join(lost, "; "))
	report("%s", line)
	t.Log(line)

	for _, f := range []struct{ label, path string }{{"before", restored.Path}, {"recompact", recompacted.ForkPath}} {
		t.Run(f.label, func(t *testing.T) {
			forkID := a.idOf(t, f.path)
			if forkID == id {
				t.Fatalf("the %s fork keeps the session id %s", f.label, id)
			}
			g := sb.gauge(t, bin, f.path) // before the agent appends to it
			task := "resume-agent-" + f.label
			seq := lastSeq(srv)
			stdout, stderr, err := sb.try(a.timeout, command, a.resume(sb, forkID, prompt(task, "Carry on from here."))...)
			if bad := rejectedSince(srv, seq); len(bad) > 0 {
				t.Fatalf("%s resumed the %s fork with requests the API would refuse:%s", a.label, f.label, describe(bad))
			}
			if err != nil {
				t.Fatalf("%s could not resume the %s fork (%s): %v\n--- stdout\n%s\n--- stderr\n%s", a.label, f.label, f.path, err, tail(stdout, 2000), tail(stderr, 3000))
			}
			ex := exchangesOf(srv, task)
			if len(ex) == 0 {
				t.Fatalf("%s resumed the %s fork but never asked the model", a.label, f.label)
			}
			req := ex[0].Conversation
			// The fork's gauge foretells the resumed agent's first request.
			promptTokens := ex[0].Usage.Prompt
			report("%s agent-%s: fork gauge %d, the resumed request's prompt %d tokens (%+.1f%%)", a.label, f.label, g.Tokens, promptTokens, 100*float64(g.Tokens-promptTokens)/float64(promptTokens))
			if !within(g.Tokens, promptTokens, resumeTolerance) {
				t.Errorf("the %s fork gauges %d tokens; the resumed %s's first request holds %d (bar: ±%.0f%%)", f.label, g.Tokens, a.label, promptTokens, 100*resumeTolerance)
			}
			if err := a.environment(req, sb); err != nil {
				t.Errorf("the request resuming the %s fork lacks the agent's environment: %v", f.label, err)
			}
			// The history before the compaction is back: its prompts and
			// answers (verbatim in the restored fork; the last turn at least
			// in compactd's compaction, which keeps the last turn whole).
			for k, st := range before {
				if f.label == "recompact" && k < len(before)-1 {
					continue
				}
				if !req.Contains(modelserver.TaskTag(st.task)) || !req.Contains("(answer "+st.task+")") {
					t.Errorf("the request resuming the %s fork lacks turn %s, which came before %s", f.label, st.task, lastLabel)
				}
			}
			// Nothing of what came after the compaction.
			for _, st := range after {
				if req.Contains(modelserver.TaskTag(st.task)) {
					t.Errorf("the request resuming the %s fork carries turn %s, which came after %s", f.label, st.task, lastLabel)
				}
			}
			if last := ex[len(ex)-1]; last.Step != 1 {
				t.Errorf("the resumed %s session stopped at step %d of its tool loop", f.label, last.Step)
			}

			// The original still resumes with what the agent kept of it:
			// its own summary and every turn after its compaction.
			task = originalTask("agent-" + f.label)
			seq = lastSeq(srv)
			stdout, stderr, err = sb.try(a.timeout, command, a.resume(sb, id, prompt(task, "Are you still there?"))...)
			if bad := rejectedSince(srv, seq); len(bad) > 0 {
				t.Fatalf("%s resumed the original after the %s fork with requests the API would refuse:%s", a.label, f.label, describe(bad))
			}
			if err != nil {
				t.Fatalf("%s could not resume the original session %s after the %s fork was resumed: %v\n--- stdout\n%s\n--- stderr\n%s", a.label, id, f.label, err, tail(stdout, 2000), tail(stderr, 3000))
			}
			orig := exchangesOf(srv, task)
			if len(orig) == 0 {
				t.Fatalf("%s resumed the original after the %s fork but never asked the model", a.label, f.label)
			}
			for _, st := range after {
				if !orig[0].Conversation.Contains(modelserver.TaskTag(st.task)) || !orig[0].Conversation.Contains("(answer "+st.task+")") {
					t.Errorf("after the %s fork was resumed, the original resumes without turn %s", f.label, st.task)
				}
			}
		})
	}
	// Both actions work from the notification of the last compaction.
	if len(announced) > 0 {
		runAgentActions(t, lsp, announced[len(announced)-1])
	}
}

// agentCompactionNote is the part of compactd/agentCompaction the suite reads.
type agentCompactionNote struct {
	URI        string `json:"uri"`
	Message    string `json:"message"`
	Compaction struct {
		Compaction string `json:"compaction"`
		Summary    string `json:"summary"`
		Lost       []struct {
			Kind  string `json:"kind"`
			Count int    `json:"count"`
		} `json:"lost"`
	} `json:"compaction"`
	Health struct {
		Loop    bool   `json:"loop"`
		Warning string `json:"warning"`
	} `json:"health"`
	Actions []struct {
		Title     string `json:"title"`
		Command   string `json:"command"`
		Arguments []any  `json:"arguments"`
	} `json:"actions"`
}

// nthAgentNote waits for the k-th (1-based) compactd/agentCompaction
// notification about path.
func (c *lspClient) nthAgentNote(t *testing.T, path string, k int, timeout time.Duration) (agentCompactionNote, time.Time) {
	t.Helper()
	var found agentCompactionNote
	var at time.Time
	ok := c.wait(timeout, func() bool {
		n := 0
		for _, an := range c.agent {
			var note agentCompactionNote
			if json.Unmarshal(an.Params, &note) != nil || canonical(uriPath(note.URI)) != canonical(path) {
				continue
			}
			if n++; n == k {
				found, at = note, an.At
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("no compactd/agentCompaction notification for compaction a%d of %s within %s; server log:\n%s", k, path, timeout, tailFile(c.logFile))
	}
	return found, at
}

// runAgentActions runs both actions of an agent compaction's notification
// through the LSP client, as a user clicking them: each writes a session.
func runAgentActions(t *testing.T, lsp *lspClient, note agentCompactionNote) {
	t.Helper()
	for _, act := range note.Actions {
		raw := lsp.request(t, "workspace/executeCommand", map[string]any{"command": act.Command, "arguments": act.Arguments}, 3*time.Minute)
		var res struct {
			Open  string `json:"open"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || res.Error != "" || res.Open == "" {
			t.Fatalf("%q from the notification of %s: %s", act.Title, note.Compaction.Compaction, raw)
		}
		if _, err := os.Stat(uriPath(res.Open)); err != nil {
			t.Fatalf("%q from the notification: %v", act.Title, err)
		}
	}
}

// nth waits until path has shown k matching lines and returns when the
// k-th reached it.
func (u *usageWatcher) nth(t *testing.T, path string, k int, timeout time.Duration) time.Time {
	t.Helper()
	path = canonical(path)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		u.mu.Lock()
		n := 0
		for _, s := range u.seen {
			if canonical(s.Path) == path {
				if n++; n == k {
					u.mu.Unlock()
					return s.At
				}
			}
		}
		ch := u.changed
		u.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("compaction record %d never reached %s", k, path)
		}
	}
}

// prevCompaction returns the turn the compaction before the k-th (1-based)
// fell after: 0 for the first.
func prevCompaction(plan []int, k int) int {
	if k < 2 {
		return 0
	}
	return plan[k-2]
}

// setCodexAutoCompact sets Codex's model_auto_compact_token_limit, the
// context size past which it compacts before a turn; 0 removes it.
func setCodexAutoCompact(t *testing.T, sb *sandbox, limit int) {
	t.Helper()
	path := filepath.Join(sb.getenv("CODEX_HOME"), "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const key = "model_auto_compact_token_limit"
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, key+" ") {
			kept = append(kept, l)
		}
	}
	cfg := strings.Join(kept, "\n")
	if limit > 0 {
		// A top-level key: before the first table.
		cfg = fmt.Sprintf("%s = %d\n", key, limit) + cfg
	}
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}
