// Package kilo is what compactd knows of Kilo Code's CLI, built from
// opencode (codec: compaction/format/opencode).
package kilo

import (
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/opencode"
)

func init() { agents.Register(Agent) }

// Agent is Kilo Code.
var Agent = opencode.New("kilo", transcript.FormatKilo)
