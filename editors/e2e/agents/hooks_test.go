package agents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// hookSession runs the two turns every hook test starts from — a read of
// the ledger, then a question — and returns the session's id and file.
func hookSession(t *testing.T, sb *sandbox, srv *modelserver.Server, command string) (id, file string) {
	t.Helper()
	id = claude.newID()
	sb.run(t, claude.timeout, command, claude.first(sb, id, prompt("read", "Read ledger.txt and tell me what it holds."))...)
	sb.run(t, claude.timeout, command, claude.resume(sb, id, prompt("ask", "Anything else?"))...)
	if bad := rejectedSince(srv, 0); len(bad) > 0 {
		t.Fatalf("the model server refused the agent's own requests:%s", describe(bad))
	}
	return id, claude.session(t, sb, id)
}

func hookSandbox(t *testing.T) (*sandbox, *modelserver.Server, string, string) {
	t.Helper()
	command, version := installedAgent(t, claude.name, claude.command)
	sb := newSandbox(t)
	ledger := filepath.Join(sb.project, "ledger.txt")
	if err := os.WriteFile(ledger, []byte(recallFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	turns := map[string]modelserver.Turn{
		"read":   {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Read, Path: ledger}}}, Answer: "The ledger lists 60 entries. (answer read)"},
		"ask":    {Thinking: thinking, Answer: "Nothing else to add. (answer ask)"},
		"after":  {Thinking: thinking, Answer: "Carrying on. (answer after)"},
		"resume": resumeTurn("pre-compaction"),
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	claude.configure(t, sb, srv)
	t.Logf("Claude Code %s in %s", version, sb.root)
	return sb, srv, command, version
}

