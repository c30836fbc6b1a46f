package jobs

import (
	"context"

	"github.com/compactd/compactd/daemon/store"
)

// RecordResult is what Record kept.
type RecordResult struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Version string `json:"version"`
	// Reused is set when the store already held these bytes as a version.
	Reused bool `json:"reused,omitempty"`
}

// Record keeps the transcript at path, as it is now, as a version of its
// conversation, changing nothing on disk: what an agent's PreCompact hook
// runs, so the conversation before the agent's own compaction can be
// restored whatever the agent later does to the file.
func (r *Runner) Record(ctx context.Context, path string) (_ *RecordResult, err error) {
	defer func() { err = r.Store.Explain(err) }()
	abs, err := absPath(path)
	if err != nil {
		return nil, err
	}
	src, err := readSource(abs)
	if err != nil {
		return nil, err
	}
	conv, err := r.conversation(ctx, src)
	if err != nil {
		return nil, err
	}
	if err := r.Store.CheckSound(ctx); err != nil {
		return nil, err
	}
	before, err := r.Store.Versions(ctx, conv.ID)
	if err != nil {
		return nil, err
	}
	v, err := r.recordSource(ctx, conv, src)
	if err != nil {
		return nil, err
	}
	return &RecordResult{Path: abs, Format: string(src.codec.Format()), Version: v.Label, Reused: reusedOf(before, v)}, nil
}

// reusedOf reports whether v was among the versions before.
func reusedOf(before []store.Version, v store.Version) bool {
	for _, b := range before {
		if b.ID == v.ID {
			return true
		}
	}
	return false
}
