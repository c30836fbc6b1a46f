package agents

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// Qwen Code's own compression, live: three turns with tools, then
// /compress as a user types it. Qwen Code asks the model for a summary and
// writes a chat_compression record holding the history it carries on from.
// compactd serve, watching through a real LSP client, announces it within
// 2 s with what the summary lost; history lists it as a1; restore writes
// the conversation as it was before it, which Qwen Code resumes whole, and
// the original still resumes from its summary.
func TestRealAgentQwenCompression(t *testing.T) {
	enabled(t)
	t.Parallel()
	bin := compactdBin(t)
	a := qwenAgent
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

	lsp := startLSP(t, sb, bin, nil)
	compressions := watchUsage(t, filepath.Join(sb.home, ".qwen", "projects"), func(line []byte) (int, bool) {
		return 1, bytes.Contains(line, []byte(`"subtype":"chat_compression"`))
	})
	id := "new:" + uuid()
	file := ""
	run := func(what, text string) {
		t.Helper()
		seq := lastSeq(srv)
		stdout, stderr, err := a.turn(t, sb, command, id, text)
		if bad := rejectedSince(srv, seq); len(bad) > 0 {
			t.Fatalf("%s: the model server refused the agent's requests:%s", what, describe(bad))
		}
		if err != nil {
			t.Fatalf("%s: %s failed: %v\n--- stdout\n%s\n--- stderr\n%s", what, a.label, err, tail(stdout, 2000), tail(stderr, 3000))
		}
		if file == "" {
			file, id = a.session(t, sb, bin, command, id)
		}
	}
	for _, st := range sessionTurns[:3] {
		run("turn "+st.task, prompt(st.task, st.prompt))
	}
	seq := lastSeq(srv)
	run("/compress", "/compress")
	summaries := 0
	for _, e := range srv.Exchanges() {
		if e.Seq > seq && e.Summary {
			summaries++
		}
	}
	if summaries != 1 {
		t.Fatalf("/compress: %s asked the model for %d summaries, want 1", a.label, summaries)
	}

	at := compressions.nth(t, file, 1, time.Minute)
	note, noteAt := lsp.nthAgentNote(t, file, 1, time.Minute)
	latency := noteAt.Sub(at)
	report("%s compression a1 announced %s after its record reached the file: %s", a.label, latency.Round(time.Millisecond), note.Compaction.Summary)
	t.Logf("compression a1 announced %s after its record reached the file: %s", latency.Round(time.Millisecond), note.Compaction.Summary)
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
	if len(agentLabels) != 1 || agentLabels[0] != "a1" {
		t.Fatalf("compactd history lists the agent's compactions as %v, want [a1]", agentLabels)
	}

	// The conversation before the compression, resumed whole.
	var restored struct {
		Path    string `json:"path"`
		Session string `json:"session"`
	}
	if err := json.Unmarshal([]byte(sb.run(t, time.Minute, bin, "restore", "--json", file, "a1")), &restored); err != nil {
		t.Fatal(err)
	}
	forkID := restored.Session
	if forkID == "" {
		forkID = trimExt(filepath.Base(restored.Path))
	}
	seq = lastSeq(srv)
	stdout, stderr, err := a.turn(t, sb, command, forkID, prompt("resume-agent-before", "Carry on from here."))
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
	for _, st := range sessionTurns[:3] {
		if !req.Contains(modelserver.TaskTag(st.task)) || !req.Contains("(answer "+st.task+")") {
			t.Errorf("the request resuming the conversation before the compression lacks turn %s", st.task)
		}
	}
	if req.Contains(modelserver.SummaryHeading) {
		t.Errorf("the request resuming the conversation before the compression carries the agent's summary")
	}

	// The original resumes from its summary.
	task := originalTask("agent-before")
	seq = lastSeq(srv)
	if _, stderr, err := a.turn(t, sb, command, id, prompt(task, "Are you still there?")); err != nil {
		t.Fatalf("%s could not resume the original after the restored conversation was resumed: %v\n%s", a.label, err, tail(stderr, 3000))
	}
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("%s resumed the original with requests the API would refuse:%s", a.label, describe(bad))
	}
	orig := exchangesOf(srv, task)
	if len(orig) == 0 || !orig[0].Conversation.Contains(modelserver.SummaryHeading) {
		t.Errorf("the original no longer resumes from its summary")
	}
	runAgentActions(t, lsp, note)
}

// trimExt is name without its extension.
func trimExt(name string) string { return name[:len(name)-len(filepath.Ext(name))] }
