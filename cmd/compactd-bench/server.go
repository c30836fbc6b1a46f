package main

// The server section measures compactd serve over stdio, as an editor
// drives it: "Compact conversation" (workspace/executeCommand) on a large
// transcript the server has indexed, and the server's memory with files
// in the workspace that are mostly not transcript (a session followed by
// gigabytes of NUL bytes, a single line of 500 MB).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/lsp"
)

func init() {
	register(section{
		Name:    "server",
		Summary: "compactd serve over stdio: executeCommand compactd.compact on an indexed 100 MB session; RSS with a 2 GiB sparse session and a 500 MB line in the workspace",
		Run:     benchServer,
	})
}

func benchServer(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rows, err := benchExecuteCommand(ctx, cfg, bin)
	if err != nil {
		return nil, err
	}
	r, err := benchServerHostile(ctx, cfg, bin)
	if err != nil {
		return nil, err
	}
	return append(rows, r...), nil
}

// settled waits until u's latest gauge shows no savings pending: the
// server has finished its background work on it.
func (c *child) settled(ctx context.Context, u protocol.DocumentURI, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		if g, ok := c.latestGauge(u); ok && !g.g.SavingsPending {
			return nil
		}
		select {
		case <-c.wake:
		case <-deadline:
			return fmt.Errorf("%s: savings still pending after %s", u, timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func benchExecuteCommand(ctx context.Context, cfg *config, bin string) ([]row, error) {
	size, sizeName, runs := 100<<20, "100 MB", 3
	if cfg.Quick {
		size, sizeName, runs = 20<<20, "20 MB", 1
	}
	ws := filepath.Join(cfg.TempDir, "server-exec")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(ws)
	path := filepath.Join(ws, "session.jsonl")
	data, kind, err := benchSession(size, 3, ws)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	agent := &growing{name: "session", path: path, more: sessiongen.Continue(transcript.FormatClaudeCode, data, 4, 200)}
	data = nil
	c, err := startChild(ctx, cfg, bin, ws, filepath.Join(cfg.TempDir, "server-exec-store", "compactd.db"))
	if err != nil {
		return nil, err
	}
	defer c.stop()
	if _, err := c.waitScan(ctx, 10*time.Minute); err != nil {
		return nil, err
	}
	u := protocol.DocumentURI(uri.File(path))
	if err := c.settled(ctx, u, 10*time.Minute); err != nil {
		return nil, fmt.Errorf("savings of the indexed session: %w", err)
	}
	var walls, dries []time.Duration
	for i := 0; i < runs; i++ {
		if i > 0 {
			// The agent goes on in the session (the fork the last run
			// wrote is the newest file now): the command comes once the
			// server has caught up with it.
			before, _ := c.latestGauge(u)
			start, err := agent.appendChunk()
			if err != nil {
				return nil, err
			}
			if _, err := c.waitGauge(ctx, u, start, time.Minute, func(g lsp.Gauge) bool { return g.Tokens != before.g.Tokens }); err != nil {
				return nil, err
			}
			if err := c.settled(ctx, u, 5*time.Minute); err != nil {
				return nil, err
			}
		}
		for _, dry := range []bool{true, false} {
			command := "compactd.compact"
			if dry {
				command = "compactd.dryRun"
			}
			var res lsp.CommandResult[*daemon.Compaction]
			start := time.Now()
			_, err := c.conn.Call(ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{
				"command": command, "arguments": []any{map[string]any{"uri": string(u)}},
			}, &res)
			d := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", command, err)
			}
			if !strings.Contains(res.Message, "compact") {
				return nil, fmt.Errorf("%s answered %q", command, res.Message)
			}
			if dry {
				dries = append(dries, d)
			} else {
				walls = append(walls, d)
			}
			cfg.logf("server: %s on the indexed %s session: %v (%s)", command, sizeName, d.Round(time.Millisecond), res.Message)
		}
	}
	w, dr := median(walls), median(dries)
	return []row{
		{Name: fmt.Sprintf("executeCommand compactd.compact over stdio on an indexed %s Claude Code session (%s; fork written, versions stored; median of %d)", sizeName, kind, runs),
			Value: seconds(w), Anchor: "≤ 1.5 s", Pass: w <= 1500*time.Millisecond},
		{Name: fmt.Sprintf("executeCommand compactd.dryRun over stdio on the indexed %s session (median of %d)", sizeName, runs), Value: seconds(dr)},
	}, nil
}

// benchServerHostile: a workspace holding a session followed by 2 GiB of
// NUL bytes (sparse: a preallocated file) and a file that is one 500 MB
// line; the server's peak RSS from spawn through its scan of them.
func benchServerHostile(ctx context.Context, cfg *config, bin string) ([]row, error) {
	sparse, line := int64(2<<30), 500<<20
	if cfg.Quick {
		sparse, line = 256<<20, 64<<20
	}
	ws := filepath.Join(cfg.TempDir, "server-hostile")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(ws)
	session := sessiongen.ClaudeCode(sessiongen.Options{Seed: 12, Turns: 8, Cwd: ws})
	zeros := filepath.Join(ws, "preallocated.jsonl")
	if err := os.WriteFile(zeros, session, 0o644); err != nil {
		return nil, err
	}
	if err := os.Truncate(zeros, sparse); err != nil {
		return nil, err
	}
	long := filepath.Join(ws, "one-line.jsonl")
	f, err := os.Create(long)
	if err != nil {
		return nil, err
	}
	// A Claude Code record whose tool output never ends.
	head := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"` + ws + `","sessionId":"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f","version":"2.0.42","type":"user","message":{"role":"user","content":"`
	f.WriteString(head)
	chunk := []byte(strings.Repeat("output line of a runaway tool ", 1<<15))
	for n := len(head); n < line; n += len(chunk) {
		f.Write(chunk)
	}
	f.WriteString(`"},"uuid":"1a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f","timestamp":"2025-11-17T10:00:00.000Z"}` + "\n")
	f.Close()

	c, err := startChild(ctx, cfg, bin, ws, filepath.Join(cfg.TempDir, "server-hostile-store", "compactd.db"))
	if err != nil {
		return nil, err
	}
	defer c.stop()
	pid := c.cmd.Process.Pid
	rss := sampleRSS(pid)
	t0 := time.Now()
	if _, err := c.waitScan(ctx, 10*time.Minute); err != nil {
		rss.end()
		return nil, err
	}
	scan := time.Since(t0)
	zu := protocol.DocumentURI(uri.File(zeros))
	g, err := c.waitGauge(ctx, zu, time.Time{}, time.Minute, nil)
	if err != nil {
		rss.end()
		return nil, fmt.Errorf("no gauge for the session before the NUL bytes: %w", err)
	}
	_ = c.settled(ctx, zu, 2*time.Minute)
	peak := rss.end()
	hwm, _ := procStatus(pid, "VmHWM")
	peak = max(peak, hwm)
	cfg.logf("server: hostile workspace scanned in %v; peak RSS %d MB; status %q", scan.Round(time.Millisecond), peak>>10, g.g.Status)
	return []row{
		{Name: fmt.Sprintf("server peak RSS with a session followed by %s of NUL bytes and a %d MB single line in the workspace", sizeLabel(sparse), line>>20),
			Value: fmt.Sprintf("%d MB", peak>>10), Anchor: "≤ 300 MB", Pass: peak>>10 <= 300},
		{Name: "the session's gauge says what it skipped", Value: fmt.Sprintf("%q", g.g.Status), Anchor: "names the NUL bytes", Pass: strings.Contains(g.g.Status, "NUL")},
		{Name: "hostile workspace scan, spawn to done", Value: seconds(scan)},
	}, nil
}

func sizeLabel(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d MB", n>>20)
}
