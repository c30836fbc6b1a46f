package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	_ "github.com/compactd/compactd/compaction/format/all" // every codec
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
	"github.com/compactd/compactd/lsp"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "speak the Language Server Protocol on stdio (for editors)",
		run:     runServe,
	})
}

// serveMemoryLimit is the server's soft memory limit (runtime/debug).
const serveMemoryLimit = 256 << 20

// stdio is the server's connection: the process's stdin and stdout.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

// exitCode carries the LSP exit code (1 when exit came without shutdown)
// out of runServe.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit code %d", int(e)) }

func runServe(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	logFile := fs.String("log-file", "", "write logs to `file` instead of stderr")
	storePath := fs.String("store", "", "the version store (default $COMPACTD_STORE or the XDG state dir)")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (default info)")
	maxMessage := fs.Int64("max-message-bytes", lsp.DefaultMaxMessageBytes, "refuse, unread, any LSP message whose body is larger than `n` bytes")
	_ = fs.Bool("stdio", true, "speak LSP on stdin/stdout (the only transport; accepted for editors that pass it)")
	if err := fs.Parse(args); err != nil {
		return usagef("%v", err)
	}
	var logOut io.Writer = e.stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("open the log file: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	lvl := new(slog.LevelVar)
	_ = lvl.UnmarshalText([]byte(orDefault(*logLevel, "info")))
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: lvl}))

	var memory *daemon.MemoryLimit
	if os.Getenv("GOMEMLIMIT") == "" {
		// The server lives long and reads transcripts in bursts: past
		// this the garbage collector works harder rather than let the
		// heap double (GOMEMLIMIT overrides, and then holds for jobs
		// too; otherwise a compaction lifts it while it runs).
		memory = daemon.NewMemoryLimit(serveMemoryLimit)
	}
	opts := lsp.Options{
		Logger: logger,
		Daemon: daemon.Options{
			Env:    agents.EnvFromOS(e.getenv),
			Getenv: e.getenv,
			// The server's flags win over every configuration layer.
			Config: config.Layers{Files: true, LogLevel: *logLevel, StorePath: *storePath},
			Memory: memory,
		},
		// A header declaring a gigabyte is answered and skipped unread.
		MaxMessageBytes: *maxMessage,
	}
	path := *storePath
	if path == "" {
		var err error
		if path, err = store.DefaultPath(e.getenv); err != nil {
			opts.Daemon.JobsUnavailable = err
		}
	}
	var cache tokens.Cache = tokens.NewMemoryCache(1 << 16)
	if path != "" {
		st, err := store.Open(ctx, path)
		opts.Store = lsp.StoreStatus{Path: path}
		if err != nil {
			opts.Store.Error = err.Error()
			// The gauge works without a store; compaction commands will
			// say why they cannot run.
			logger.Warn("the version store is unavailable; compaction is disabled", "path", path, "err", err)
			opts.Daemon.JobsUnavailable = err
		} else {
			defer st.Close()
			opts.Daemon.Jobs = jobs.New(st)
			opts.Daemon.Jobs.Log = logger
			opts.Daemon.Overhead = func(path string) (int, bool) { return jobs.StoreOverhead(ctx, st, path) }
			// Counts survive restarts: a restart re-tokenizes nothing.
			tc := st.NewTokenCache(1 << 14) // ~4 MB in memory; the store holds the rest
			cache = tc
			stop := flushEvery(ctx, tc, 5*time.Second, logger)
			defer stop()
		}
	}
	// The index counts each transcript with its model's encoding and image
	// pricing; dry-run savings count with counters of their own (same
	// cache), so compactd/stats shows the index's tokenization alone.
	opts.Daemon.CountCache = cache
	opts.Daemon.Savings = index.StrategySavings(tokens.NewCounterSet(tokens.WithCache(cache)))
	logger.Info("compactd serve starting", "pid", os.Getpid(), "store", path)
	code := lsp.Serve(ctx, stdio{Reader: e.stdin, Writer: e.stdout}, opts)
	logger.Info("compactd serve exiting", "code", code)
	if code != 0 {
		return exitCode(code)
	}
	return nil
}

// flushEvery writes the token cache's pending counts to the store
// periodically and once more when stopped.
func flushEvery(ctx context.Context, tc *store.TokenCache, every time.Duration, log *slog.Logger) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-done:
				if err := tc.Flush(context.WithoutCancel(ctx)); err != nil {
					log.Warn("token cache flush", "err", err)
				}
				return
			}
			if err := tc.Flush(ctx); err != nil {
				log.Warn("token cache flush", "err", err)
			}
		}
	}()
	return func() { close(done); <-finished }
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
