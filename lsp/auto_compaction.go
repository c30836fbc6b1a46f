package lsp

import (
	"context"
	"errors"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon"
)

// Opt-in auto-compaction ([auto_compact] enabled = true): the daemon's
// AutoCompactor sees every snapshot the server sends; the daemon knows
// each transcript's trigger and compacts it; this file announces it.

func (s *Server) autoTrigger(path string) (strategy.Trigger, bool) {
	d := s.currentDaemon()
	if d == nil {
		return strategy.Trigger{}, false
	}
	return d.AutoTrigger(path)
}

func (s *Server) autoCompact(ctx context.Context, path string) (*daemon.Compaction, error) {
	d := s.currentDaemon()
	if d == nil {
		return nil, errors.New("compactd is not running")
	}
	return d.AutoCompact(ctx, path)
}

// autoCompacted announces a finished automatic compaction.
func (s *Server) autoCompacted(path string, res *daemon.Compaction, err error) {
	if err != nil {
		if s.ctx.Err() == nil {
			s.showMessage(protocol.MessageTypeWarning, "compactd: automatic compaction of %s failed: %v", path, err)
		}
		return
	}
	s.showMessage(protocol.MessageTypeInfo, "compactd: %s crossed the auto-compaction trigger and was compacted into a fork: %s (%s)", filepath.Base(path), res.Open, res.Message)
}
