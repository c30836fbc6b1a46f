package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
)

// The hostile section: the command line against files that used to cost
// minutes and gigabytes, measured through `compactd compact` and `gauge`
// as a user runs them.
func init() {
	register(section{
		Name:    "hostile",
		Summary: "compact of 1,000,000 tiny lines (13 MB), of a 500 MB single line, gauge of 2 GiB of zeros: time and peak RSS through the CLI",
		Run:     benchHostile,
	})
}

// cliFigure runs the binary once and returns its wall time, CPU time and
// peak RSS (bytes); exit status is returned as err only when wantOK.
func cliFigure(ctx context.Context, bin string, env []string, wantOK bool, args ...string) (wall, cpu time.Duration, rss int64, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	runErr := cmd.Run()
	wall = time.Since(start)
	if st := cmd.ProcessState; st != nil {
		cpu = st.UserTime() + st.SystemTime()
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss << 10
		}
	}
	var ee *exec.ExitError
	if runErr != nil && (wantOK || !errors.As(runErr, &ee)) {
		return wall, cpu, rss, fmt.Errorf("compactd %v: %v: %s", args, runErr, stderr.String())
	}
	return wall, cpu, rss, nil
}

func benchHostile(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cfg.TempDir, "hostile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	env := serverEnv(cfg, filepath.Join(cfg.TempDir, "hostile-store", "compactd.db"))
	session := sessiongen.ClaudeCode(sessiongen.Options{Seed: 9, Turns: 2, Cwd: dir})
	var rows []row
	mb := func(n int64) string { return fmt.Sprintf("%d MB", n>>20) }

	// A million tiny records (13 bytes a line), as a script or a broken
	// agent might leave: was 51–62 s.
	tiny := filepath.Join(dir, "million.jsonl")
	var b bytes.Buffer
	b.Write(session)
	for i := 0; i < 1_000_000; i++ {
		b.WriteString(`{"type":"x"}` + "\n")
	}
	if err := os.WriteFile(tiny, b.Bytes(), 0o600); err != nil {
		return nil, err
	}
	cfg.logf("hostile: compact of %d MB in 1,000,000 lines", b.Len()>>20)
	var walls []time.Duration
	var cpuBest time.Duration
	var rssMax int64
	runs := 3
	if cfg.Quick {
		runs = 1
	}
	for i := 0; i < runs; i++ {
		wall, cpu, rss, err := cliFigure(ctx, bin, env, true, "compact", tiny)
		if err != nil {
			return nil, err
		}
		walls = append(walls, wall)
		if cpuBest == 0 || cpu < cpuBest {
			cpuBest = cpu
		}
		rssMax = max(rssMax, rss)
	}
	wall := median(walls)
	rows = append(rows,
		row{Section: "hostile", Name: "compact, 13 MB of 1,000,000 lines (CLI, median wall)", Value: seconds(wall), Anchor: "≤ 3 s", Pass: wall <= 3*time.Second},
		row{Section: "hostile", Name: "compact, 13 MB of 1,000,000 lines (CLI, CPU)", Value: seconds(cpuBest)},
		row{Section: "hostile", Name: "compact, 13 MB of 1,000,000 lines (peak RSS)", Value: mb(rssMax)})

	// A 500 MB single line after a session (sparse: NULs, no newline): was
	// 4.7 GB and 224 s; refused from a streamed scan.
	line := filepath.Join(dir, "line.jsonl")
	os.WriteFile(line, append(append([]byte(nil), session...), `{"type":"user","message":{"content":"`...), 0o600)
	os.Truncate(line, 500<<20)
	wall, _, rss, err := cliFigure(ctx, bin, env, false, "compact", line)
	if err != nil {
		return nil, err
	}
	rows = append(rows,
		row{Section: "hostile", Name: "compact, a 500 MB single line (refused; peak RSS)", Value: mb(rss), Anchor: "≤ 100 MB", Pass: rss <= 100<<20},
		row{Section: "hostile", Name: "compact, a 500 MB single line (refused; wall)", Value: seconds(wall)})

	// 2 GiB of zeros named like a transcript: was read whole.
	zeros := filepath.Join(dir, "zeros.jsonl")
	os.WriteFile(zeros, nil, 0o600)
	os.Truncate(zeros, 2<<30)
	wall, _, rss, err = cliFigure(ctx, bin, env, false, "gauge", zeros)
	if err != nil {
		return nil, err
	}
	rows = append(rows,
		row{Section: "hostile", Name: "gauge, 2 GiB of zeros (refused; peak RSS)", Value: mb(rss), Anchor: "≤ 100 MB", Pass: rss <= 100<<20},
		row{Section: "hostile", Name: "gauge, 2 GiB of zeros (refused; wall)", Value: seconds(wall)})
	return rows, nil
}
