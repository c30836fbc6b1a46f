package agents

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// ownCompression is one agent compaction the suite made happen live (Gemini
// CLI's chat compression, Qwen Code's /compress), and how to drive the agent.
type ownCompression struct {
	label string // the agent's name
	sb    *sandbox
	srv   *modelserver.Server
	lsp   *lspClient
	bin   string
	// file is the session, id what resumes it; record is when the
	// compaction's record reached the file.
	file, id string
	record   time.Time
	// before are the turns the compaction replaced.
	before []sessionTurn
	// resume runs one prompt in the session id; sessionOf is the id that
	// resumes a session file compactd wrote.
	resume    func(id, prompt string) (stdout, stderr string, err error)
	sessionOf func(path string) string
}

// checkOwnCompression: compactd serve announces the compaction within 2 s
// of its record, naming what the agent's summary lost, with both actions;
// history lists it as a1; restore a1 writes the conversation as it was
// before it, which the agent resumes whole and without its summary; the
// original still resumes from its summary; both actions run from the
// notification.
func checkOwnCompression(t *testing.T, c ownCompression) {
	t.Helper()
	note, noteAt := c.lsp.nthAgentNote(t, c.file, 1, time.Minute)
	latency := noteAt.Sub(c.record)
	report("%s compaction a1 announced %s after its record reached the file: %s", c.label, latency.Round(time.Millisecond), note.Compaction.Summary)
	t.Logf("compaction a1 announced %s after its record reached the file: %s", latency.Round(time.Millisecond), note.Compaction.Summary)
	if latency > 2*time.Second {
		t.Errorf("%s's compaction was announced %s after its record reached the file, want within 2 s", c.label, latency)
	}
	if note.Compaction.Compaction != "a1" || len(note.Compaction.Lost) == 0 || len(note.Actions) != 2 {
		t.Errorf("the notification of %s's compaction names nothing it lost: %+v", c.label, note)
	}

	var hist struct {
		Versions []struct {
			Label string `json:"version"`
			Kind  string `json:"kind"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(c.sb.run(t, time.Minute, c.bin, "history", "--json", c.file)), &hist); err != nil {
		t.Fatal(err)
	}
	var agentLabels []string
	for _, v := range hist.Versions {
		if v.Kind == "agent" {
			agentLabels = append(agentLabels, v.Label)
		}
	}
	if len(agentLabels) != 1 || agentLabels[0] != "a1" {
		t.Fatalf("compactd history lists the agent's compactions as %v, want [a1]", agentLabels)
	}

	// The conversation before the compaction, resumed whole.
	restored := c.sb.restore(t, c.bin, c.file, "a1")
	seq := lastSeq(c.srv)
	stdout, stderr, err := c.resume(c.sessionOf(restored.Path), prompt("resume-agent-before", "Carry on from here."))
	if bad := rejectedSince(c.srv, seq); len(bad) > 0 {
		t.Fatalf("%s resumed the conversation before its compaction with requests the API would refuse:%s", c.label, describe(bad))
	}
	if err != nil {
		t.Fatalf("%s could not resume %s: %v\n--- stdout\n%s\n--- stderr\n%s", c.label, restored.Path, err, tail(stdout, 2000), tail(stderr, 3000))
	}
	ex := exchangesOf(c.srv, "resume-agent-before")
	if len(ex) == 0 {
		t.Fatalf("%s resumed the restored conversation but never asked the model", c.label)
	}
	req := ex[0].Conversation
	for _, st := range c.before {
		if !req.Contains(modelserver.TaskTag(st.task)) || !req.Contains("(answer "+st.task+")") {
			t.Errorf("the request resuming the conversation before the compaction lacks turn %s", st.task)
		}
	}
	if req.Contains(modelserver.SummaryHeading) {
		t.Errorf("the request resuming the conversation before the compaction carries the agent's summary")
	}

	// The original resumes from its summary.
	task := originalTask("agent-before")
	seq = lastSeq(c.srv)
	if _, stderr, err := c.resume(c.id, prompt(task, "Are you still there?")); err != nil {
		t.Fatalf("%s could not resume the original after the restored conversation was resumed: %v\n%s", c.label, err, tail(stderr, 3000))
	}
	if bad := rejectedSince(c.srv, seq); len(bad) > 0 {
		t.Fatalf("%s resumed the original with requests the API would refuse:%s", c.label, describe(bad))
	}
	if orig := exchangesOf(c.srv, task); len(orig) == 0 || !orig[0].Conversation.Contains(modelserver.SummaryHeading) {
		t.Errorf("the original no longer resumes from the agent's summary")
	}
	runAgentActions(t, c.lsp, note)
}

// ownCompressionTurns is the model server's script for these tests: the
// first three session turns, a resume of what compactd restores and one
// of the original.
func ownCompressionTurns(project string) map[string]modelserver.Turn {
	turns := map[string]modelserver.Turn{}
	for _, st := range sessionTurns[:3] {
		turns[st.task] = st.turn(project)
	}
	turns["resume-agent-before"] = resumeTurn("agent-before")
	turns[originalTask("agent-before")] = modelserver.Turn{Answer: "The original is still here. (answer " + originalTask("agent-before") + ")"}
	return turns
}
