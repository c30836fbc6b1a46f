package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/platform"
)

// Version is reported in serverInfo.
const Version = "0.1.0"

func (s *Server) initialize(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.InitializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	}
	s.client = p.Capabilities
	for _, f := range p.WorkspaceFolders {
		s.folders = append(s.folders, uriPath(protocol.DocumentURI(f.URI)))
	}
	if len(s.folders) == 0 && p.RootURI != "" {
		s.folders = append(s.folders, uriPath(p.RootURI))
	}
	if len(s.folders) == 0 && p.RootPath != "" {
		s.folders = append(s.folders, filepath.Clean(p.RootPath))
	}
	s.initOptions, _ = json.Marshal(p.InitializationOptions)
	s.state = stateInitialized
	s.mu.Unlock()

	if p.ProcessID > 0 {
		go s.watchClientProcess(int(p.ProcessID))
	}
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				// Transcripts are read from disk, where the agent writes
				// them; full sync would resend megabytes on every edit.
				OpenClose: true, Change: protocol.TextDocumentSyncKindNone,
				Save: &protocol.SaveOptions{IncludeText: false},
			},
			HoverProvider: true,
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.Source},
			},
			CodeLensProvider:       &protocol.CodeLensOptions{},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: commandNames()},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
			Experimental: map[string]any{"compactdGauge": methodGauge, "compactdGauges": methodGauges},
		},
		ServerInfo: &protocol.ServerInfo{Name: "compactd", Version: Version},
	}, nil
}

// initialized starts the daemon: the client is ready for notifications
// and progress requests from here on.
func (s *Server) initialized(ctx context.Context, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	if s.daemon != nil {
		s.mu.Unlock()
		return nil, nil
	}
	folders := append([]string(nil), s.folders...)
	s.mu.Unlock()
	set, err := s.resolveSettings(folders, nil)
	if err != nil {
		s.showMessage(protocol.MessageTypeWarning, "compactd: %v", err)
	}
	// The scan starts now; its progress begins once the client accepted
	// the token, without holding back the messages after initialized.
	scan := &progress{s: s}
	go s.beginProgress(scan, "compactd: indexing transcripts", false)
	d, err := daemon.New(daemon.Options{
		Folders: folders, Env: s.opts.Env, Settings: set, Logger: s.log,
		CountCache: s.opts.CountCache, Savings: s.opts.Savings, Overhead: s.opts.Overhead,
		OnChange: s.onChange,
		OnScan:   scan.scanReport,
	})
	if err != nil {
		scan.end("failed")
		s.showMessage(protocol.MessageTypeError, "compactd could not start: %v", err)
		return nil, nil
	}
	if err := d.Start(s.ctx); err != nil {
		scan.end("failed")
		s.showMessage(protocol.MessageTypeError, "compactd could not start: %v", err)
		return nil, nil
	}
	s.mu.Lock()
	s.daemon = d
	s.settings = set
	s.mu.Unlock()
	s.log.Info("compactd ready", "folders", folders)
	if s.opts.Jobs == nil && s.opts.JobsUnavailable != nil {
		s.showMessage(protocol.MessageTypeWarning, "compactd: %s", s.jobsUnavailable().Error())
	}
	return nil, nil
}

// jobsUnavailable is why the commands that need the store cannot run.
func (s *Server) jobsUnavailable() error {
	if s.opts.JobsUnavailable != nil {
		return fmt.Errorf("compaction, history and restore are unavailable (the gauge keeps working): %w", s.opts.JobsUnavailable)
	}
	return errors.New("compaction, history and restore are unavailable: no version store is open (set COMPACTD_STORE or pass --store to compactd serve)")
}

func (s *Server) shutdown(ctx context.Context, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.stopDaemon()
	return nil, nil
}

func (s *Server) exit(ctx context.Context, reply jsonrpc2.Replier) error {
	s.mu.Lock()
	code := 1
	if s.state == stateShutdown {
		code = 0
	}
	s.mu.Unlock()
	select {
	case s.exitCode <- code:
	default:
	}
	return reply(ctx, nil, nil)
}

// watchClientProcess ends the session when the editor dies without
// saying goodbye, so no daemon outlives its editor.
func (s *Server) watchClientProcess(pid int) {
	t := time.NewTicker(s.opts.ProcessPollInterval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			if !platform.ProcessAlive(pid) {
				s.opts.Logger.Info("client process is gone; exiting", "pid", pid)
				select {
				case s.exitCode <- 1:
				default:
				}
				return
			}
		}
	}
}

func (s *Server) currentDaemon() *daemon.Daemon {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.daemon
}

// uriPath turns a file URI into a clean path ("" for other schemes).
func uriPath(u protocol.DocumentURI) (path string) {
	if !strings.HasPrefix(string(u), "file:") {
		return ""
	}
	defer func() {
		if recover() != nil { // uri.Filename panics on malformed URIs
			path = ""
		}
	}()
	return filepath.Clean(uri.URI(u).Filename())
}

func pathURI(p string) protocol.DocumentURI { return protocol.DocumentURI(uri.File(p)) }
