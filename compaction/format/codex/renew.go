package codex

import (
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.Renewer = Codec{}

// Renew implements format.Renewer: every line as it is (what a compacted
// record replaced included), the first session_meta naming the new session
// and, as forked_from_id, the one it was.
func (Codec) Renew(t *transcript.Transcript, opts format.ForkOptions) ([]byte, error) {
	id := opts.WithDefaults().SessionID
	renewed := false
	return jsonl.Rewrite(t, func(_ int, r transcript.Record) ([]byte, error) {
		if renewed || r.Type != typeSessionMeta || r.Kind == transcript.RecordMalformed || r.Kind == transcript.RecordUnknown {
			return nil, nil
		}
		renewed = true
		o, err := jsonx.ParseObject(r.Raw)
		if err != nil {
			return nil, fmt.Errorf("renew: session_meta: %w", err)
		}
		env, payload := o, o.Get("payload")
		if payload == nil {
			env, payload = nil, r.Raw // an older rollout's bare meta line
		}
		p, err := jsonx.ParseObject(payload)
		if err != nil {
			return nil, fmt.Errorf("renew: session_meta payload: %w", err)
		}
		_ = p.Set("id", id)
		if p.Has("session_id") {
			_ = p.Set("session_id", id)
		}
		if t.Meta.SessionID != "" {
			_ = p.Set("forked_from_id", t.Meta.SessionID)
		}
		if env == nil {
			return p.Bytes(), nil
		}
		env.SetRaw("payload", p.Bytes())
		return env.Bytes(), nil
	})
}
