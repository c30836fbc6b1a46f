package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/platform/platformtest"
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
//
// The command runs under a launcher (this program, re-executed small): a
// child's ru_maxrss on Linux starts from its parent's RSS at the fork, so
// a command forked by the bench itself (hundreds of MB of fixtures in
// hand) reported the bench's peak, not its own.
func cliFigure(ctx context.Context, bin string, env []string, wantOK bool, args ...string) (wall, cpu time.Duration, rss int64, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, 0, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, 0, 0, err
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, self, append([]string{launchArg, bin}, args...)...)
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{w}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	runErr := cmd.Start()
	w.Close()
	if runErr == nil {
		runErr = cmd.Wait()
	}
	wall = time.Since(start)
	var kb, user, sys int64
	if b, err := io.ReadAll(r); err == nil {
		fmt.Sscan(string(b), &kb, &user, &sys)
	}
	cpu, rss = time.Duration(user+sys), kb<<10
	var ee *exec.ExitError
	if runErr != nil && (wantOK || !errors.As(runErr, &ee)) {
		return wall, cpu, rss, fmt.Errorf("compactd %v: %v: %s", args, runErr, stderr.String())
	}
	return wall, cpu, rss, nil
}

// launchArg makes this program the launcher of cliFigure: it runs the
// command that follows and writes the command's peak RSS (KB), user and
// system CPU time (ns) and wall time from its start to its exit (ns, the
// launcher's own start left out) to file descriptor 3; it exits as the
// command did.
const launchArg = "-launch-measured"

func launch(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = dieWithParent()
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if peak, ok := platformtest.PeakRSS(cmd.ProcessState); ok {
		out := os.NewFile(3, "measure")
		fmt.Fprintf(out, "%d %d %d %d\n", peak>>10, cmd.ProcessState.UserTime().Nanoseconds(), cmd.ProcessState.SystemTime().Nanoseconds(), wall.Nanoseconds())
		out.Close()
	}
	return cmd.ProcessState.ExitCode()
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
