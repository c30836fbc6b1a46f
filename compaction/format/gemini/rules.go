package gemini

import "github.com/compactd/compactd/compaction/format"

// Rules: user and model turns alternate, and a functionResponse follows
// its call.
func (Codec) Rules() format.Rules { return format.Rules{Alternation: true, AdjacentResults: true} }

// Outside is what Gemini CLI sends beside the transcript.
func (Codec) Outside() string { return "system prompt, tool definitions, memory files (GEMINI.md)" }
