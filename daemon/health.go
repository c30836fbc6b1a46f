package daemon

import (
	"os"
	"path/filepath"
)

// WatchedRoot is one place the daemon looks for transcripts, as a health
// check reports it.
type WatchedRoot struct {
	Dir string `json:"dir"`
	// Kind names the source: workspace, claude, codex, qwen, cursor,
	// opencode/kilo database, copilot-cli, copilot-chat, glob.
	Kind string `json:"kind"`
	// Exists says whether the folder is there yet; Watched whether the
	// daemon receives its changes (a missing folder is watched through
	// its nearest ancestor, so that its creation is seen).
	Exists  bool `json:"exists"`
	Watched bool `json:"watched"`
}

// WatchedRoots lists what the current settings watch.
func (d *Daemon) WatchedRoots() []WatchedRoot {
	var out []WatchedRoot
	for _, r := range d.roots() {
		w := WatchedRoot{Dir: r.dir, Kind: r.kind.String()}
		if r.kind == rootAgentDB {
			w.Kind = r.pattern + " database"
		}
		if fi, err := os.Stat(r.dir); err == nil && fi.IsDir() {
			w.Exists = true
		}
		d.mu.Lock()
		w.Watched = d.watched[filepath.Clean(r.dir)]
		d.mu.Unlock()
		out = append(out, w)
	}
	return out
}

func (k rootKind) String() string {
	switch k {
	case rootWorkspace:
		return "workspace"
	case rootClaude:
		return "claude"
	case rootCodex:
		return "codex"
	case rootGlob:
		return "glob"
	case rootQwen:
		return "qwen"
	case rootAgentDB:
		return "database"
	case rootCopilotCLI:
		return "copilot-cli"
	case rootCursor:
		return "cursor"
	case rootCopilotChat:
		return "copilot-chat"
	}
	return "other"
}
