package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/compactd/compactd/daemon/jobs"
)

// AgentLedger is the agent's own compactions of one conversation: each
// one's figures before and after and what its summary lost, and how they
// went together (compaction health).
type AgentLedger struct {
	Message string `json:"message"`
	jobs.AgentLedger
}

// ledgers caches each file's ledger by its size and modification time:
// a History or Context view opening again costs nothing, and the
// notification's computation serves the views that follow.
type ledgers struct {
	mu sync.Mutex
	m  map[string]ledgerEntry
}

type ledgerEntry struct {
	size    int64
	mod     time.Time
	window  int
	measure int // how many of the latest compactions it measured
	ledger  *AgentLedger
}

// AgentLedger lists the agent's own compactions of the transcript at path
// with what each lost. It reads the file (in the caller's goroutine:
// callers that must not wait run it in the background) and needs no
// store.
func (d *Daemon) AgentLedger(ctx context.Context, path string) (*AgentLedger, error) {
	return d.agentLedger(ctx, path, jobs.MaxMeasured)
}

// LatestAgentCompaction is AgentLedger measuring the latest compaction
// only: what announcing it needs, at once.
func (d *Daemon) LatestAgentCompaction(ctx context.Context, path string) (*AgentLedger, error) {
	return d.agentLedger(ctx, path, 1)
}

func (d *Daemon) agentLedger(ctx context.Context, path string, measure int) (*AgentLedger, error) {
	path = filepath.Clean(path)
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	window := 0
	if snap := d.Snapshot(path); snap != nil {
		window = snap.Window
	}
	c := &d.ledgers
	c.mu.Lock()
	if e, ok := c.m[path]; ok && e.size == fi.Size() && e.mod.Equal(fi.ModTime()) && e.window == window && e.measure >= measure {
		c.mu.Unlock()
		return e.ledger, nil
	}
	c.mu.Unlock()
	r := d.opts.Jobs
	if r == nil {
		r = &jobs.Runner{} // reading the file needs no store
	}
	l, err := r.AgentLedgerOf(ctx, path, window, measure)
	if err != nil {
		return nil, err
	}
	out := &AgentLedger{AgentLedger: *l, Message: ledgerMessage(l)}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]ledgerEntry{}
	}
	if len(c.m) > 256 {
		clear(c.m)
	}
	c.m[path] = ledgerEntry{size: fi.Size(), mod: fi.ModTime(), window: window, measure: measure, ledger: out}
	c.mu.Unlock()
	return out, nil
}

func ledgerMessage(l *jobs.AgentLedger) string {
	n := len(l.Compactions)
	switch {
	case n == 0:
		return "the agent has not compacted this conversation"
	case l.Health.Loop:
		return fmt.Sprintf("the agent compacted this conversation %d times; %s", n, l.Health.Warning)
	case n == 1:
		return "the agent compacted this conversation once: " + l.Compactions[0].Summary
	}
	return fmt.Sprintf("the agent compacted this conversation %d times; the last: %s", n, l.Compactions[n-1].Summary)
}
