package main

// The diff section measures `compactd diff` of the two versions a
// compaction records of a 20,000-line Claude Code session (the source v1
// and its fork v2), end to end through the built binary, and checks that
// what it prints is a real line diff: lines kept, removed and added, not
// "everything removed, everything added".

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func init() {
	register(section{
		Name:    "diff",
		Summary: "compactd diff of the source and the fork of a 20,000-line Claude Code session, end to end",
		Run:     benchDiff,
	})
}

// diffLines is how many lines the session has.
const diffSessionLines = 20_000

func benchDiff(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cfg.TempDir, "diff", "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Join(cfg.TempDir, "diff"))
	src, data, err := benchSession(96<<20, 5, dir)
	if err != nil {
		return nil, err
	}
	src, lines := firstLines(src, diffSessionLines)
	path := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return nil, err
	}
	env := serverEnv(cfg, filepath.Join(cfg.TempDir, "diff", "store", "compactd.db"))
	if _, _, _, err := cliFigure(ctx, bin, env, true, "compact", path); err != nil {
		return nil, err
	}
	runs := 3
	if cfg.Quick {
		runs = 1
	}
	var walls []time.Duration
	var out []byte
	for range runs {
		cmd := exec.CommandContext(ctx, bin, "diff", path, "v1", "v2")
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if out, err = cmd.Output(); err != nil {
			return nil, fmt.Errorf("compactd diff: %v: %s", err, stderr.String())
		}
		walls = append(walls, time.Since(start))
	}
	kept, removed, added := 0, 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		switch l := sc.Text(); {
		case strings.HasPrefix(l, "  "):
			kept++
		case strings.HasPrefix(l, "- "):
			removed++
		case strings.HasPrefix(l, "+ "):
			added++
		}
	}
	w := median(walls)
	real := kept > 0 && removed > 0 && removed < kept+removed
	cfg.logf("diff: %d-line session (%s): %v; %d kept, %d removed, %d added", lines, data, w.Round(time.Millisecond), kept, removed, added)
	return []row{
		{Name: fmt.Sprintf("compactd diff v1 v2 of a %d-line Claude Code session (%s) and its fork, end to end (median of %d)", lines, data, runs),
			Value: seconds(w), Anchor: "≤ 2 s", Pass: w <= 2*time.Second},
		{Name: "the diff is a real line diff (message lines kept in both beside the removed and added ones)",
			Value: fmt.Sprintf("%d kept, %d removed, %d added", kept, removed, added), Anchor: "kept > 0, removed > 0", Pass: real},
	}, nil
}

// firstLines is data's first n lines (all of them when it has fewer) and
// how many that is.
func firstLines(data []byte, n int) ([]byte, int) {
	end, count := 0, 0
	for count < n {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			break
		}
		end += i + 1
		count++
	}
	return data[:end], count
}
