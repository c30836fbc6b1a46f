package lsp

import (
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/config"
)

// Opt-in auto-compaction ([auto_compact] enabled = true): the daemon's
// AutoCompactor sees every snapshot; this file tells it the trigger and
// the pipeline from the current configuration, and announces what it did.

// autoCompactPlan is the AutoCompactor's view of the settings: the
// trigger, whether it is on, and the request a command would build.
func (s *Server) autoCompactPlan(snap *daemon.Snapshot) (strategy.Trigger, bool, daemon.JobRequest) {
	s.mu.Lock()
	cfg := s.config
	s.mu.Unlock()
	if cfg == nil {
		return strategy.Trigger{}, false, daemon.JobRequest{}
	}
	trig, on := cfg.Trigger()
	if !on {
		return trig, false, daemon.JobRequest{}
	}
	// The same rule as commands: transcripts shown from elsewhere (or
	// reached through a link leading out) are never compacted.
	if d := s.currentDaemon(); d == nil || !d.Allowed(snap.Path) {
		return trig, false, daemon.JobRequest{}
	}
	return trig, true, s.jobRequest(snap.Path, nil, 0)
}

// autoCompacted announces a finished automatic compaction.
func (s *Server) autoCompacted(path string, res *daemon.JobResult, err error) {
	if err != nil {
		if s.ctx.Err() == nil {
			s.showMessage(protocol.MessageTypeWarning, "compactd: automatic compaction of %s failed: %v", path, err)
		}
		return
	}
	s.showMessage(protocol.MessageTypeInfo, "compactd: %s crossed the auto-compaction trigger and was compacted into a fork: %s (%s)", filepath.Base(path), res.Open, res.Message)
}

// jobRequest builds a compaction request for path from the current
// settings; strategies and keepLast override them when set.
func (s *Server) jobRequest(path string, strategies []string, keepLast int) daemon.JobRequest {
	s.mu.Lock()
	cfg, folders, set := s.config, append([]string(nil), s.folders...), s.settings
	d := s.daemon
	s.mu.Unlock()
	if d != nil {
		set = d.Settings()
	}
	if cfg == nil {
		cfg = config.Default()
	}
	req := daemon.JobRequest{Path: path, Strategies: strategies, KeepLast: keepLast, Config: cfg, Workspace: workspaceOf(path, folders)}
	if len(req.Strategies) == 0 {
		req.Strategies = set.Strategies
	}
	if req.KeepLast == 0 {
		req.KeepLast = set.KeepLast
	}
	if d != nil {
		if snap := d.Snapshot(path); snap != nil {
			req.Window = snap.Window
		}
		// The index's parse, so the job parses only what changed since.
		req.Parsed = d.Parsed(path)
	}
	return req
}

// workspaceOf is the workspace folder holding path ("" when none does:
// the jobs then use the transcript's folder).
func workspaceOf(path string, folders []string) string {
	for _, f := range folders {
		if path == f || strings.HasPrefix(path, f+string(filepath.Separator)) {
			return f
		}
	}
	return ""
}
