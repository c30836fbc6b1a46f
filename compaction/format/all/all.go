// Package all registers every transcript codec: import it for its side
// effects wherever format.Detect must know all formats.
package all

import (
	_ "github.com/compactd/compactd/compaction/format/claude" // Claude Code session JSONL
)
