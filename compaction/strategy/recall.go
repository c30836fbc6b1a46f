package strategy

import (
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/transcript"
)

// recallable adds to a placeholder the recall handle of the original it
// stands for (Options.Recall); without one it is returned as it is.
func (r *run) recallable(placeholder, original string) string {
	if r.opts.Recall == nil {
		return placeholder
	}
	return recall.Placeholder(placeholder, r.opts.Recall(original))
}

// original is what a stripped part held: its text, or for an image or a
// document (whose bytes the model part does not carry) the source record
// that held it.
func (r *run) original(p *transcript.Part) string {
	if p.Kind == transcript.PartImage || p.Kind == transcript.PartDocument {
		if k := p.Ref.Record; k >= 0 && k < len(r.src.Records) {
			return string(r.src.Records[k].Raw)
		}
	}
	return p.Text
}

// recallSpan is the handle of source messages [from, to) rendered whole,
// "" without Options.Recall.
func (r *run) recallSpan(from, to int) string {
	if r.opts.Recall == nil || from >= to {
		return ""
	}
	return r.opts.Recall(recall.Messages(r.src.Messages[from:to]))
}

// recallMessages is the handle of the source messages at indexes idx
// (increasing), "" without Options.Recall.
func (r *run) recallMessages(idx []int) string {
	if r.opts.Recall == nil || len(idx) == 0 {
		return ""
	}
	msgs := make([]transcript.Message, len(idx))
	for k, i := range idx {
		msgs[k] = r.src.Messages[i]
	}
	return r.opts.Recall(recall.Messages(msgs))
}
