package jobs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/llm"
)

// Asking before removing tangents takes two calls. A dry run (or a run
// without confirmation) with classify-tangents in the pipeline lists what
// the model found in Result.Tangents, removing nothing; the caller shows
// them and asks (the editor with window/showMessageRequest, the CLI with
// flags); a second Compact with Request.ConfirmedTangents set to the
// approved Tangent.Turn numbers removes those turns whole. The model is
// asked again then, and a confirmed turn it no longer names stays, with a
// note: a confirmation approves a removal, it never makes one up.

// PendingTangents are the tangents listed but not removed: what to ask
// the user about.
func (res *Result) PendingTangents() []strategy.Tangent {
	var out []strategy.Tangent
	for _, t := range res.Tangents {
		if !t.Removed {
			out = append(out, t)
		}
	}
	return out
}

// tangentOptions completes opts for classify-tangents: the request's
// confirmations, and a classifier backed by the [summarize] model when the
// pipeline has the step and the caller set none. No model configured
// leaves the classifier nil, and the step notes why; nothing goes out.
func (r *Runner) tangentOptions(opts *strategy.Options, req Request) error {
	if len(req.ConfirmedTangents) > 0 {
		opts.ConfirmedTangents = append(slices.Clone(opts.ConfirmedTangents), req.ConfirmedTangents...)
	}
	opts.ConfirmAllTangents = opts.ConfirmAllTangents || req.ConfirmAllTangents
	if opts.Tangents != nil || !slices.Contains(opts.Strategies, strategy.StrategyClassifyTangents) {
		return nil
	}
	cfg := req.Summarize
	if strings.TrimSpace(cfg.Model) == "" || cfg.Provider == "extractive" || cfg.Provider == "notes" {
		return nil
	}
	model, err := llm.New(LLMConfig(cfg), r.LLMOptions...)
	if err != nil {
		return fmt.Errorf("tangent-classifying model: %w", err)
	}
	opts.Tangents = &strategy.ModelClassifier{Model: model}
	return nil
}

// renderTangents is the dry-run report's tangent section.
func renderTangents(b *strings.Builder, tangents []strategy.Tangent) {
	if len(tangents) == 0 {
		return
	}
	b.WriteString("\n## Tangents\n\n")
	b.WriteString("The model judged these turns unrelated to the current task. A turn is removed, whole, only once you confirm it ")
	b.WriteString("(`compactd compact --strategy classify-tangents --remove-tangent N`, or `--remove-tangents` for all of them).\n\n")
	b.WriteString("| Turn | Tokens | Prompt | |\n|---:|---:|---|---|\n")
	for _, t := range tangents {
		state := "kept: not confirmed"
		if t.Removed {
			state = "removed"
		}
		fmt.Fprintf(b, "| %d | %d | %s | %s |\n", t.Turn, t.Tokens, markdownCell(t.Preview), state)
	}
}

// markdownCell keeps a preview inside its table cell.
func markdownCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
