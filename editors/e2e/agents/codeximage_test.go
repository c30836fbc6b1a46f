package agents

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// TestRealAgentCodexImageOutput: Codex's view_image answers with the
// image in its function_call_output; compactd replaces it with a one-line
// stand-in. The fork must keep that output the call's result — written as
// a user message it left the call without one, which Codex answers
// "aborted" (issue 23, item 2) — and Codex 0.169 must resume the fork and
// send the call with the stand-in as its output, in a request the server
// accepts; the original still resumes with its image.
func TestRealAgentCodexImageOutput(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	command, version := installedAgent(t, codex.name, codex.command)
	sb := newSandbox(t)
	shot := filepath.Join(sb.project, "narrow.png")
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for x := 0; x < 320; x++ {
		img.Set(x, 40, color.RGBA{R: 200, A: 255}) // the header's edge
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	turns := map[string]modelserver.Turn{
		"look": {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Named, Tool: "view_image", Args: map[string]any{"path": shot}}}},
			Answer: "The header's bottom edge sits at y=40 and covers the menu. (answer look)"},
		"ask":      {Answer: "Lower the header's z-index below the menu's. (answer ask)"},
		"resumed":  resumeTurn("image"),
		"original": {Answer: "The original carries on. (answer original)"},
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	codex.configure(t, sb, srv)
	t.Logf("Codex CLI %s in %s", version, sb.root)

	sb.run(t, codex.timeout, command, codex.first(sb, "", prompt("look", "Look at narrow.png: why does the header cover the menu?"))...)
	file := codex.session(t, sb, "")
	id := codex.idOf(t, file)
	sb.run(t, codex.timeout, command, codex.resume(sb, id, prompt("ask", "What should I change?"))...)
	if bad := rejectedSince(srv, 0); len(bad) > 0 {
		t.Fatalf("the model server refused Codex's own requests:%s", describe(bad))
	}
	callID := imageCall(t, file)

	res := sb.compact(t, bin, "--strategy", "strip-attachments", file)
	forkID := codex.idOf(t, res.ForkPath)
	seq := lastSeq(srv)
	sb.run(t, codex.timeout, command, codex.resume(sb, forkID, prompt("resumed", "Carry on."))...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("the model server refused the resumed fork's requests:%s", describe(bad))
	}
	ex := exchangesOf(srv, "resumed")
	if len(ex) == 0 {
		t.Fatalf("Codex sent no request for the resumed fork")
	}
	result, ok := resultOf(ex[0].Conversation, callID)
	if !ok {
		t.Fatalf("the resumed fork's request has no output for the view_image call %s", callID)
	}
	if !strings.Contains(result.Text, "[compacted: image") || strings.Contains(result.Text, "aborted") {
		t.Errorf("the view_image call's output in the resumed fork is %q, want compactd's stand-in", result.Text)
	}
	report("Codex CLI %s: view_image output %q after strip-attachments, resumed", version, result.Text)

	// The original still resumes with its image.
	seq = lastSeq(srv)
	sb.run(t, codex.timeout, command, codex.resume(sb, id, prompt("original", "And the original?"))...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("the model server refused the original's requests:%s", describe(bad))
	}
	orig := exchangesOf(srv, "original")
	if len(orig) == 0 {
		t.Fatalf("Codex sent no request for the original")
	}
	if r, ok := resultOf(orig[0].Conversation, callID); !ok || strings.Contains(r.Text, "[compacted: image") {
		t.Errorf("the original's view_image output is %+v (found %v), want the image", r, ok)
	}
}

// imageCall returns the call id of the rollout's view_image call, checking
// that Codex recorded the image in its output.
func imageCall(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]bool{}
	for l := range bytes.Lines(data) {
		var line struct {
			Type    string `json:"type"`
			Payload struct {
				Type   string          `json:"type"`
				Name   string          `json:"name"`
				CallID string          `json:"call_id"`
				Output json.RawMessage `json:"output"`
			} `json:"payload"`
		}
		if json.Unmarshal(l, &line) != nil || line.Type != "response_item" {
			continue
		}
		p := line.Payload
		switch {
		case p.Type == "function_call" && p.Name == "view_image":
			calls[p.CallID] = true
		case p.Type == "function_call_output" && calls[p.CallID]:
			if !bytes.Contains(p.Output, []byte(`"input_image"`)) {
				t.Fatalf("Codex recorded view_image's output without an image: %s", p.Output)
			}
			return p.CallID
		}
	}
	t.Fatalf("%s has no view_image call with its output", path)
	return ""
}

func resultOf(c *modelserver.Conversation, callID string) (modelserver.Item, bool) {
	if c == nil {
		return modelserver.Item{}, false
	}
	for _, it := range c.Items {
		if it.Kind == modelserver.KindResult && it.CallID == callID {
			return it, true
		}
	}
	return modelserver.Item{}, false
}
