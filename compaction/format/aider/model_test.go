package aider

import (
	"os"
	"testing"

	"github.com/compactd/compactd/compaction/gauge"
)

// TestMainModelLineSetsModel: Aider since v0.83 (with a weak model that
// differs from the main one) announces "> Main model: … with … edit
// format"; that names the model, and with it the window, instead of the
// gpt-4o / 128k fallback.
func TestMainModelLineSetsModel(t *testing.T) {
	src, err := os.ReadFile("testdata/v0.83-main-model.aider.chat.history.md")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Codec{}.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if want := "anthropic/claude-sonnet-4-20250514"; tr.Meta.Model != want {
		t.Fatalf("model = %q, want %q (the weak model and the fallback must not win)", tr.Meta.Model, want)
	}
	r := gauge.Resolve(tr, gauge.Options{})
	if r.ContextWindow != 200_000 || r.WindowSource != "registry" {
		t.Fatalf("window = %d from %s, want 200,000 from the registry", r.ContextWindow, r.WindowSource)
	}
}
