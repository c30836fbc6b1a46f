package qwen

import (
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.Renewer = Codec{}

// Renew implements format.Renewer: every line as it is — telemetry
// records, usageMetadata, branches — with the session's id replaced by
// opts.SessionID wherever a line names it. Uuids stay: they only need to
// be unique within a file. A restored version is the whole version.
func (Codec) Renew(t *transcript.Transcript, opts format.ForkOptions) ([]byte, error) {
	session := opts.WithDefaults().SessionID
	old := t.Meta.SessionID
	return jsonl.Rewrite(t, func(i int, r transcript.Record) ([]byte, error) {
		if r.Kind == transcript.RecordMalformed || old == "" {
			return nil, nil
		}
		o, err := jsonx.ParseObject(r.Raw)
		if err != nil {
			return nil, fmt.Errorf("renew: line %d: %w", i+1, err)
		}
		var id string
		if json.Unmarshal(o.Get("sessionId"), &id) != nil || id != old {
			return nil, nil
		}
		_ = o.Set("sessionId", session)
		return o.Bytes(), nil
	})
}
