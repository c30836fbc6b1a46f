package anthropic

import "github.com/compactd/compactd/compaction/format"

// Rules: a tool's result goes in the message right after its call.
func (Codec) Rules() format.Rules { return format.Rules{AdjacentResults: true} }
