package codex

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// pngDataURL is a small real PNG as a data URL, the way Codex records an
// image a tool returned.
func pngDataURL(t *testing.T, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// rollout writes rollout lines from (type, payload) pairs with the
// standard library, one second apart.
type rollout struct {
	t     *testing.T
	lines [][]byte
}

func (r *rollout) add(typ string, payload any) {
	r.t.Helper()
	line, err := json.Marshal(map[string]any{
		"timestamp": "2026-08-11T09:" + twoDigits(len(r.lines)/60) + ":" + twoDigits(len(r.lines)%60) + ".000Z",
		"type":      typ,
		"payload":   payload,
	})
	if err != nil {
		r.t.Fatal(err)
	}
	r.lines = append(r.lines, line)
}

func (r *rollout) bytes() []byte {
	return append(bytes.Join(r.lines, []byte("\n")), '\n')
}

func twoDigits(n int) string {
	return string([]byte{byte('0' + n/10%10), byte('0' + n%10)})
}

// imageOutputsRollout is a Codex 0.14x rollout whose tools returned
// images: view_image (an output list holding one input_image), an MCP
// screenshot tool (text and an image) and an output that is a single
// content item object rather than a list.
func imageOutputsRollout(t *testing.T) []byte {
	r := &rollout{t: t}
	r.add("session_meta", map[string]any{"id": "019f6a10-2b3c-7d4e-8f50-617283940a1b", "cwd": "/home/dev/site", "originator": "codex-tui",
		"cli_version": "0.145.0", "source": "cli", "model_provider": "openai", "base_instructions": map[string]any{"text": "You are Codex."}})
	r.add("turn_context", map[string]any{"turn_id": "t1", "cwd": "/home/dev/site", "model": "gpt-5.5"})
	r.add("response_item", map[string]any{"type": "message", "role": "user", "content": []any{
		map[string]any{"type": "input_text", "text": "The header overlaps the menu on narrow screens. Look at the screenshots and fix it."}}})
	shot := pngDataURL(t, 64, 48)
	calls := []struct {
		id, name string
		output   any
	}{
		{"call_view1", "view_image", []any{map[string]any{"type": "input_image", "image_url": shot, "detail": "high"}}},
		{"call_mcp2", "mcp__playwright__browser_take_screenshot", []any{
			map[string]any{"type": "input_text", "text": "Took the screenshot of the current page."},
			map[string]any{"type": "input_image", "image_url": shot}}},
		{"call_view3", "view_image", map[string]any{"type": "input_image", "image_url": shot}},
	}
	for _, c := range calls {
		r.add("response_item", map[string]any{"type": "function_call", "name": c.name, "arguments": `{"path":"/home/dev/site/shot.png"}`, "call_id": c.id})
		r.add("response_item", map[string]any{"type": "function_call_output", "call_id": c.id, "output": c.output})
	}
	r.add("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{
		map[string]any{"type": "output_text", "text": "The menu is absolutely positioned under a sticky header; I gave the header a z-index below the menu."}}})
	return r.bytes()
}

// stripImages replaces every image of v with a stand-in, as
// strip-attachments does, and returns how many it replaced.
func stripImages(v *transcript.View) int {
	n := 0
	for i := range v.Messages {
		for j := range v.Messages[i].Parts {
			p := &v.Messages[i].Parts[j]
			if p.Kind != transcript.PartImage {
				continue
			}
			p.Kind, p.Text, p.Changed = transcript.PartText, fmt.Sprintf("[compacted: image %s %dx%d]", p.MIME, p.Width, p.Height), true
			p.MIME, p.Width, p.Height, p.Size = "", 0, 0, 0
			n++
		}
	}
	return n
}

