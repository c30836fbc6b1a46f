package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/platform"
)

// Version is reported in serverInfo, `compactd version` and health. It is
// the release's version: make dist stamps it (-ldflags -X) with the tag or
// this base version, a pre-release suffix and the commit.
var Version = "0.1.0"

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
	var folders []string
	for _, f := range p.WorkspaceFolders {
		folders = append(folders, uriPath(protocol.DocumentURI(f.URI)))
	}
	if len(folders) == 0 && p.RootURI != "" {
		folders = append(folders, uriPath(p.RootURI))
	}
	if len(folders) == 0 && p.RootPath != "" {
		folders = append(folders, filepath.Clean(p.RootPath))
	}
	opts := s.opts.Daemon
	opts.Folders, opts.Logger = folders, s.log
	opts.Config.Client, _ = json.Marshal(p.InitializationOptions)
	opts.OnChange, opts.OnConfigError = s.onChange, s.configError
	opts.OnScan = func(p index.ScanProgress) {
		if scan := s.scan.Load(); scan != nil {
			scan.scanReport(p)
		}
	}
	d, err := daemon.New(opts)
	if err != nil {
		s.mu.Unlock()
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "compactd could not start: %v", err)
	}
	s.daemon = d
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
			Experimental: map[string]any{"compactdGauge": methodGauge, "compactdGauges": methodGauges, "compactd": Info()},
		},
		ServerInfo: &protocol.ServerInfo{Name: "compactd", Version: Version},
	}, nil
}

// initialized starts the daemon: the client is ready for notifications
// and progress requests from here on.
func (s *Server) initialized(ctx context.Context, _ json.RawMessage) (any, error) {
	d := s.currentDaemon()
	if d == nil || !s.started.CompareAndSwap(false, true) {
		return nil, nil
	}
	if err := d.ConfigErrors(); err != nil {
		s.showMessage(protocol.MessageTypeWarning, "compactd: some settings were ignored: %v", err)
	}
	s.applyLogLevel(d)
	// The scan starts now; its progress begins once the client accepted
	// the token, without holding back the messages after initialized.
	scan := &progress{s: s}
	go s.beginProgress(scan, "compactd: indexing transcripts", false)
	s.scan.Store(scan)
	if err := d.Start(s.ctx); err != nil {
		scan.end("failed")
		s.showMessage(protocol.MessageTypeError, "compactd could not start: %v", err)
		return nil, nil
	}
	s.log.Info("compactd ready", "folders", d.Folders())
	if s.opts.Daemon.JobsUnavailable != nil {
		s.showMessage(protocol.MessageTypeWarning, "compactd: %s", d.JobsUnavailable().Error())
	}
	return nil, nil
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