// TestRealAgentPreCompactHook: with `compactd hooks install claude`,
// Claude Code's /compact runs compactd's PreCompact hook, which records the
// conversation as it was before; that version, restored, is a session
// Claude Code resumes with the turns the compaction summarized.
func TestRealAgentPreCompactHook(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	sb, srv, command, version := hookSandbox(t)
	settings := filepath.Join(sb.getenv("CLAUDE_CONFIG_DIR"), "settings.json")
	writeJSONFile(t, settings, map[string]any{"theme": "dark", "permissions": map[string]any{"allow": []string{"Bash(ls:*)"}}})
	orig, _ := os.ReadFile(settings)
	sb.run(t, time.Minute, bin, "hooks", "install", "claude")

	_, file := hookSession(t, sb, srv, command)
	seq := lastSeq(srv)
	sb.run(t, claude.timeout, command, claude.resume(sb, claude.idOf(t, file), "/compact")...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("/compact: the model server refused the agent's requests:%s", describe(bad))
	}
	summaries := 0
	for _, e := range srv.Exchanges() {
		if e.Seq > seq && e.Summary {
			summaries++
		}
	}
	if summaries != 1 {
		t.Fatalf("/compact asked the model for %d summaries; Claude Code compacts itself here", summaries)
	}

	// The hook recorded the session as it was before the compaction: a
	// source version (Claude Code appends the /compact command's rows
	// before its hooks run), which holds no compact_boundary.
	var hist struct {
		Versions []struct {
			Label string `json:"version"`
			Kind  string `json:"kind"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(sb.run(t, time.Minute, bin, "history", "--json", file)), &hist); err != nil {
		t.Fatal(err)
	}
	label := ""
	for _, v := range hist.Versions {
		if v.Kind == "source" {
			label = v.Label
		}
	}
	if label == "" {
		t.Fatalf("no stored version of the session (history: %+v)", hist.Versions)
	}
	// Restored, it is a session Claude Code resumes: the request carries
	// the read the compaction summarized, and no summary.
	r := sb.restore(t, bin, file, label)
	restored, err := os.ReadFile(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(restored, []byte(`"subtype":"compact_boundary"`)) || !bytes.Contains(restored, []byte("last line without newline")) || !bytes.Contains(restored, []byte("(answer ask)")) {
		t.Fatalf("%s restores a session that is not the one from before /compact", label)
	}
	seq = lastSeq(srv)
	sb.run(t, claude.timeout, command, claude.resume(sb, claude.idOf(t, r.Path), prompt("resume", "Go on from here."))...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("the restored pre-compaction session: the model server refused the agent's requests:%s", describe(bad))
	}
	ex := exchangesOf(srv, "resume")
	if len(ex) == 0 {
		t.Fatal("the restored session sent no request")
	}
	req := ex[0].Conversation
	if !req.Contains("last line without newline") || req.Contains(modelserver.SummaryHeading) || !req.Contains("(answer ask)") {
		t.Fatalf("the restored session's request does not carry the conversation from before the compaction (the read: %v, the summary: %v)",
			req.Contains("last line without newline"), req.Contains(modelserver.SummaryHeading))
	}
	report("Claude Code %s: PreCompact recorded %s before /compact; restored, it resumed with the %d-byte read the compaction summarized", version, label, len(recallFile()))

	// Uninstalling gives the settings back byte for byte.
	sb.run(t, time.Minute, bin, "hooks", "uninstall", "claude")
	if now, _ := os.ReadFile(settings); !bytes.Equal(now, orig) {
		t.Fatalf("settings.json after install and uninstall:\n%s\nwant\n%s", now, orig)
	}
}

// TestRealAgentCompactionHook: with `compactd hooks install claude
// --compaction`, Claude Code's /compact is compactd's: the session.compact
// function hook answers with compactd's summary, Claude Code asks the model
// for none, and the next turn's request carries compactd's summary, in the
// same session (no fork, no resume of another file). The summary's recall
// handle gives back the turns it stands for.
func TestRealAgentCompactionHook(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	sb, srv, command, version := hookSandbox(t)
	sb.run(t, time.Minute, bin, "hooks", "install", "claude", "--compaction")

	id, file := hookSession(t, sb, srv, command)
	seq := lastSeq(srv)
	out := sb.run(t, claude.timeout, command, claude.resume(sb, id, "/compact keep the ledger's last line")...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("/compact: the model server refused the agent's requests:%s", describe(bad))
	}
	for _, e := range srv.Exchanges() {
		if e.Seq > seq && e.Summary {
			t.Fatalf("/compact asked the model for a summary (request #%d): compactd's hook did not stand in for Claude Code's compaction\n%s", e.Seq, tail(out, 2000))
		}
	}
	const heading = "summarized by compactd in place of the agent's own compaction"
	b, _ := os.ReadFile(file)
	if !bytes.Contains(b, []byte(`"subtype":"compact_boundary"`)) || !bytes.Contains(b, []byte(heading)) {
		t.Fatalf("the session file has no compact_boundary followed by compactd's summary\n%s", tail(out, 2000))
	}

	// The next turn, in the same session, carries compactd's summary.
	seq = lastSeq(srv)
	sb.run(t, claude.timeout, command, claude.resume(sb, id, prompt("after", "Carry on."))...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("the turn after compactd's compaction: the model server refused the agent's requests:%s", describe(bad))
	}
	ex := exchangesOf(srv, "after")
	if len(ex) == 0 {
		t.Fatal("the turn after the compaction sent no request")
	}
	req := ex[0].Conversation
	if !req.Contains(heading) || !req.Contains("keep the ledger's last line") {
		t.Fatal("the next request does not carry compactd's summary")
	}
	if req.Contains("last line without newline") {
		t.Fatal("the next request still carries the read the summary replaced")
	}
	if got := claude.session(t, sb, id); got != file {
		t.Fatalf("the turn went to %s, not the session %s", got, file)
	}
	var handle string
	for _, s := range req.Texts("") {
		if m := handleRE.FindStringSubmatch(s); m != nil && strings.Contains(s, heading) {
			handle = m[1]
		}
	}
	if handle == "" {
		t.Fatal("compactd's summary names no recall handle")
	}
	got := sb.run(t, time.Minute, bin, "recall", handle)
	if !strings.Contains(got, "last line without newline") {
		t.Fatalf("recall %s does not give back the read the summary stands for:\n%s", handle, tail(got, 500))
	}
	report("Claude Code %s: /compact ran compactd's session.compact hook (no summary request); the next request carried compactd's summary in the same session; recall %s gave back the turns it replaced", version, handle)
}

// sha256Hex is a file's content hash as the store names it.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestRealAgentOpencodeCompactingHook: with `compactd hooks install
// opencode`, opencode's compaction (its compact command) runs compactd's
// plugin hook, which records the session as it was before; restored and
// imported, that version is a session opencode resumes with the read the
// compaction summarized.
func TestRealAgentOpencodeCompactingHook(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	command, version := installedAgent(t, "opencode", "opencode")
	sb := newSandbox(t)
	ledger := filepath.Join(sb.project, "ledger.txt")
	if err := os.WriteFile(ledger, []byte(recallFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Eight reads of the ledger fill the small window set below: opencode
	// compacts on its own after the step that passes its threshold.
	var reads [][]modelserver.Action
	for i := 0; i < 8; i++ {
		reads = append(reads, []modelserver.Action{{Kind: modelserver.Read, Path: ledger}})
	}
	turns := map[string]modelserver.Turn{
		"read":   {Steps: reads, Answer: "The ledger lists 60 entries. (answer read)"},
		"resume": {Answer: "Resumed. (answer resume)"},
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	oc := opencodeRecall
	oc.configure(t, sb, srv)
	// A 25k window: opencode compacts past 25,000 − 8,192 output tokens.
	cfg := filepath.Join(sb.getenv("XDG_CONFIG_HOME"), "opencode", "opencode.json")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, bytes.Replace(b, []byte(`"context":262144`), []byte(`"context":25000`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("opencode %s in %s", version, sb.root)
	sb.run(t, time.Minute, bin, "hooks", "install", "opencode")

	out, errOut, err := sb.try(oc.timeout, command, oc.first(sb, "", prompt("read", "Read ledger.txt eight times."))...)
	if err != nil {
		t.Fatalf("opencode: %v\n%s\n%s", err, tail(out, 2000), tail(errOut, 2000))
	}
	if bad := rejectedSince(srv, 0); len(bad) > 0 {
		t.Fatalf("the model server refused opencode's requests:%s", describe(bad))
	}
	file := oc.session(t, sb, "")
	compactionPart := regexp.MustCompile(`"type":\s*"compaction"`)
	if now, _ := os.ReadFile(file); !compactionPart.Match(now) {
		t.Fatalf("opencode did not compact the session\n%s", tail(out, 2000))
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
	label := ""
	for _, v := range hist.Versions {
		if v.Kind == "source" {
			label = v.Label
		}
	}
	if label == "" {
		t.Fatalf("no stored version of the session before opencode compacted it (history %+v)\n%s\n%s", hist.Versions, tail(out, 1000), tail(errOut, 1000))
	}
	r := sb.restore(t, bin, file, label)
	restored, err := os.ReadFile(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if compactionPart.Match(restored) || !bytes.Contains(restored, []byte("last line without newline")) {
		t.Fatalf("%s restores a session that is not the one from before the compaction", label)
	}
	// Imported, it is a session opencode resumes with the reads the
	// compaction summarized, and no summary.
	var head struct {
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
	}
	if err := json.Unmarshal(restored, &head); err != nil || head.Info.ID == "" {
		t.Fatalf("the restored session names no id: %v", err)
	}
	sb.run(t, time.Minute, command, "import", r.Path)
	// The window back to its size: the restored session is over the small
	// one, and opencode would compact it again before the prompt.
	now, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, bytes.Replace(now, []byte(`"context":25000`), []byte(`"context":262144`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	seq := lastSeq(srv)
	sb.run(t, oc.timeout, command, oc.resume(sb, head.Info.ID, prompt("resume", "Go on."))...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("the restored session: the model server refused opencode's requests:%s", describe(bad))
	}
	ex := exchangesOf(srv, "resume")
	if len(ex) == 0 || !ex[0].Conversation.Contains("last line without newline") || ex[0].Conversation.Contains("What did we do so far?") {
		t.Fatal("the restored session's request does not carry the conversation from before the compaction")
	}
	report("opencode %s: its compaction ran compactd's plugin hook, which recorded %s before it; restored and imported, opencode resumed it", version, label)
	sb.run(t, time.Minute, bin, "hooks", "uninstall", "opencode")
}
