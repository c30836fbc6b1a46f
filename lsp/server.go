package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/daemon"
)

// Options configure a server.
type Options struct {
	Logger *slog.Logger
	// Daemon configures the daemon the server starts once the client is
	// initialized: where the agents live, the job runner (nil, with
	// JobsUnavailable saying why: shown once after initialized, the
	// reason the commands that need the store are disabled), the
	// configuration's layers (Config.Files reads the user's and the
	// workspace's files; the server's flags), the token cache. The
	// server fills in the folders, the editor's settings, the logger and
	// the callbacks.
	Daemon daemon.Options
	// ProcessPollInterval is how often the client's processId is checked; 0 means 2 s.
	ProcessPollInterval time.Duration
	// MaxMessageBytes refuses (unread, in constant memory) any message
	// whose body is larger; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int64
	// Store is the version store the server opened, for health checks.
	Store StoreStatus
}

// Server is one language server session over one connection.
//
// Its fields are the connection, the client's capabilities, the daemon it serves and the state of
// each feature (progress, agent-compaction notes, pending estimates): more than a dozen, each owned
// by one feature file.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn

	mu     sync.Mutex
	state  state
	client protocol.ClientCapabilities
	// daemon is created by initialize and started by initialized; it
	// owns the folders and the configuration.
	daemon   *daemon.Daemon
	auto     *daemon.AutoCompactor
	diagSent map[protocol.DocumentURI]string
	progress map[string]context.CancelFunc
	// The loss ledger (agent_ledger.go): the run per file, the agent
	// compactions announced per file, their diagnostics per document.
	ledgerRuns  map[string]context.CancelFunc
	announced   map[string][]string
	ledgerDiags map[protocol.DocumentURI][]protocol.Diagnostic
	background  sync.WaitGroup
	logLevel    atomic.Int32
	// started is set once initialized started the daemon; scan is its
	// cold scan's progress.
	started atomic.Bool
	scan    atomic.Pointer[progress]

	exitCode chan int
	ctx      context.Context
	cancel   context.CancelFunc

	// gaugesSent counts compactd/gauge notifications carrying a snapshot;
	// autoChecked counts those whose snapshot auto-compaction has seen
	// since (compactd/stats: equal means it decided on every one).
	gaugesSent, autoChecked atomic.Int64
}

type state int

const (
	stateNew state = iota
	stateInitialized
	stateShutdown
)

// Serve speaks LSP over rwc until the client sends exit, the connection
// closes, the client process dies or ctx ends. It returns the process exit
// code the spec asks for: 0 after shutdown then exit, 1 otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	s := newServer(opts)
	s.ctx, s.cancel = context.WithCancel(ctx)
	defer s.cancel()
	s.conn = jsonrpc2.NewConn(newStream(rwc, opts.MaxMessageBytes))
	s.conn.Go(s.ctx, s.handler())
	code := 1
	select {
	case code = <-s.exitCode:
	case <-s.conn.Done():
		s.log.Info("client connection closed", "err", s.conn.Err())
	case <-s.ctx.Done():
	}
	s.cancel()
	s.stopDaemon()
	s.auto.Wait() // cancelled above; the store must outlive its writers
	s.background.Wait()
	_ = s.conn.Close()
	return code
}

func newServer(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ProcessPollInterval <= 0 {
		opts.ProcessPollInterval = 2 * time.Second
	}
	s := &Server{
		opts:       opts,
		diagSent:   map[protocol.DocumentURI]string{},
		progress:   map[string]context.CancelFunc{},
		ledgerRuns: map[string]context.CancelFunc{}, announced: map[string][]string{},
		ledgerDiags: map[protocol.DocumentURI][]protocol.Diagnostic{},
		exitCode:    make(chan int, 1),
	}
	s.logLevel.Store(int32(parseLevel(opts.Daemon.Config.LogLevel)))
	s.auto = &daemon.AutoCompactor{Trigger: s.autoTrigger, Compact: s.autoCompact, Done: s.autoCompacted, Log: opts.Logger}
	// Logs go both to the process log and, at the configured level, to
	// the client's window/logMessage.
	s.log = slog.New(&clientLogHandler{s: s, next: opts.Logger.Handler()})
	return s
}

