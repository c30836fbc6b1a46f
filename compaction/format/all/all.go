// Package all registers every transcript codec: import it for its side
// effects (`import _ ".../compaction/format/all"`) wherever format.Detect
// must know every format. It holds imports only.
package all

import (
	_ "github.com/compactd/compactd/compaction/format/anthropic"
	_ "github.com/compactd/compactd/compaction/format/cline"
	_ "github.com/compactd/compactd/compaction/format/openaichat"
	_ "github.com/compactd/compactd/compaction/format/openairesponses"
)
