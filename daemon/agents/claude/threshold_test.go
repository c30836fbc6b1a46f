package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/compactd/compactd/daemon/agents"
)

// TestThresholdHoldsToRealCompactions holds compactd's mark to Claude Code's
// own compactions in real sessions against the real API (testdata), each
// read with the session's recorded version and model and no settings (the
// users' are not known). Where the agent compacted (preTokens) bounds the
// mark from above for every compaction: the agent never compacts before
// its point, and the mark may not be past it by more than 2 % of the
// window. Where the step into the compaction is small and the request
// before it was still below the mark — the agent compacted at its first
// check past the mark, not mid-turn later — the mark must be within 2 %
// of the window of it. Versions 2.1.17 and older compacted some 12k
// earlier than later ones: the reader takes the version into account.
func TestThresholdHoldsToRealCompactions(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "real-compactions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Compactions []struct {
			Split, Session, Version, Model string
			PreTokens                      int `json:"preTokens"`
			LastPrompt                     int `json:"lastPrompt"`
		} `json:"compactions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	held := map[string]int{}
	for _, c := range doc.Compactions {
		window := 200_000
		if c.PreTokens > window {
			window = 1_000_000
		}
		ac := threshold(agents.Query{Model: c.Model, Window: window, WindowSource: "registry", AgentVersion: c.Version})
		tolerance := window / 50
		if ac.At > c.PreTokens+tolerance {
			t.Errorf("%s (%s, Claude Code %s): compacted at %d; compactd marks %d, past it by more than 2 %% of the %d window (%s)",
				c.Session, c.Model, c.Version, c.PreTokens, ac.At, window, ac.Rule)
		}
		if c.LastPrompt >= ac.At || c.PreTokens-c.LastPrompt > tolerance {
			continue // past the mark before its last request, or a large step into the compaction
		}
		held[c.Split]++
		if d := c.PreTokens - ac.At; d > tolerance || -d > tolerance {
			t.Errorf("%s (%s, Claude Code %s): compacted at %d after a request of %d; compactd marks %d, %d off (bar: 2 %% of the %d window; %s)",
				c.Session, c.Model, c.Version, c.PreTokens, c.LastPrompt, ac.At, d, window, ac.Rule)
		}
	}
	if held["tune"] == 0 || held["validate"] == 0 {
		t.Fatalf("compactions held to the two-sided bar: %v; the data must give both halves some", held)
	}
	t.Logf("compactions held to the two-sided bar: %v of %d", held, len(doc.Compactions))
}
