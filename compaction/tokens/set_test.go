package tokens

import (
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

// TestCounterSet: one counter per encoding and image pricing, shared by
// models of the same kind, each pricing images by its provider's rule.
func TestCounterSet(t *testing.T) {
	s := NewCounterSet(WithCache(NewMemoryCache(0)))
	sonnet, err := s.For(Model{Encoding: O200kBase, Provider: ProviderAnthropic})
	if err != nil {
		t.Fatal(err)
	}
	opus, _ := s.For(Model{Encoding: O200kBase, Provider: ProviderAnthropic})
	gpt, _ := s.For(Model{Encoding: O200kBase, Provider: ProviderOpenAI})
	old, _ := s.For(Model{Encoding: CL100kBase, Provider: ProviderOpenAI})
	if sonnet != opus {
		t.Error("two Anthropic models got two counters")
	}
	ids := map[string]bool{sonnet.ID(): true, gpt.ID(): true, old.ID(): true}
	if len(ids) != 3 || gpt.ID() != O200kBase {
		t.Errorf("IDs %v: want three, OpenAI pricing keyed by the bare encoding", ids)
	}
	shot := &transcript.Part{Kind: transcript.PartImage, Width: 1200, Height: 900}
	if a, o := sonnet.Part(shot), gpt.Part(shot); a != 1440 || o != 765 {
		t.Errorf("a 1200×900 image: Anthropic %d (want 1440), OpenAI %d (want 765)", a, o)
	}
	sonnet.Text("counted once with the Anthropic counter")
	gpt.Text("and once with the OpenAI one")
	if st := s.Stats(); st.Texts != 2 {
		t.Errorf("set stats count %d texts, want 2", st.Texts)
	}
	if _, err := s.For(Model{Encoding: "no_such_encoding"}); err == nil {
		t.Error("an unknown encoding gave a counter")
	}
}
