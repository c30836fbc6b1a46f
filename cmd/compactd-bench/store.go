package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/store"
)

func init() {
	register(section{
		Name:    "store",
		Summary: "version store: size after 20 real compactions (compactd compact, mixed strategies) of a growing 50 MB session; compactd history of 1,000 versions",
		Run:     benchStore,
	})
}

// storeStrategies are the compactions the store bench runs in turn, as a
// user trying them would.
var storeStrategies = [][]string{
	{"strip-reasoning"}, {"strip-tool-results"}, {"turn-window"}, {"auto"}, {"dedup-tools"},
	{"sliding-window"}, {"strip-attachments"}, {"extractive"}, {"strip-reasoning", "strip-tool-results"}, {"token-budget"},
}

// benchStore measures what keeping history costs, through the CLI: a
// Claude Code session grows from 60 % to 100 % of its lines in 20 steps,
// and after each step `compactd compact` writes a fork with the codec
// (every line gets new ids) and records the source and the result. The
// store is then compared with one copy of the final session.
func benchStore(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	size, sizeName, steps := 50<<20, "50 MB", 20
	if cfg.Quick {
		size, sizeName, steps = 10<<20, "10 MB", 8
	}
	dir := filepath.Join(cfg.TempDir, "store", "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Join(cfg.TempDir, "store"))
	storePath := filepath.Join(cfg.TempDir, "store", "state", "compactd.db")
	env := serverEnv(cfg, storePath)
	full, kind, err := benchSession(size, 50, dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "session.jsonl")
	cut := func(share float64) []byte {
		n := int(float64(len(full)) * share)
		return full[:bytes.LastIndexByte(full[:n], '\n')+1]
	}
	if err := os.WriteFile(path, cut(0.6), 0o644); err != nil {
		return nil, err
	}
	start := time.Now()
	var cpu time.Duration
	for i := 0; i < steps; i++ {
		if i > 0 {
			if err := os.WriteFile(path, cut(0.6+0.4*float64(i)/float64(steps-1)), 0o644); err != nil {
				return nil, err
			}
		}
		args := []string{"compact"}
		for _, s := range storeStrategies[i%len(storeStrategies)] {
			args = append(args, "--strategy", s)
		}
		_, c, _, err := cliFigure(ctx, bin, env, true, append(args, path)...)
		if err != nil {
			return nil, err
		}
		cpu += c
	}
	elapsed := time.Since(start)
	size64, forks, err := storeFootprint(storePath, dir, path)
	if err != nil {
		return nil, err
	}
	ratio := float64(size64) / float64(len(full))
	cfg.logf("store: %d compactions of a session growing to %s: store %.1f MB (%.2f× one copy), %d forks written, %v", steps, sizeName, mb(size64), ratio, forks, elapsed.Round(time.Millisecond))

	hist, err := benchHistory(ctx, cfg, bin)
	if err != nil {
		return nil, err
	}
	slow := slowest(hist)
	return []row{
		{Name: fmt.Sprintf("store size / one copy after %d real compactions (compactd compact, mixed strategies, forks written by the Claude Code codec) of a session growing to %s (%s)", steps, sizeName, kind),
			Value: fmt.Sprintf("%.2f× (%.1f MB for %.1f MB)", ratio, mb(size64), mb(len(full))), Anchor: "≤ 1.3", Pass: ratio <= 1.3},
		{Name: fmt.Sprintf("compactd history of 1,000 versions (median of %d, process start included)", len(hist)), Value: ms(median(hist)), Anchor: "≤ 50 ms", Pass: median(hist) <= 50*time.Millisecond},
		{Name: fmt.Sprintf("compactd history of 1,000 versions (slowest of %d)", len(hist)), Value: ms(slow)},
		{Name: fmt.Sprintf("%d compactions of the growing session: wall, CPU", steps), Value: fmt.Sprintf("%s, %s", seconds(elapsed), seconds(cpu))},
	}, nil
}

// storeFootprint is the store's size on disk (WAL included) and how many
// forks the compactions wrote beside the session.
func storeFootprint(storePath, dir, session string) (int64, int, error) {
	s, err := store.Open(context.Background(), storePath)
	if err != nil {
		return 0, 0, err
	}
	if err := s.Checkpoint(context.Background()); err != nil {
		s.Close()
		return 0, 0, err
	}
	size, err := s.Size()
	s.Close()
	if err != nil {
		return 0, 0, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	forks := 0
	for _, e := range entries {
		if filepath.Join(dir, e.Name()) != session {
			forks++
		}
	}
	return size, forks, nil
}

// benchHistory records 1,000 versions of a session (through the store,
// which is quick) and times `compactd history` listing them.
func benchHistory(ctx context.Context, cfg *config, bin string) ([]time.Duration, error) {
	dir := filepath.Join(cfg.TempDir, "history", "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Join(cfg.TempDir, "history"))
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 51, Turns: 6, Cwd: dir})
	t, err := claude.Codec{}.Parse(data)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, t.Meta.SessionID+".jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	storePath := filepath.Join(cfg.TempDir, "history", "state", "compactd.db")
	s, err := store.Open(ctx, storePath)
	if err != nil {
		return nil, err
	}
	c, err := s.EnsureConversation(ctx, store.Conversation{Key: "session:" + t.Meta.SessionID, SourcePath: path, SessionID: t.Meta.SessionID, Format: "claude-code"})
	if err != nil {
		s.Close()
		return nil, err
	}
	var parent int64
	for i := 0; i < 1000; i++ {
		content := []byte(fmt.Sprintf(`{"n":%d}`+"\n", i))
		v, _, err := s.RecordVersion(ctx, store.NewVersion{Conversation: c, Kind: store.KindCompact, ParentID: parent, SourcePath: path,
			Content: content, Cuts: store.LineCuts(content), Report: map[string]any{"tokensBefore": 1000, "steps": []string{"x"}}})
		if err != nil {
			s.Close()
			return nil, err
		}
		parent = v.ID
	}
	s.Close()
	env := serverEnv(cfg, storePath)
	runs := 7
	if cfg.Quick {
		runs = 3
	}
	var out []time.Duration
	for i := 0; i < runs; i++ {
		wall, _, _, err := cliFigure(ctx, bin, env, true, "history", "--json", path)
		if err != nil {
			return nil, err
		}
		out = append(out, wall)
	}
	return out, nil
}

// slowest returns the largest of d.
func slowest(d []time.Duration) time.Duration {
	var m time.Duration
	for _, x := range d {
		m = max(m, x)
	}
	return m
}

// mb converts bytes to MiB for display.
func mb[N int | int64](n N) float64 { return float64(n) / (1 << 20) }

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
