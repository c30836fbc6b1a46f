package agents

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// pngBase64 starts every PNG's base64 (its signature): an image block,
// input_image or inlineData holding a PNG holds it.
const pngBase64 = "iVBORw0KGgo"

// handoffResult is `compactd handoff --json`.
type handoffResult struct {
	To      string   `json:"to"`
	Format  string   `json:"format"`
	Path    string   `json:"path"`
	Session string   `json:"session"`
	Resume  string   `json:"resume"`
	Version string   `json:"version"`
	Parent  string   `json:"parent"`
	Mapped  int      `json:"mapped"`
	AsText  int      `json:"asText"`
	Recall  string   `json:"recall"`
	Before  int      `json:"tokensBefore"`
	After   int      `json:"tokensAfter"`
	Notes   []string `json:"notes"`
}

// TestRealAgentHandoff: a session one real agent worked in (a read, then
// a turn that states a fact) is handed off to another with `compactd
// handoff --mcp`, the read's output compacted into a placeholder. The
// other agent resumes the new session offline: its first request must be
// one the API accepts (the model server validates it), carry the kept
// history, and the scripted model answers the question only from the fact
// that request carries; then the model recalls the read's output through
// compactd's MCP server, which must come back byte for byte.
func TestRealAgentHandoff(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	for _, d := range []struct{ from, to recallAgent }{
		{claudeRecall, codexRecall},
		{codexRecall, claudeRecall},
		{claudeRecall, geminiRecall},
		{codexRecall, opencodeRecall},
		{qwenRecall, claudeRecall},
	} {
		t.Run(d.from.name+"-to-"+d.to.name, func(t *testing.T) {
			t.Parallel()
			runHandoff(t, d.from, d.to, bin)
		})
	}
}

