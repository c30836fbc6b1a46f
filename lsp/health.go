package lsp

import (
	"context"
	"os"
	"path/filepath"

	"github.com/compactd/compactd/daemon/watch"
)

// compactd/health answers what an editor's health check shows: the
// server's version, whether its store is usable, and where it looks for
// transcripts (Neovim's :checkhealth compactd).
const methodHealth = "compactd/health"

// StoreStatus is the version store the server opened.
type StoreStatus struct {
	Path string `json:"path"`
	// Error says why it could not be opened ("" when it was).
	Error string `json:"error,omitempty"`
	// Writable: the store's folder accepts new files (the store writes
	// its journal beside the database).
	Writable bool `json:"writable"`
}

// Health is the compactd/health result.
type Health struct {
	Version  string              `json:"version"`
	Store    StoreStatus         `json:"store"`
	Folders  []string            `json:"folders"`
	Watching []watch.WatchedRoot `json:"watching"`
	// Watch is the watcher's use of its descriptor bound (macOS, BSD).
	Watch       watch.Stats `json:"watch"`
	Transcripts int         `json:"transcripts"`
	ScanDone    bool        `json:"scanDone"`
}

func (s *Server) health(ctx context.Context, _ NoParams) (Health, error) {
	h := Health{Version: Version, Store: s.opts.Store, Folders: []string{}, Watching: []watch.WatchedRoot{}}
	if h.Store.Path != "" && h.Store.Error == "" {
		h.Store.Writable = writableDir(filepath.Dir(h.Store.Path))
	}
	d := s.currentDaemon()
	if d == nil {
		return h, nil
	}
	h.Folders = append(h.Folders, d.Folders()...)
	h.Watching = d.WatchedRoots()
	h.Watch = d.WatchStats()
	h.Transcripts = len(d.Snapshots())
	select {
	case <-d.ScanDone():
		h.ScanDone = true
	default:
	}
	return h, nil
}

// writableDir reports whether a file can be created in dir.
func writableDir(dir string) bool {
	f, err := os.CreateTemp(dir, ".compactd-health-*")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	return os.Remove(name) == nil
}
