package strategy

import (
	"fmt"
	"sort"
	"strings"
)

// Strategy names.
const (
	StrategyAuto             = "auto"
	StrategyStripReasoning   = "strip-reasoning"
	StrategyStripToolResults = "strip-tool-results"
	StrategyDedupTools       = "dedup-tools"
	StrategyStripAttachments = "strip-attachments"
	StrategyPruneTools       = "prune-tools"
	StrategySlidingWindow    = "sliding-window"
	StrategyTurnWindow       = "turn-window"
	StrategyTokenBudget      = "token-budget"
	StrategySummarize        = "summarize"
	// StrategyExtractive and StrategyNotes are summarizing strategies whose
	// Summarizer the caller supplies (compaction/summarize builds them); the
	// pipeline runs them exactly like summarize.
	StrategyExtractive = "extractive"
	StrategyNotes      = "notes"
	// StrategyClassifyTangents asks Options.Tangents which turns are
	// unrelated to the current task; it lists them and removes only the
	// confirmed ones.
	StrategyClassifyTangents = "classify-tangents"
)

// autoPipeline is auto's mechanical order: cheap, lossless-ish steps first
// so later ones see less; dedup before stripping so a superseded read is
// removed whole rather than stripped and then removed.
var autoPipeline = []string{
	StrategyStripReasoning,
	StrategyPruneTools,
	StrategyDedupTools,
	StrategyStripToolResults,
	StrategyStripAttachments,
}

// Names lists the valid strategy names, sorted.
func Names() []string {
	names := []string{
		StrategyAuto, StrategyStripReasoning, StrategyStripToolResults, StrategyDedupTools,
		StrategyStripAttachments, StrategyPruneTools, StrategySlidingWindow, StrategyTurnWindow,
		StrategyTokenBudget, StrategySummarize, StrategyExtractive, StrategyNotes,
		StrategyClassifyTangents,
	}
	sort.Strings(names)
	return names
}

// ValidateStrategies returns a one-sentence error naming the first unknown
// strategy and listing the valid ones.
func ValidateStrategies(names []string) error {
	_, err := expandStrategies(names)
	return err
}

func expandStrategies(names []string) ([]string, error) {
	if len(names) == 0 {
		return []string{StrategyAuto}, nil
	}
	valid := Names()
	out := make([]string, 0, len(names))
	for _, n := range names {
		n = strings.TrimSpace(n)
		i := sort.SearchStrings(valid, n)
		if i == len(valid) || valid[i] != n {
			return nil, fmt.Errorf("unknown strategy %q (valid: %s)", n, strings.Join(valid, ", "))
		}
		out = append(out, n)
	}
	return out, nil
}
