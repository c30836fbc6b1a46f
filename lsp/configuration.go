package lsp

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
)

// The daemon owns the configuration (daemon/settings.go): this file hands
// it the editor's settings and folders, and shows what did not validate.

func (s *Server) didChangeConfiguration(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d := s.currentDaemon()
	if d == nil {
		return nil, nil
	}
	if err := d.SetClientSettings(p.Settings); err != nil {
		s.showMessage(protocol.MessageTypeWarning, "compactd: some settings were ignored: %v", err)
	}
	s.applyLogLevel(d)
	return nil, nil
}

// configError shows configuration the daemon left out.
func (s *Server) configError(err error) {
	s.showMessage(protocol.MessageTypeWarning, "compactd: some settings were ignored: %v", err)
}

// applyLogLevel follows log.level: the server's flag, else the
// configuration.
func (s *Server) applyLogLevel(d *daemon.Daemon) {
	s.logLevel.Store(int32(parseLevel(d.WorkspaceConfig().Log.Level)))
}

func (s *Server) didChangeWorkspaceFolders(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d := s.currentDaemon()
	if d == nil {
		return nil, nil
	}
	var keep []string
	for _, f := range d.Folders() {
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
	d.SetFolders(keep)
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
