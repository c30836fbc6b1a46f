package aider

import (
	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.Renewer = Codec{}

// Renew implements format.Renewer. Aider's log names no session: what
// identifies a run is its "# aider chat started at" header, which a copy
// keeps, so the transcript is copied as it is.
func (c Codec) Renew(t *transcript.Transcript, _ format.ForkOptions) ([]byte, error) {
	return c.Write(t)
}
