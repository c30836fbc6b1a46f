package copilotcli

import (
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.Renewer = Codec{}

// Renew implements format.Renewer: every event as it is — usage,
// telemetry, model changes, compactions — with the session's id replaced
// by opts.SessionID where an event's data names it (session.start, and
// session.resume in releases that repeat it). Event ids and the parentId
// chain stay: they only need to be unique within a file.
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
		d, err := jsonx.ParseObject(o.Get("data"))
		if err != nil {
			return nil, nil // no data object: nothing names the session
		}
		var id string
		if json.Unmarshal(d.Get("sessionId"), &id) != nil || id != old {
			return nil, nil
		}
		_ = d.Set("sessionId", session)
		o.SetRaw("data", d.Bytes())
		return o.Bytes(), nil
	})
}
