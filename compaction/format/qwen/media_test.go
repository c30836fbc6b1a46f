package qwen

import (
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// A stripped image leaves a text part in its place (same Ref, Changed):
// the fork writes a text Part, not the image (a Part carries one data
// field; the image's would stay and the compaction would save nothing).
func TestForkReplacesStrippedImage(t *testing.T) {
	src := []byte(`{"uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-23T20:00:00.000Z","type":"user","cwd":"/w","message":{"role":"user","parts":[{"text":"What is in this screenshot?"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}}
{"uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-11-23T20:00:05.000Z","type":"assistant","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"text":"A terminal."}]}}
`)
	tr := formattest.RoundTrip(t, Codec{}, "image", src)
	if p := tr.Messages[0].Parts[1]; p.Kind != transcript.PartImage {
		t.Fatalf("second part %+v, want the image", p)
	}
	v := transcript.NewView(tr)
	img := &v.Messages[0].Parts[1]
	img.Kind, img.Text, img.Changed = transcript.PartText, "[image removed]", true
	_, back := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "fork-0001"})
	formattest.SameLines(t, formattest.Lines(back.Messages), formattest.ViewLines(v))
}
