package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/install"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/store"
)

// Recalled is what a recall handle names, written to a file the editor
// opens beside the transcript ("Recall…" on a placeholder).
type Recalled struct {
	Message string `json:"-"`
	Open    string `json:"-"`
	Handle  string `json:"handle"`
	Bytes   int    `json:"bytes"`
	// Sources are the versions whose placeholders or summaries name it.
	Sources []store.RecallSource `json:"sources,omitempty"`
}

// Recall writes what handle names, byte for byte, to
// <store folder>/recalls/<handle>.txt and says where.
func (d *Daemon) Recall(ctx context.Context, handle string) (*Recalled, error) {
	r, err := d.runner()
	if err != nil {
		return nil, err
	}
	if !recall.Valid(handle) {
		return nil, fmt.Errorf("%q is not a recall handle (%s, as a placeholder names it)", handle, recall.Syntax)
	}
	got, err := r.Store.Recall(ctx, handle)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(r.Store.Dir(), "recalls")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("write the recalled content: %w", err)
	}
	path := filepath.Join(dir, handle+".txt")
	tmp, err := os.CreateTemp(dir, "."+handle+"-*")
	if err != nil {
		return nil, fmt.Errorf("write the recalled content: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(got.Content); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := platform.Replace(tmp.Name(), path); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &Recalled{
		Message: fmt.Sprintf("recall %s: %d bytes, as the original transcript held them", handle, len(got.Content)),
		Open:    path, Handle: handle, Bytes: len(got.Content), Sources: got.Versions,
	}, nil
}

// IntegrationsOf lists compactd's MCP server and hooks as installed for
// the user and for the workspace folder a transcript belongs to.
func (d *Daemon) IntegrationsOf(path string) install.Integrations {
	var store string
	if r, err := d.runner(); err == nil && r.Store != nil {
		store = r.Store.Path()
	}
	out := install.Status(d.opts.Env, d.folderOf(path), store)
	if snap := d.Snapshot(path); snap != nil {
		if a := agents.ByFormat(snap.Format); a != nil && a.Hooks != nil {
			out.InstallHooks = "compactd hooks install " + a.Name
		}
	}
	return out
}