func runHandoff(t *testing.T, from, to recallAgent, bin string) {
	fromCmd, fromVersion := installedAgent(t, from.name, from.command)
	toCmd, toVersion := installedAgent(t, to.name, to.command)
	sb := newSandbox(t)
	ledger := filepath.Join(sb.project, "ledger.txt")
	if err := os.WriteFile(ledger, []byte(recallFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	var nonce [4]byte
	rand.Read(nonce[:])
	codename := "heliotrope-" + hex.EncodeToString(nonce[:])
	fact := "The release codename is " + codename + "."
	// A picture the source looks at last (its last turn stays whole):
	// Claude Code reads it, Codex views it, both send it to the model as
	// an image, which must reach the target as one.
	shot := filepath.Join(sb.project, "header.png")
	img := image.NewRGBA(image.Rect(0, 0, 160, 100))
	for x := 0; x < 160; x++ {
		img.Set(x, 20, color.RGBA{R: 200, A: 255})
	}
	var pngBytes bytes.Buffer
	if err := png.Encode(&pngBytes, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, pngBytes.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	look := map[string]modelserver.Action{
		"claude": {Kind: modelserver.Read, Path: shot},
		"codex":  {Kind: modelserver.Named, Tool: "view_image", Args: map[string]any{"path": shot}},
	}
	turns := map[string]modelserver.Turn{
		"read": {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Read, Path: ledger}}}, Answer: "The ledger lists 60 entries. (answer read)"},
		"fact": {Answer: fact + " (answer fact)"},
		"look": {Thinking: thinking, Steps: [][]modelserver.Action{{look[from.name]}}, Answer: "A red line at y=20. (answer look)"},
		"recall": {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.MCP, Server: "compactd", Tool: "recall", ArgsOf: handleNaming("ledger.txt")}}},
			Answer: "I have the ledger back. (answer recall)"},
	}
	// The question is answered from the request alone: the model knows
	// the codename only if the handed-off history carries it.
	script := &modelserver.Script{Turns: turns, Fallback: func(c *modelserver.Conversation) modelserver.Reply {
		if task, _ := c.LatestTask(); task != "question" {
			return modelserver.Reply{Text: "OK."}
		}
		if c.Contains(fact) {
			return modelserver.Reply{Text: "From the earlier session: the codename is " + codename + ". (answer question)"}
		}
		return modelserver.Reply{Text: "I cannot tell: nothing here names it. (answer question)"}
	}}
	srv, err := modelserver.Start(modelserver.Options{Script: script, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	for _, a := range []recallAgent{from, to} {
		a.configure(t, sb, srv)
		a.prepare(t, sb)
	}
	t.Logf("%s %s → %s %s in %s", from.label, fromVersion, to.label, toVersion, sb.root)

	// The source session: a read, then the fact.
	id := from.newID()
	sb.run(t, from.timeout, fromCmd, from.first(sb, id, prompt("read", "Read ledger.txt and tell me what it holds."))...)
	file := from.session(t, sb, id)
	if id == "" {
		id = from.idOf(t, file)
	}
	sb.run(t, from.timeout, fromCmd, from.resume(sb, id, prompt("fact", "What is the release codename?"))...)
	_, looks := look[from.name]
	if looks {
		sb.run(t, from.timeout, fromCmd, from.resume(sb, id, prompt("look", "Look at header.png."))...)
		if ex := exchangesOf(srv, "look"); len(ex) < 2 || !bytes.Contains(ex[len(ex)-1].Body, []byte(pngBase64)) {
			t.Fatalf("%s did not send the picture it looked at as an image", from.label)
		}
	}
	file = from.session(t, sb, id)
	if bad := rejectedSince(srv, 0); len(bad) > 0 {
		t.Fatalf("the model server refused %s's own requests:%s", from.label, describe(bad))
	}
	var original string
	for _, e := range exchangesOf(srv, "read") {
		for _, it := range e.Conversation.Items {
			if it.Kind == modelserver.KindResult && original == "" {
				original = from.original(it)
			}
		}
	}
	if !strings.Contains(original, "last line without newline") {
		t.Fatalf("the read's output as %s sent it does not hold the file: %q", from.label, tail(original, 300))
	}
	before, _ := os.ReadFile(file)

	// The handoff.
	began := time.Now()
	out := sb.run(t, 2*time.Minute, bin, "handoff", "--json", "--to", to.name, "--mcp", "--strategy", "strip-tool-results", file)
	took := time.Since(began)
	var res handoffResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("compactd handoff --json: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatalf("the handoff changed the source %s", file)
	}
	if res.Mapped == 0 || res.Session == "" || !strings.Contains(res.Resume, res.Session) || res.Recall != "installed now" {
		t.Fatalf("handoff result: %+v", res)
	}
	b, err := os.ReadFile(res.Path)
	if err != nil || !handleRE.Match(b) {
		t.Fatalf("the new session %s names no recall handle (%v)", res.Path, err)
	}
	if to.importFork != nil {
		to.importFork(t, sb, toCmd, res.Path)
	}
	report("handoff %s → %s: %d → %d tokens, %d calls mapped, %d as text, in %s; resume: %s", from.label, to.label, res.Before, res.After, res.Mapped, res.AsText, took.Round(10*time.Millisecond), res.Resume)

	// The target resumes it and answers from the handed-off context.
	seq := lastSeq(srv)
	stdout, stderr, err := sb.try(to.timeout, toCmd, append(to.resume(sb, res.Session, prompt("question", "What was the release codename again?")), to.mcpArgs...)...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("%s resumed the handoff with requests the API would refuse:%s", to.label, describe(bad))
	}
	if err != nil {
		t.Fatalf("%s could not resume the handoff %s: %v\n--- stdout\n%s\n--- stderr\n%s", to.label, res.Path, err, tail(stdout, 2000), tail(stderr, 3000))
	}
	ex := exchangesOf(srv, "question")
	if len(ex) == 0 {
		t.Fatalf("%s resumed the handoff but never asked the model", to.label)
	}
	req := ex[0].Conversation
	for _, task := range []string{"read", "fact"} {
		if !req.Contains(modelserver.TaskTag(task)) || !req.Contains("(answer "+task+")") {
			t.Errorf("the request resuming the handoff lacks turn %s of the %s session", task, from.label)
		}
	}
	if !req.Contains(fact) {
		t.Errorf("the request resuming the handoff does not carry the fact")
	}
	if !strings.Contains(stdout, codename) {
		t.Errorf("%s did not answer with the codename from the handed-off session:\n%s", to.label, tail(stdout, 1000))
	}
	// The picture reaches the target as an image (opencode sends images
	// only for a model its configuration says takes them; the suite's
	// does not).
	if looks && to.name != "opencode" && !bytes.Contains(ex[0].Body, []byte(pngBase64)) {
		t.Errorf("the request resuming the handoff does not carry the picture %s looked at as an image", from.label)
	}

	// Recall gives back what the handoff left out, byte for byte.
	seq = lastSeq(srv)
	stdout, stderr, err = sb.try(to.timeout, toCmd, append(to.resume(sb, res.Session, prompt("recall", "Get the ledger back from before the handoff.")), to.mcpArgs...)...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("%s recalled with requests the API would refuse:%s", to.label, describe(bad))
	}
	rx := exchangesOf(srv, "recall")
	if err != nil || len(rx) != 2 {
		t.Fatalf("%s ran %d of the 2 scripted recall requests (err %v)\n--- stdout\n%s\n--- stderr\n%s", to.label, len(rx), err, tail(stdout, 2000), tail(stderr, 2000))
	}
	items := rx[1].Conversation.Items
	var last modelserver.Item
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Kind == modelserver.KindResult {
			last = items[i]
			break
		}
	}
	got, err := to.payload(last)
	if err != nil {
		t.Fatalf("recall's result: %v", err)
	}
	if got != original {
		t.Fatalf("recall's result in %s (%d bytes) is not %s's read output (%d bytes)\n--- got\n%s\n--- want\n%s", to.label, len(got), from.label, len(original), tail(got, 400), tail(original, 400))
	}
	report("handoff %s → %s: resumed and answered from the handed-off context; recall %d bytes byte for byte", from.label, to.label, len(got))
}
