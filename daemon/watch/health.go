package watch

import (
	"os"
	"path/filepath"
)

// WatchedRoot is one place the daemon looks for transcripts, as a health
// check reports it.
type WatchedRoot struct {
	Dir string `json:"dir"`
	// Kind names the source: workspace, glob, or the agent's name
	// (daemon/agents), "<agent> database" for a session database.
	Kind string `json:"kind"`
	// Exists says whether the folder is there yet; Watched whether the
	// daemon receives its changes (a missing folder is watched through
	// its nearest ancestor, so that its creation is seen).
	Exists  bool `json:"exists"`
	Watched bool `json:"watched"`
	// Polled says its changes are looked for every PollInterval instead:
	// the watcher reached its descriptor bound (or the OS refused).
	Polled bool `json:"polled,omitempty"`
}

// WatchedRoots lists what the current settings watch.
func (w *Watcher) WatchedRoots() []WatchedRoot {
	var out []WatchedRoot
	for _, r := range w.roots() {
		wr := WatchedRoot{Dir: r.dir, Kind: r.kind.String()}
		switch {
		case r.database != "":
			wr.Kind = r.agent.Name + " database"
		case r.agent != nil:
			wr.Kind = r.agent.Name
		}
		if fi, err := os.Stat(r.dir); err == nil && fi.IsDir() {
			wr.Exists = true
		}
		w.mu.Lock()
		wr.Polled = w.wb.isPolled(filepath.Clean(r.dir))
		wr.Watched = w.watched[filepath.Clean(r.dir)] || wr.Polled
		w.mu.Unlock()
		out = append(out, wr)
	}
	return out
}

func (k rootKind) String() string {
	switch k {
	case rootWorkspace:
		return "workspace"
	case rootGlob:
		return "glob"
	}
	return "agent"
}
