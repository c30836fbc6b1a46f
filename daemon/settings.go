package daemon

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sync"

	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
)

// The daemon owns the session's configuration (ARCHITECTURE.md): the
// layers above the files (the editor's settings, the server's flags) and,
// per transcript, the configuration resolved under the .compactd.toml
// nearest to it — the rule `compactd compact` follows too (config.Nearest).
// lsp only hands it the editor's settings.

// configs caches the resolved configurations by workspace file.
type configs struct {
	mu     sync.Mutex
	layers config.Layers
	byFile map[string]*index.Settings
	// nearest maps a folder to the workspace file nearest above it.
	nearest map[string]string
	// reported are the files whose errors were reported.
	reported map[string]bool
}

// settingsFor is the configuration that applies to the transcript at path.
func (d *Daemon) settingsFor(path string) *index.Settings {
	return d.resolvedFile(d.workspaceFile(path))
}

// Config is the configuration that applies to the transcript at path: the
// one its compaction, dry run, savings and gauge use.
func (d *Daemon) Config(path string) *config.Config {
	return d.settingsFor(filepath.Clean(path)).Config
}

// workspaceFile is the .compactd.toml that applies to path: the nearest
// above it, else the nearest above the workspace folder it belongs to
// (config.Nearest's rule, with the lookups cached per folder: the watcher
// asks on every new file).
func (d *Daemon) workspaceFile(path string) string {
	if f := d.nearestAbove(filepath.Dir(path)); f != "" {
		return f
	}
	if folder := d.folderOf(path); folder != "" {
		return d.nearestAbove(folder)
	}
	return ""
}

// nearestAbove is the .compactd.toml nearest above dir, dir included.
func (d *Daemon) nearestAbove(dir string) string {
	c := &d.cfg
	c.mu.Lock()
	f, ok := c.nearest[dir]
	c.mu.Unlock()
	if ok {
		return f
	}
	f = config.Nearest("", dir)
	c.mu.Lock()
	if c.nearest == nil {
		c.nearest = map[string]string{}
	}
	c.nearest[dir] = f
	c.mu.Unlock()
	return f
}

// folderConfig is the configuration of a workspace folder.
func (d *Daemon) folderConfig(folder string) *index.Settings {
	return d.resolvedFile(d.nearestAbove(folder))
}

func (d *Daemon) resolvedFile(file string) *index.Settings {
	c := &d.cfg
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.byFile[file]; r != nil {
		return r
	}
	cfg, err := config.Resolve(file, c.layers)
	if err != nil && !c.reported[file] {
		if c.reported == nil {
			c.reported = map[string]bool{}
		}
		c.reported[file] = true
		if d.opts.OnConfigError != nil {
			go d.opts.OnConfigError(err) // not under the lock
		}
	}
	r := index.NewSettings(cfg)
	if c.byFile == nil {
		c.byFile = map[string]*index.Settings{}
	}
	c.byFile[file] = r
	return r
}

// ConfigErrors resolves the configuration of every workspace folder and
// returns what was left out of them, nil when everything applied.
func (d *Daemon) ConfigErrors() error {
	files := []string{""} // no folder: the user's file and the editor's settings
	if folders := d.Folders(); len(folders) > 0 {
		files = files[:0]
		for _, f := range folders {
			files = append(files, d.nearestAbove(f))
		}
	}
	c := &d.cfg
	c.mu.Lock()
	layers := c.layers
	c.mu.Unlock()
	var errs []error
	for _, file := range files {
		if _, err := config.Resolve(file, layers); err != nil {
			errs = append(errs, err)
			c.mu.Lock()
			if c.reported == nil {
				c.reported = map[string]bool{}
			}
			c.reported[file] = true // the caller says it; resolving it later must not again
			c.mu.Unlock()
		}
	}
	return errors.Join(errs...)
}

// SetClientSettings replaces the editor's settings (initializationOptions,
// then each workspace/didChangeConfiguration; null keeps the last),
// re-derives every snapshot and re-evaluates what is watched. It returns
// what did not validate: those layers are left out.
func (d *Daemon) SetClientSettings(settings json.RawMessage) error {
	c := &d.cfg
	c.mu.Lock()
	if t := string(settings); t != "" && t != "null" {
		c.layers.Client = slices.Clone(settings)
	}
	old := c.byFile
	c.byFile, c.nearest, c.reported = nil, nil, nil
	c.mu.Unlock()
	err := d.ConfigErrors()
	d.reconfigure(old)
	return err
}

// workspaceFileChanged reads the .compactd.toml files again after one in a
// watched folder changed: its settings apply at once — gauge, hover, code
// actions, auto-compaction — as an editor's settings change does, and what
// it gets wrong is reported once.
func (d *Daemon) workspaceFileChanged() {
	c := &d.cfg
	c.mu.Lock()
	old := c.byFile
	c.byFile, c.nearest, c.reported = nil, nil, nil
	c.mu.Unlock()
	if err := d.ConfigErrors(); err != nil && d.opts.OnConfigError != nil {
		d.opts.OnConfigError(err)
	}
	d.reconfigure(old)
}

// reconfigure re-derives every snapshot after the configuration changed
// (old is the cache before) and re-evaluates what is watched.
func (d *Daemon) reconfigure(old map[string]*index.Settings) {
	reread := d.index.Reconfigure(func(path string) bool {
		prev := old[d.workspaceFile(path)]
		return prev == nil || prev.Gauge.Model != d.settingsFor(path).Gauge.Model
	})
	for _, p := range reread {
		d.watch.Schedule(p)
	}
	d.watch.Reconfigure()
}

// folderOf is the workspace folder path belongs to: the folder holding
// it, else the one whose agent folder holds it (Claude Code's project
// folder of that workspace folder); for an agent that keeps every
// project together, and for files elsewhere, the first folder.
func (d *Daemon) folderOf(path string) string {
	folders := d.Folders()
	for _, f := range folders {
		if agents.Within(path, f) {
			return f
		}
	}
	var holders []string
	for _, f := range folders {
		for _, a := range agents.All() {
			for _, r := range d.watch.AgentRoots(a, []string{f}) {
				if (agents.Within(path, r.Dir) || agents.Within(path, r.Scope)) && !slices.Contains(holders, f) {
					holders = append(holders, f)
				}
			}
		}
	}
	if len(holders) == 1 {
		return holders[0]
	}
	if len(folders) > 0 {
		return folders[0]
	}
	return ""
}

// WorkspaceConfig is the configuration of the first workspace folder (of
// no folder when there is none): what applies to the session as a whole,
// such as its log level.
func (d *Daemon) WorkspaceConfig() *config.Config {
	folders := d.Folders()
	if len(folders) == 0 {
		return d.resolvedFile("").Config
	}
	return d.folderConfig(folders[0]).Config
}
