package lsp

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon"
)

// syncBuffer is a log the server writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestPanicInJobAnswersAnError: a job that panics (here the compaction
// pipeline, the first time it runs) answers the command with an error
// that says so in one sentence, logs where it happened, and leaves the
// server serving: the same command runs again to the end (the job's
// conversation lock was let go) and the gauge goes on.
func TestPanicInJobAnswersAnError(t *testing.T) {
	testEnv(t)
	ws := t.TempDir()
	path := filepath.Join(ws, "session.jsonl")
	if err := os.WriteFile(path, sessiongen.ClaudeCode(sessiongen.Options{Seed: 5, Turns: 12, Cwd: ws}), 0o644); err != nil {
		t.Fatal(err)
	}
	u := pathURI(path)
	runner := openJobs(t)
	var calls atomic.Int32
	runner.Pipeline = func(ctx context.Context, tr *transcript.Transcript, c *tokens.Counter, opts strategy.Options) (*transcript.View, *strategy.Report, error) {
		if calls.Add(1) == 1 {
			var m map[string]int
			m["a bug"]++ // a nil map: the kind of panic a job may hit
		}
		return strategy.Run(ctx, tr, c, opts)
	}
	log := &syncBuffer{}
	runner.Log = slog.New(slog.NewTextHandler(log, nil))
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: runner}})
	c.initialize(ws, nil)
	c.waitNote(0, methodGauge, gaugeFor(u), 60*time.Second)

	_, err := c.execute(cmdCompact, map[string]any{"uri": u})
	if err == nil {
		t.Fatal("the job that panicked answered no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "internal error") || !strings.Contains(msg, "assignment to entry in nil map") || strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") {
		t.Fatalf("the panic answered %q; want one sentence naming it", msg)
	}
	if l := log.String(); !strings.Contains(l, "a job panicked") || !strings.Contains(l, "job_panic_test.go") {
		t.Fatalf("the log does not say where the job panicked:\n%s", l)
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 1 {
		t.Fatalf("the job that panicked wrote files: %v", entries)
	}

	// Still serving: the next compaction of the same conversation takes
	// its lock and runs to the end, and the gauge follows the file.
	res, err := c.execute(cmdCompact, map[string]any{"uri": u})
	if err != nil || !strings.Contains(res.Message, "compacted") {
		t.Fatalf("the compaction after the panic: %+v, %v", res, err)
	}
	since := c.noteCount()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	f.Write(sessiongen.Continue(transcript.FormatClaudeCode, data, 7, 2))
	f.Close()
	c.waitNote(since, methodGauge, gaugeFor(u), 60*time.Second)
}
