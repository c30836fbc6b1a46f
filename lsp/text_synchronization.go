package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

// didOpen tracks the transcript even outside watched folders; a file that
// is not a transcript is ignored quietly (the editor opens every file).
func (s *Server) didOpen(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	// Indexing a large transcript takes seconds: do it aside so the
	// messages after didOpen are not held back; the gauge and diagnostic
	// follow when it is ready.
	go s.track(p.TextDocument.URI)
	return nil, nil
}

func (s *Server) didChange(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidChangeTextDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	return nil, nil // the file on disk is the truth; the watcher sees it change
}

func (s *Server) didSave(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if d := s.currentDaemon(); d != nil {
		if path := uriPath(p.TextDocument.URI); path != "" {
			_, _ = d.Refresh(path)
		}
	}
	return nil, nil
}

func (s *Server) didClose(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	return nil, decode(params, &p)
}

// track opens path in the daemon and sends its gauge and diagnostic now,
// even when nothing changed, so the editor shows them on open.
func (s *Server) track(u protocol.DocumentURI) {
	d := s.currentDaemon()
	path := uriPath(u)
	if d == nil || path == "" {
		return
	}
	snap, err := d.Open(path)
	if err != nil {
		s.log.Debug("opened file is not a tracked transcript", "path", path, "err", err)
		return
	}
	s.gaugesSent.Add(1)
	gaugeNotification.send(s, gaugeOf(snap, d.Active(), d.Now()))
	s.auto.Observe(s.ctx, snap) // a baseline for auto-compaction
	s.autoChecked.Add(1)
	s.mu.Lock()
	delete(s.diagSent, u)
	s.mu.Unlock()
	s.publishDiagnostics(u, snap)
}
