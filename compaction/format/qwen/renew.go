package qwen

import (
	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.Renewer = Codec{}

// Renew implements format.Renewer: every line as it is — telemetry
// records, usageMetadata, branches — with the session's id replaced by
// opts.SessionID wherever a line names it. Uuids stay: they only need to
// be unique within a file. A restored version is the whole version.
func (Codec) Renew(t *transcript.Transcript, opts format.ForkOptions) ([]byte, error) {
	return jsonl.RenewSession(t, opts.WithDefaults().SessionID, "sessionId")
}
