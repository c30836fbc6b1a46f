package copilotcli

import (
	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.Renewer = Codec{}

// Renew implements format.Renewer: every event as it is — usage,
// telemetry, model changes, compactions — with the session's id replaced
// by opts.SessionID where an event's data names it (session.start, and
// session.resume in releases that repeat it). Event ids and the parentId
// chain stay: they only need to be unique within a file.
func (Codec) Renew(t *transcript.Transcript, opts format.ForkOptions) ([]byte, error) {
	opts = opts.WithDefaults()
	if _, ok := t.State.(legacyState); ok {
		return renewLegacy(t, opts.SessionID, opts.Timestamp)
	}
	return jsonl.RenewSession(t, opts.SessionID, "data", "sessionId")
}
