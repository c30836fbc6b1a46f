package jobs

import (
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

// guardSource keeps the agent from losing the session at path once a
// fork written beside it (or, in place, the session itself) is resumed:
// its agent's Protect, with what it did as notes for the user.
func guardSource(f transcript.Format, path string) []string {
	if a := agents.ByFormat(f); a != nil && a.Protect != nil {
		return a.Protect(path, func(p string) bool { return p == path })
	}
	return nil
}
