package jobs

import (
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

type (
	transcriptT = transcript.Transcript
	counterT    = tokens.Counter
	viewT       = transcript.View
)