// handler wires the protocol the way buflsp does: cancellation outermost,
// then ordered asynchronous dispatch, then the exactly-once reply check.
func (s *Server) handler() jsonrpc2.Handler {
	return cancelHandler(orderedHandler(jsonrpc2.ReplyHandler(s.handle), detached))
}

// detached methods may run long (they call the client and wait, or run a
// compaction); they start in order but do not hold back later messages.
var detached = map[string]bool{
	protocol.MethodWorkspaceExecuteCommand: true,
	methodContext:                          true,
}

func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	replied := false
	once := func(ctx context.Context, result any, rerr error) error {
		if replied {
			return nil
		}
		replied = true
		return reply(ctx, result, rerr)
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panic", "method", req.Method(), "panic", r, "stack", string(debug.Stack()))
			_ = once(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", req.Method(), r))
		}
		err = nil // an error returned here would close the connection
	}()
	_, isCall := req.(*jsonrpc2.Call)
	method := req.Method()

	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case method == protocol.MethodExit:
		return s.exit(ctx, once)
	case st == stateNew && method != protocol.MethodInitialize:
		if isCall {
			return once(ctx, nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized: send initialize first"))
		}
		return once(ctx, nil, nil)
	case st == stateShutdown:
		if isCall {
			return once(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down: only exit is accepted"))
		}
		return once(ctx, nil, nil)
	}

	h, ok := routes[method]
	if !ok {
		if isCall {
			return once(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method %q is not supported", method))
		}
		return once(ctx, nil, nil) // unknown notifications ($/setTrace, …) are ignored
	}
	result, herr := h(s, ctx, req.Params())
	return once(ctx, result, herr)
}

// route handles one method: params in, result or error out.
type route func(s *Server, ctx context.Context, params json.RawMessage) (any, error)

var routes map[string]route

func init() {
	routes = map[string]route{
		protocol.MethodInitialize:                         (*Server).initialize,
		protocol.MethodInitialized:                        (*Server).initialized,
		protocol.MethodShutdown:                           (*Server).shutdown,
		protocol.MethodTextDocumentDidOpen:                (*Server).didOpen,
		protocol.MethodTextDocumentDidChange:              (*Server).didChange,
		protocol.MethodTextDocumentDidSave:                (*Server).didSave,
		protocol.MethodTextDocumentDidClose:               (*Server).didClose,
		protocol.MethodTextDocumentHover:                  (*Server).hover,
		protocol.MethodTextDocumentCodeAction:             (*Server).codeAction,
		protocol.MethodTextDocumentCodeLens:               (*Server).codeLens,
		protocol.MethodWorkspaceExecuteCommand:            (*Server).executeCommand,
		protocol.MethodWorkspaceDidChangeConfiguration:    (*Server).didChangeConfiguration,
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: (*Server).didChangeWorkspaceFolders,
		protocol.MethodWorkDoneProgressCancel:             (*Server).workDoneProgressCancel,
	}
	for _, r := range requests {
		routes[r.method] = r.route
	}
}

// decode unmarshals params, answering InvalidParams when they do not fit.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// notify sends a notification, logging (not failing) when the client is gone.
func (s *Server) notify(method string, params any) {
	if err := s.conn.Notify(s.ctx, method, params); err != nil && !errors.Is(err, context.Canceled) {
		s.opts.Logger.Debug("notify", "method", method, "err", err)
	}
}

func (s *Server) showMessage(typ protocol.MessageType, format string, args ...any) {
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: fmt.Sprintf(format, args...)})
}

func (s *Server) stopDaemon() {
	s.mu.Lock()
	d := s.daemon
	s.mu.Unlock()
	if d != nil {
		_ = d.Close()
	}
}
