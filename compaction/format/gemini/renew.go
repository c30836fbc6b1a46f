package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.Renewer = Codec{}

// Renew implements format.Renewer: every record as it is, the session's
// metadata (the recording's metadata lines, a legacy document's sessionId
// member) naming the new session. A checkpoint has no session: it is
// copied as it is.
func (c Codec) Renew(t *transcript.Transcript, opts format.ForkOptions) ([]byte, error) {
	session := opts.WithDefaults().SessionID
	switch fr := t.Frame.(type) {
	case *docFrame:
		sp, ok := fr.doc.Member("sessionId")
		if fr.checkpoint || !ok {
			return c.Write(t)
		}
		return jsonx.Splice(fr.src, []jsonx.Edit{{Span: sp, Bytes: []byte(quote(session))}}), nil
	case *jsonl.Frame, nil:
		return jsonl.Rewrite(t, func(i int, r transcript.Record) ([]byte, error) {
			if r.Kind != transcript.RecordMeta || r.Type != "metadata" && r.Type != "$set" {
				return nil, nil
			}
			o, err := jsonx.ParseObject(r.Raw)
			if err != nil {
				return nil, fmt.Errorf("renew: metadata line %d: %w", i+1, err)
			}
			target := o
			if r.Type == "$set" {
				// Gemini CLI sets the session id again when it resumes.
				if target, err = jsonx.ParseObject(o.Get("$set")); err != nil {
					return nil, nil
				}
			}
			var id string
			if json.Unmarshal(target.Get("sessionId"), &id) != nil || id == "" {
				return nil, nil
			}
			_ = target.Set("sessionId", session)
			if r.Type == "$set" {
				o.SetRaw("$set", target.Bytes())
			}
			return o.Bytes(), nil
		})
	}
	return nil, fmt.Errorf("renew gemini-cli: transcript was not parsed by this codec")
}