// TestForkImageOutputStandIn: compactd replaces an image a tool returned
// with a one-line stand-in. The fork must keep the output a
// function_call_output of its call, the stand-in in the image's place:
// written as a user message, the output left its call without a result
// (Codex answers such a call "aborted"), and the fork's check refused the
// compaction ("message N: tool call without its result") although the
// call and its output are adjacent lines of the rollout.
func TestForkImageOutputStandIn(t *testing.T) {
	tr, err := Codec{}.Parse(imageOutputsRollout(t))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	if standIns := stripImages(v); standIns != 3 {
		t.Fatalf("the rollout decodes to %d images in tool outputs, want 3", standIns)
	}
	out, err := Codec{}.Fork(v, forkOpts)
	if err != nil {
		t.Fatal(err)
	}
	re, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("image/png;base64")) {
		t.Errorf("a stripped image is still in the fork")
	}
	results := map[string]string{}
	for _, m := range re.Messages {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolResult {
				results[p.ToolCallID] = p.Text
			}
			if p.Kind == transcript.PartText && m.Role == transcript.RoleUser && strings.Contains(p.Text, "[compacted: image") {
				t.Errorf("a tool output became a user message: %q", p.Text)
			}
		}
	}
	for _, id := range []string{"call_view1", "call_mcp2", "call_view3"} {
		text, ok := results[id]
		if !ok {
			t.Errorf("%s has no result in the fork:\n%s", id, out)
			continue
		}
		if !strings.Contains(text, "[compacted: image image/png 64x48]") {
			t.Errorf("%s's result %q lost the stand-in", id, text)
		}
	}
	if !strings.Contains(results["call_mcp2"], "Took the screenshot of the current page.") {
		t.Errorf("the screenshot tool's text went with its image: %q", results["call_mcp2"])
	}
	// Every output item is a content list Codex reads: input_text blocks.
	for l := range bytes.Lines(out) {
		var line struct {
			Payload struct {
				Type   string          `json:"type"`
				Output json.RawMessage `json:"output"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatal(err)
		}
		if line.Payload.Type != "function_call_output" {
			continue
		}
		var items []struct{ Type, Text string }
		if err := json.Unmarshal(line.Payload.Output, &items); err != nil {
			t.Errorf("output %s is not a content list: %v", line.Payload.Output, err)
		}
		for _, it := range items {
			if it.Type != "input_text" || it.Text == "" {
				t.Errorf("output block %+v, want a non-empty input_text", it)
			}
		}
	}
}

// A text stand-in for an image in a user message takes the image block's
// place; the message's other blocks stay byte for byte.
func TestForkMessageImageStandIn(t *testing.T) {
	r := &rollout{t: t}
	r.add("session_meta", map[string]any{"id": "019f6a10-2b3c-7d4e-8f50-617283940a1c", "cwd": "/w", "cli_version": "0.145.0"})
	r.add("response_item", map[string]any{"type": "message", "role": "user", "content": []any{
		map[string]any{"type": "input_text", "text": "Why does this render like that?"},
		map[string]any{"type": "input_image", "image_url": pngDataURL(t, 8, 8)},
		map[string]any{"type": "input_text", "text": "It is the checkout page."}}})
	tr, err := Codec{}.Parse(r.bytes())
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	p := &v.Messages[0].Parts[1]
	p.Kind, p.Text, p.Changed = transcript.PartText, "[compacted: image image/png 8x8]", true
	p.MIME, p.Width, p.Height, p.Size = "", 0, 0, 0
	out, _ := reparse(t, v, nil)
	var source, fork struct {
		Payload struct {
			Content []json.RawMessage `json:"content"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(r.lines[1], &source); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bytes.Split(out, []byte("\n"))[1], &fork); err != nil {
		t.Fatal(err)
	}
	c := fork.Payload.Content
	if len(c) != 3 || !bytes.Equal(c[0], source.Payload.Content[0]) || !bytes.Equal(c[2], source.Payload.Content[2]) {
		t.Fatalf("fork's content %s, want the source's text blocks around the stand-in", c)
	}
	var standIn struct{ Type, Text string }
	if err := json.Unmarshal(c[1], &standIn); err != nil || standIn.Type != "input_text" || standIn.Text != "[compacted: image image/png 8x8]" {
		t.Errorf("stand-in block %s, want an input_text block with the stand-in (%v)", c[1], err)
	}
}

// The same on a rollout Codex 0.169 wrote: view_image's output, its image
// replaced, stays the call's result, and its id and call_id stay.
func TestForkViewImageV0169(t *testing.T) {
	tr, err := Codec{}.Parse(formattest.Fixture(t, "v0.169-view-image.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewView(tr)
	if n := stripImages(v); n != 1 {
		t.Fatalf("%d images, want view_image's one", n)
	}
	out, err := Codec{}.Fork(v, forkOpts)
	if err != nil {
		t.Fatal(err)
	}
	re, err := Codec{}.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	var result *transcript.Part
	for i := range re.Messages {
		for j := range re.Messages[i].Parts {
			if p := &re.Messages[i].Parts[j]; p.Kind == transcript.PartToolResult && p.ToolCallID == "call_000000000001e2e" {
				result = p
			}
		}
	}
	if result == nil || result.Text != "[compacted: image image/png 320x200]" || result.ToolName != "view_image" {
		t.Fatalf("view_image's result in the fork: %+v", result)
	}
	if !bytes.Contains(out, []byte(`"id":"fco_01a215f9-a4fc-7393-8cf4-23686a6d9b58","call_id":"call_000000000001e2e","output":[{"type":"input_text","text":"[compacted: image image/png 320x200]"}]`)) {
		t.Errorf("the output item lost its id, its call_id or its place:\n%s", out)
	}
}

// What is left of a tool output without its result — its call and result
// cut, an image or its stand-in kept — is no longer the output of any call:
// the fork writes it as a user message, not as the output again (a result
// without its call, which the API refuses).
func TestForkOutputWithoutItsResult(t *testing.T) {
	for _, strip := range []bool{false, true} {
		tr, err := Codec{}.Parse(imageOutputsRollout(t))
		if err != nil {
			t.Fatal(err)
		}
		v := transcript.NewView(tr)
		if strip {
			stripImages(v)
		}
		// Cut the screenshot tool's call and result, keep its image.
		var msgs []transcript.Message
		for _, m := range v.Messages {
			var parts []transcript.Part
			for _, p := range m.Parts {
				if p.ToolCallID != "call_mcp2" {
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				m.Parts = parts
				msgs = append(msgs, m)
			}
		}
		v.Messages = msgs
		out, err := Codec{}.Fork(v, forkOpts)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out, []byte(`"call_mcp2"`)) {
			t.Errorf("strip=%v: the cut call's output is still in the fork:\n%s", strip, out)
		}
		re, err := Codec{}.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range re.Messages {
			if m.Role != transcript.RoleUser || len(m.Parts) != 1 {
				continue
			}
			p := m.Parts[0]
			if strip && p.Kind == transcript.PartText && p.Text == "[compacted: image image/png 64x48]" || !strip && p.Kind == transcript.PartImage && p.Width == 64 {
				found = true
			}
		}
		if !found {
			t.Errorf("strip=%v: the kept image is not a user message of the fork:\n%s", strip, out)
		}
	}
}
