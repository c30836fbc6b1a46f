package openairesponses

import "github.com/compactd/compactd/compaction/format"

// Rules: a reasoning item is sent with the item that followed it.
func (Codec) Rules() format.Rules { return format.Rules{ReasoningBound: true} }
