package agents

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// Gemini CLI's own chat compression, live. Gemini CLI compresses when the
// prompt of its last request reaches model.compressionThreshold × its
// model's window: in a one-shot run that is before the second request of a
// turn (the first has no count yet), so the suite lowers the threshold to
// just under the size the session has reached and runs a turn with tools.
// Gemini CLI asks the model for a <state_snapshot> (and to check it),
// replaces the conversation with a $set of messages that opens with it,
// and carries on. compactd serve, watching through a real LSP client,
// announces it within 2 s with what the snapshot lost; history lists it as
// a1; restore writes the conversation as it was before it, which Gemini
// CLI resumes whole, and the original still resumes from its snapshot.
func TestRealAgentGeminiCompression(t *testing.T) {
	enabled(t)
	t.Parallel()
	bin := compactdBin(t)
	a := gemini
	command, version := installedAgent(t, a.name, a.command)
	sb := newSandbox(t)
	turns := map[string]modelserver.Turn{}
	for _, st := range sessionTurns[:3] {
		turns[st.task] = st.turn(sb.project)
	}
	turns["resume-agent-before"] = resumeTurn("agent-before")
	turns[originalTask("agent-before")] = modelserver.Turn{Answer: "The original is still here. (answer " + originalTask("agent-before") + ")"}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a.configure(t, sb, srv)
	t.Logf("%s %s in %s", a.label, version, sb.root)

	lsp := startLSP(t, sb, bin, a.lspInit)
	snapshots := watchUsage(t, a.root(sb), func(line []byte) (int, bool) {
		return 1, bytes.Contains(line, []byte(`"$set"`)) && bytes.Contains(line, []byte("<state_snapshot>"))
	})
	id, file := a.newID(), ""
	for i, st := range sessionTurns[:3] {
		args := a.first(sb, id, prompt(st.task, st.prompt))
		if i > 0 {
			args = a.resume(sb, id, prompt(st.task, st.prompt))
		}
		if i == 2 {
			// Just under what the session holds: Gemini CLI compresses
			// before this turn's second request.
			ex := exchangesOf(srv, sessionTurns[1].task)
			setGeminiCompression(t, sb, float64(ex[len(ex)-1].Usage.Prompt-100)/geminiWindow)
		}
		seq := lastSeq(srv)
		sb.run(t, a.timeout, command, args...)
		if bad := rejectedSince(srv, seq); len(bad) > 0 {
			t.Fatalf("turn %s: the model server refused the agent's requests:%s", st.task, describe(bad))
		}
		if file == "" {
			file = a.session(t, sb, id)
		}
	}
	setGeminiCompression(t, sb, 0) // the default again: nothing below compresses
	summaries := 0
	for _, e := range srv.Exchanges() {
		if e.Summary {
			summaries++
		}
	}
	if summaries == 0 {
		t.Fatalf("%s did not compress the conversation (no summary request)", a.label)
	}

	at := snapshots.nth(t, file, 1, time.Minute)
	note, noteAt := lsp.nthAgentNote(t, file, 1, time.Minute)
	latency := noteAt.Sub(at)
	report("%s compression a1 announced %s after its $set reached the file: %s", a.label, latency.Round(time.Millisecond), note.Compaction.Summary)
	t.Logf("compression a1 announced %s after its $set reached the file: %s", latency.Round(time.Millisecond), note.Compaction.Summary)
	if latency > 2*time.Second {
		t.Errorf("%s's compression was announced %s after its record reached the file, want within 2 s", a.label, latency)
	}
	if note.Compaction.Compaction != "a1" || len(note.Compaction.Lost) == 0 || len(note.Actions) != 2 {
		t.Errorf("the notification of %s's compression names nothing it lost: %+v", a.label, note)
	}

	var hist struct {
		Versions []struct {
			Label string `json:"version"`
			Kind  string `json:"kind"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(sb.run(t, time.Minute, bin, "history", "--json", file)), &hist); err != nil {
		t.Fatal(err)
	}
	var agentLabels []string
	for _, v := range hist.Versions {
		if v.Kind == "agent" {
			agentLabels = append(agentLabels, v.Label)
		}
	}
	if len(agentLabels) == 0 || agentLabels[0] != "a1" {
		t.Fatalf("compactd history lists the agent's compactions as %v, want a1 first", agentLabels)
	}

	// The conversation before the compression, resumed whole.
	restored := sb.restore(t, bin, file, "a1")
	forkID := a.idOf(t, restored.Path)
	seq := lastSeq(srv)
	stdout, stderr, err := sb.try(a.timeout, command, a.resume(sb, forkID, prompt("resume-agent-before", "Carry on from here."))...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("%s resumed the conversation before its compression with requests the API would refuse:%s", a.label, describe(bad))
	}
	if err != nil {
		t.Fatalf("%s could not resume %s: %v\n--- stdout\n%s\n--- stderr\n%s", a.label, restored.Path, err, tail(stdout, 2000), tail(stderr, 3000))
	}
	ex := exchangesOf(srv, "resume-agent-before")
	if len(ex) == 0 {
		t.Fatalf("%s resumed the restored conversation but never asked the model", a.label)
	}
	req := ex[0].Conversation
	for _, st := range sessionTurns[:2] {
		if !req.Contains(modelserver.TaskTag(st.task)) || !req.Contains("(answer "+st.task+")") {
			t.Errorf("the request resuming the conversation before the compression lacks turn %s", st.task)
		}
	}
	if req.Contains(modelserver.SummaryHeading) {
		t.Errorf("the request resuming the conversation before the compression carries the agent's snapshot")
	}

	// The original resumes from its snapshot, whole.
	task := originalTask("agent-before")
	seq = lastSeq(srv)
	if _, stderr, err := sb.try(a.timeout, command, a.resume(sb, id, prompt(task, "Are you still there?"))...); err != nil {
		t.Fatalf("%s could not resume the original after the restored conversation was resumed: %v\n%s", a.label, err, tail(stderr, 3000))
	}
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("%s resumed the original with requests the API would refuse:%s", a.label, describe(bad))
	}
	orig := exchangesOf(srv, task)
	if len(orig) == 0 || !orig[0].Conversation.Contains(modelserver.SummaryHeading) || !orig[0].Conversation.Contains(modelserver.TaskTag(sessionTurns[2].task)) {
		t.Errorf("the original no longer resumes from its snapshot and the turn after it")
	}
	runAgentActions(t, lsp, note)
}

// geminiWindow is the window Gemini CLI's compression threshold is a share
// of (tokenLimit of its Gemini 3 models).
const geminiWindow = 1 << 20

// setGeminiCompression sets model.compressionThreshold in the sandbox's
// Gemini CLI settings (0: remove it, the default 0.5 applies).
func setGeminiCompression(t *testing.T, sb *sandbox, fraction float64) {
	t.Helper()
	path := filepath.Join(sb.home, ".gemini", "settings.json")
	var settings map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	model, _ := settings["model"].(map[string]any)
	if model == nil {
		model = map[string]any{}
	}
	if fraction > 0 {
		model["compressionThreshold"] = fraction
	} else {
		delete(model, "compressionThreshold")
	}
	settings["model"] = model
	if b, err = json.Marshal(settings); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
