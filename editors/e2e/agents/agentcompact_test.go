package agents

import (
	"bufio"
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

// The agent's own compactions (issue 14, item 5). A real session goes on
// across compactions of the agent's own — two compact_boundary records in
// Claude Code's session, one compacted record in Codex's rollout — and the
// agent itself carries on from each. compactd lists them in its history,
// restores the conversation before the last one, and compacts that history
// with its own pipeline; the agent resumes both forks with requests the
// model server accepts, holding what the agent had before its compaction.
//
// The compaction records are appended by the test in the agent's own shape
// (its summary request needs a model reply the suite's script does not
// write); that the agent goes on from them proves it reads them as its own.

// agentSummary is the summary every injected compaction carries: short,
// as agents' summaries are, naming none of the turns it replaces.
const agentSummary = "Summary of the conversation so far: the user is improving an inventory project written in Go."

// compactionPlan says after which turns of sessionTurns the agent's own
// compactions fall, per agent.
var compactionPlan = map[string][]int{"claude": {2, 4}, "codex": {2}}

func TestRealAgentCompactions(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	for _, a := range []agent{claude, codex} {
		t.Run(a.name, func(t *testing.T) { runAgentCompactions(t, a, bin) })
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
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a.configure(t, sb, srv)
	t.Logf("%s %s in %s", a.label, version, sb.root)

	id, file := a.newID(), ""
	compactions := 0
	for i, st := range sessionTurns[:n] {
		args := a.first(sb, id, prompt(st.task, st.prompt))
		if i > 0 {
			args = a.resume(sb, id, prompt(st.task, st.prompt))
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
		if compactions > 0 {
			// The agent went on from its compaction: it sent the summary,
			// not the turns the summary replaced.
			req := exchangesOf(srv, st.task)[0].Conversation
			if !req.Contains(agentSummary) || req.Contains(modelserver.TaskTag(sessionTurns[0].task)) {
				t.Fatalf("turn %s after the compaction: the agent did not read the compaction as its own", st.task)
			}
		}
		if compactions < len(plan) && i+1 == plan[compactions] {
			appendCompaction(t, a.name, file)
			compactions++
		}
	}

	// History: the agent's compactions, a1 … aN, each the child of the one before.
	var hist struct {
		Versions []struct {
			Label  string `json:"label"`
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
	report("%s: history a1…%s; before %s restored; re-compacted %d → %d tokens; key facts kept: the agent's summary %.2f, compactd %.2f; the agent's summary lost %d that compactd keeps (%s)",
		a.label, lastLabel, lastLabel, recompacted.TokensBefore, recompacted.TokensAfter, ar.Agent.Score, ar.Ours.Score, len(ar.AgentLostOursKept), strings.Join(lost, "; "))

	for _, f := range []struct{ label, path string }{{"before", restored.Path}, {"recompact", recompacted.ForkPath}} {
		t.Run(f.label, func(t *testing.T) {
			forkID := a.idOf(t, f.path)
			if forkID == id {
				t.Fatalf("the %s fork keeps the session id %s", f.label, id)
			}
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
		})
	}
}

// appendCompaction appends to the session file the records the agent
// writes when it compacts its history, in its own shape.
func appendCompaction(t *testing.T, agentName, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	switch agentName {
	case "claude":
		lines = claudeCompaction(t, data)
	case "codex":
		lines = codexCompaction(t, data)
	default:
		t.Fatalf("no compaction shape for %s", agentName)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

func jsonLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// claudeCompaction is what Claude Code writes when it compacts: a
// compact_boundary with no parent, naming the old leaf as its logical
// parent, then the summary under it.
func claudeCompaction(t *testing.T, data []byte) []string {
	var leaf struct {
		UUID, SessionID, Cwd, Version, GitBranch string
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r struct {
			Type      string `json:"type"`
			UUID      string `json:"uuid"`
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Version   string `json:"version"`
			GitBranch string `json:"gitBranch"`
			Sidechain bool   `json:"isSidechain"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.UUID != "" && !r.Sidechain && (r.Type == "user" || r.Type == "assistant" || r.Type == "system") {
			leaf.UUID, leaf.SessionID, leaf.Cwd, leaf.Version, leaf.GitBranch = r.UUID, r.SessionID, r.Cwd, r.Version, r.GitBranch
		}
	}
	if leaf.UUID == "" {
		t.Fatal("no conversation row to compact under")
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	boundary, summary := uuid(), uuid()
	return []string{
		jsonLine(t, map[string]any{"parentUuid": nil, "logicalParentUuid": leaf.UUID, "isSidechain": false, "userType": "external",
			"cwd": leaf.Cwd, "sessionId": leaf.SessionID, "version": leaf.Version, "gitBranch": leaf.GitBranch,
			"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false,
			"timestamp": now, "uuid": boundary, "level": "info", "compactMetadata": map[string]any{"trigger": "manual", "preTokens": 40000}}),
		jsonLine(t, map[string]any{"parentUuid": boundary, "isSidechain": false, "userType": "external",
			"cwd": leaf.Cwd, "sessionId": leaf.SessionID, "version": leaf.Version, "gitBranch": leaf.GitBranch,
			"type": "user", "message": map[string]any{"role": "user", "content": agentSummary},
			"isVisibleInTranscriptOnly": true, "isCompactSummary": true, "uuid": summary, "timestamp": now}),
	}
}

// codexCompaction is what Codex writes when it compacts: a compacted record
// whose replacement history keeps the injected context and the summary.
func codexCompaction(t *testing.T, data []byte) []string {
	var keep []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Type != "response_item" {
			continue
		}
		var it struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(r.Payload, &it) != nil || it.Type != "message" || it.Role == "assistant" {
			continue
		}
		// Codex keeps its injected context (developer instructions,
		// environment) and drops the user's prompts, which the summary
		// stands for.
		injected := it.Role == "developer"
		for _, c := range it.Content {
			injected = injected || strings.HasPrefix(strings.TrimSpace(c.Text), "<")
		}
		if injected {
			keep = append(keep, r.Payload)
		}
	}
	summary := json.RawMessage(jsonLine(t, map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": agentSummary}}}))
	keep = append(keep, summary)
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	return []string{
		jsonLine(t, map[string]any{"timestamp": now, "type": "event_msg", "payload": map[string]any{"type": "context_compacted"}}),
		jsonLine(t, map[string]any{"timestamp": now, "type": "compacted", "payload": map[string]any{"message": agentSummary, "replacement_history": keep}}),
	}
}
