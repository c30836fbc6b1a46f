package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
)

// resolveSettings layers the sources of settings, later ones winning: the
// server's flags, each folder's .compactd.toml, then what the client sent
// (initializationOptions, replaced by workspace/didChangeConfiguration).
func (s *Server) resolveSettings(folders []string, client json.RawMessage) (daemon.Settings, error) {
	set := s.opts.Settings
	var errs []string
	if s.opts.LoadConfig != nil {
		for _, f := range folders {
			next, err := s.opts.LoadConfig(f, set)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			set = next
		}
	}
	if client == nil {
		s.mu.Lock()
		client = s.initOptions
		s.mu.Unlock()
	}
	if err := mergeClientSettings(&set, client); err != nil {
		errs = append(errs, err.Error())
	}
	s.logLevel.Store(int32(parseLevel(set.LogLevel)))
	if len(errs) > 0 {
		return set, fmt.Errorf("some settings were ignored: %s", strings.Join(errs, "; "))
	}
	return set, nil
}

// mergeClientSettings applies the client's JSON over set. Clients send
// either the settings object itself or it under a "compactd" key (VS Code
// sends the whole section).
func mergeClientSettings(set *daemon.Settings, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil
	}
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return fmt.Errorf("settings must be a JSON object: %v", err)
	}
	if inner, ok := wrapper["compactd"]; ok {
		raw = inner
	}
	if err := json.Unmarshal(raw, set); err != nil {
		return fmt.Errorf("invalid settings: %v", err)
	}
	return nil
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
