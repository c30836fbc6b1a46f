package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/config"
)

// resolveSettings layers the sources of settings (daemon/config):
// defaults, the user's config file, the first folder's .compactd.toml, then
// what the client sent (initializationOptions, replaced by
// workspace/didChangeConfiguration); the server's flags (store, log level)
// win last. Client settings that do not validate are ignored as a whole,
// with the reason returned.
func (s *Server) resolveSettings(folders []string, client json.RawMessage) (daemon.Settings, error) {
	if client == nil {
		s.mu.Lock()
		client = s.initOptions
		s.mu.Unlock()
	}
	load := s.opts.LoadConfig
	if load == nil {
		load = func(string) (*config.Config, error) { return config.Default(), nil }
	}
	workspace := ""
	if len(folders) > 0 {
		workspace = folders[0]
	}
	var errs []string
	cfg, err := load(workspace)
	if err != nil {
		errs = append(errs, err.Error())
		cfg = config.Default()
	}
	base := *cfg
	if err := cfg.ApplyJSON(client); err != nil {
		errs = append(errs, err.Error())
		cfg = &base
	}
	set := settingsOf(cfg)
	s.mu.Lock()
	s.config = cfg
	s.mu.Unlock()
	if s.opts.Settings.StorePath != "" {
		set.StorePath = s.opts.Settings.StorePath
	}
	if s.opts.Settings.LogLevel != "" {
		set.LogLevel = s.opts.Settings.LogLevel
	}
	s.logLevel.Store(int32(parseLevel(set.LogLevel)))
	if len(errs) > 0 {
		return set, fmt.Errorf("some settings were ignored: %s", strings.Join(errs, "; "))
	}
	return set, nil
}

// settingsOf maps the configuration onto what the daemon uses.
func settingsOf(c *config.Config) daemon.Settings {
	set := daemon.Settings{
		WarnRatio: c.Gauge.Warn, CriticalRatio: c.Gauge.Critical,
		Model: c.Gauge.Model, ContextWindow: c.Gauge.ContextWindow,
		Strategies: c.Compact.Strategies, KeepLast: c.Compact.KeepLast,
		LogLevel: c.Log.Level, StorePath: c.Store.Path,
		Prices: c.PriceTable(),
	}
	for name, m := range c.Models {
		if m.ContextWindow > 0 {
			if set.Windows == nil {
				set.Windows = map[string]int{}
			}
			set.Windows[name] = m.ContextWindow
		}
	}
	w := c.Watch
	set.Watch = daemon.Watch{Workspace: &w.Workspace, Claude: &w.Claude, Codex: &w.Codex, Qwen: &w.Qwen, OpenCode: &w.OpenCode,
		Kilo: &w.Kilo, CopilotCLI: &w.CopilotCLI, Cursor: &w.Cursor, CopilotChat: &w.CopilotChat, Globs: w.Globs}
	return set
}

func (s *Server) didChangeConfiguration(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(p.Settings) > 0 && string(p.Settings) != "null" {
		s.initOptions = p.Settings
	}
	folders := append([]string(nil), s.folders...)
	s.mu.Unlock()
	set, err := s.resolveSettings(folders, nil)
	if err != nil {
		s.showMessage(protocol.MessageTypeWarning, "compactd: %v", err)
	}
	s.mu.Lock()
	s.settings = set
	d := s.daemon
	s.mu.Unlock()
	if d != nil {
		d.SetSettings(set)
	}
	return nil, nil
}

func (s *Server) didChangeWorkspaceFolders(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	keep := s.folders[:0:0]
	for _, f := range s.folders {
		removed := false
		for _, r := range p.Event.Removed {
			if uriPath(protocol.DocumentURI(r.URI)) == f {
				removed = true
			}
		}
		if !removed {
			keep = append(keep, f)
		}
	}
	for _, a := range p.Event.Added {
		keep = append(keep, uriPath(protocol.DocumentURI(a.URI)))
	}
	s.folders = keep
	d := s.daemon
	s.mu.Unlock()
	if d != nil {
		d.SetFolders(keep)
	}
	return nil, nil
}

func parseLevel(s string) slog.Level {
	switch strings.ToLower(s) {
	case "debug", "trace", "verbose":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}
